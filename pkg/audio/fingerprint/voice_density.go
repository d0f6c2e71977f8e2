package fingerprint

// Voice density gate (issue 16). A narrator is voiced in about three
// frames of four, so gliding-track frames crowd each other over a second
// or two; music lets a gliding track through now and then (about 1 % of
// its frames, up to 10 % on a song with a sliding lead), in short
// scattered runs. Masking those runs took music from queries that hold no
// voice at all. So a gliding track's frame is masked only where such
// frames are dense around it.
//
// Chosen on the tuning half (bench_voice_test.go: every 10 s of every
// wesnoth track, clean and in white noise at −5 dB, no voice; and
// BenchmarkAccuracy's narrated videos and intro timelines, which must
// hold): see densityFrames and densityShare.
var (
	// densityFrames is the half-width of the neighbourhood (frames either
	// side; 21 frames ≈ 1 s).
	densityFrames = 21
	// densityShare is the least share of the neighbourhood's frames
	// (clipped to the query) that must be gliding-track frames.
	densityShare = 0.3
)

// dense drops from v.track the gliding-track frames whose neighbourhood
// (densityFrames either side, within the query) holds fewer than
// densityShare of gliding-track frames. It runs after voiced; v.prefix,
// pitch's row scratch, holds the count of voiced frames before each frame.
func (v *voiceState) dense() {
	n := len(v.track)
	if cap(v.prefix) < n+1 {
		v.prefix = make([]float64, n+1)
	}
	v.prefix = v.prefix[:n+1]
	v.prefix[0] = 0
	for f, c := range v.track {
		v.prefix[f+1] = v.prefix[f]
		if c >= 0 {
			v.prefix[f+1]++
		}
	}
	for f, c := range v.track {
		if c < 0 {
			continue
		}
		lo, hi := max(0, f-densityFrames), min(n, f+densityFrames+1)
		if v.prefix[hi]-v.prefix[lo] < densityShare*float64(hi-lo) {
			v.track[f] = -1
		}
	}
}
