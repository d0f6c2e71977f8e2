package fingerprint

// SetVoiceDensity sets the voice density gate's neighbourhood (frames
// either side) and least share for a benchmark sweep and returns a func
// that restores them. Not safe while queries are being fingerprinted.
func SetVoiceDensity(frames int, share float64) (restore func()) {
	f, s := densityFrames, densityShare
	densityFrames, densityShare = frames, share
	return func() { densityFrames, densityShare = f, s }
}
