package fingerprint_test

import (
	"os"
	"testing"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/fingerprint"
)

// guided applies fingerprint.GuideEdges to a timeline of query when
// AUDIO_BENCH_GUIDED=1, the catalog tracks' audio as the reference.
func guided(tb testing.TB, tracks []benchTrack, query audio.PCM, st []fingerprint.Stretch) []fingerprint.Stretch {
	if os.Getenv("AUDIO_BENCH_GUIDED") != "1" {
		return st
	}
	byName := make(map[string]audio.PCM, len(tracks))
	for _, t := range tracks {
		byName[t.name] = t.pcm
	}
	out, err := fingerprint.GuideEdges(pcmSource(query), query.Seconds(), st, pcmReference(byName))
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// pcmSource reads windows of p.
func pcmSource(p audio.PCM) fingerprint.Source {
	return func(from, seconds float64) (audio.PCM, error) { return p.Window(from, seconds), nil }
}

// pcmReference reads windows of the tracks by id.
func pcmReference(tracks map[string]audio.PCM) fingerprint.Reference {
	return func(id string, from, seconds float64) (audio.PCM, error) {
		return tracks[id].Window(from, seconds), nil
	}
}
