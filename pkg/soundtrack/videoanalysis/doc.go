// Package videoanalysis describes a video for the soundtrack search
// (by-video): the music in its audio, through the audio engine (decode,
// musicdetect to keep only the stretches with music, features for tempo,
// key, loudness and the similarity vector), and the pace of its picture,
// through ffmpeg's scene-change scores (cuts per minute and motion within
// shots), which package soundtrack maps to tempo and energy hints.
//
// It runs ffmpeg as a subprocess, like package decode, and so belongs
// beside the audio engine rather than in an adapter: it has no port to
// put behind, only a binary path.
package videoanalysis
