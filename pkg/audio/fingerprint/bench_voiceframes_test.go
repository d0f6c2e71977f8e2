package fingerprint_test

import (
	"fmt"
	"sync"
	"testing"

	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/fingerprint"
)

// BenchmarkVoicedFrames measures the voice detector itself on the TUNING
// half only (the held-out half is for the end-to-end benchmarks): the share
// of frames it takes for a voice in 60 s of each tuning song (from 10 s),
// alone and in pink noise 10 dB under it, and in 40 s of narration by each
// tuning voice (three texts each). Music frames taken are music the mask
// may lower; voice frames taken are the narration it lowers. Run it with
//
//	go test ./pkg/audio/fingerprint/ -run '^$' -bench BenchmarkVoicedFrames -benchtime 1x
func BenchmarkVoicedFrames(b *testing.B) {
	audiotest.RequireEspeak(b)
	tracks := loadTracks(b)
	songs, voices := halfSets(tracks)
	for b.Loop() {
		var mu sync.Mutex
		var clean, noisy, speech float64
		parallel(len(songs[0]), func(i int) {
			p := tracks[songs[0][i]].pcm.Window(10, 60)
			_, c := fingerprint.VoicedShare(p, fingerprint.SungLine{}, 0)
			_, n := fingerprint.VoicedShare(audiotest.MixSNR(p, audiotest.PinkNoise(p.Rate, 61, 0.1, uint64(i)), 10), fingerprint.SungLine{}, 0)
			mu.Lock()
			clean += c / float64(len(songs[0]))
			noisy += n / float64(len(songs[0]))
			mu.Unlock()
		})
		k := 3 * len(voices[0])
		parallel(k, func(i int) {
			_, s := fingerprint.VoicedShare(narration(b, voices[0][i/3], 40, uint64(i%3+1)), fingerprint.SungLine{}, 0)
			mu.Lock()
			speech += s / float64(k)
			mu.Unlock()
		})
		fmt.Printf("\nvoiced frames, tuning half: music %.2f %% (in pink noise 10 dB %.2f %%), narration %.1f %%\n", 100*clean, 100*noisy, 100*speech)
	}
}
