package fingerprint_test

import (
	"math"
	"testing"

	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/audio/musicdetect"
)

// TestSongUnderNarration: 30 s of a catalog song under continuous espeak-ng
// narration, the music 8 dB below the voice (AAC), is found at the right
// alignment with both ends within a second – the case the per-window
// threshold alone missed (issue 16).
func TestSongUnderNarration(t *testing.T) {
	audiotest.RequireEspeak(t)
	tracks := loadNamed(t, "battle-epic", "knolls", "wanderer", "elvish-theme")
	b := fingerprint.NewBuilder()
	fp := fingerprint.New(fingerprint.IndexOptions)
	for _, tr := range tracks {
		if err := b.Add(tr.name, tr.pcm.Seconds(), fp.Fingerprint(tr.pcm)); err != nil {
			t.Fatal(err)
		}
	}
	ix := b.Build()
	c := narratedCase{track: 0, voice: 0, trackStart: 20, levelDB: -8, seed: 6}
	pcm := renderNarrated(t, tracks, c)
	st := ix.Timeline(fingerprint.New(fingerprint.QueryOptions).Fingerprint(pcm), fingerprint.TimelineOptions{Music: musicdetect.Detect(pcm, musicdetect.Options{})})
	var found []fingerprint.Stretch
	for _, s := range st {
		if s.TrackID != "" {
			found = append(found, s)
		}
	}
	if len(found) != 1 || found[0].TrackID != "battle-epic" {
		t.Fatalf("stretches %+v, want battle-epic alone", st)
	}
	s := found[0]
	start, end := float64(s.StartMs)/1000, float64(s.EndMs)/1000
	if math.Abs(start-narrLead) > 1 || math.Abs(end-(narrLead+narrLen)) > 1 {
		t.Errorf("bounds %.2f–%.2f s, want %g–%g ±1 s", start, end, narrLead, narrLead+narrLen)
	}
	if off := float64(s.TrackOffsetMs)/1000 - start; math.Abs(off-(c.trackStart-narrLead)) > 0.5 {
		t.Errorf("alignment %.2f s, want %.2f", off, c.trackStart-narrLead)
	}
}
