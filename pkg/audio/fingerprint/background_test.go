package fingerprint_test

import (
	"fmt"
	"strings"
	"testing"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/audio/fingerprint/background"
	"musiccatalog/pkg/audio/musicdetect"
)

// TestWithBackgroundIsNeverReported: background tracks compete for every
// query, but no answer names one. A clip of a background track is matched
// as nothing, and in a timeline its time is music the index does not
// explain; the catalog's own tracks are found as before.
func TestWithBackgroundIsNeverReported(t *testing.T) {
	fp := fingerprint.New(fingerprint.IndexOptions)
	qfp := fingerprint.New(fingerprint.QueryOptions)
	build := func(prefix string, seeds ...uint64) (*fingerprint.Index, []audio.PCM) {
		b := fingerprint.NewBuilder()
		var ps []audio.PCM
		for i, s := range seeds {
			p := piece(s, 60)
			ps = append(ps, p)
			if err := b.Add(prefix+trackID(i), p.Seconds(), fp.Fingerprint(p)); err != nil {
				t.Fatal(err)
			}
		}
		return b.Build(), ps
	}
	catalog, cat := build("", 1, 2)
	bgIx, bg := build("bg-", 3, 4)
	ix, err := fingerprint.WithBackground(catalog, bgIx)
	if err != nil {
		t.Fatal(err)
	}
	if !ix.HasBackground() || catalog.HasBackground() {
		t.Fatal("HasBackground")
	}
	if n := len(ix.Tracks()); n != 2 || ix.Seconds() != catalog.Seconds() {
		t.Errorf("Tracks %d, Seconds %.1f: want the catalog's 2 and %.1f", n, ix.Seconds(), catalog.Seconds())
	}
	if _, err := ix.MarshalBinary(); err == nil {
		t.Error("an index with a background was encoded")
	}
	if _, err := fingerprint.Merge(catalog, ix); err == nil {
		t.Error("an index with a background was merged")
	}
	if _, err := fingerprint.WithBackground(ix, bgIx); err == nil {
		t.Error("a background was added twice")
	}
	sameIDs, _ := build("", 5, 6)
	if _, err := fingerprint.WithBackground(catalog, sameIDs); err == nil {
		t.Error("a background repeating the catalog's IDs was accepted")
	}

	noisy := func(p audio.PCM, seed uint64) []fingerprint.Hash {
		return qfp.Fingerprint(audiotest.MixSNR(p, audiotest.PinkNoise(rate, p.Seconds()+1, 0.1, seed), 5))
	}
	if cs := ix.Match(noisy(cat[1].Window(20, 8), 1), fingerprint.MatchOptions{}); len(cs) == 0 || cs[0].TrackID != "track-b" {
		t.Errorf("catalog clip: %+v, want track-b", cs)
	}
	if cs := ix.MatchWarped(noisy(cat[0].Window(30, 8), 2), fingerprint.MatchOptions{}); len(cs) == 0 || cs[0].TrackID != "track-a" {
		t.Errorf("catalog clip, MatchWarped: %+v, want track-a", cs)
	}
	for _, q := range [][]fingerprint.Hash{noisy(bg[0].Window(10, 8), 3), noisy(bg[1].Window(40, 8), 4)} {
		if cs := ix.Match(q, fingerprint.MatchOptions{MinRatio: 0.5}); len(cs) > 0 {
			t.Errorf("background clip matched %+v", cs)
		}
		if cs := ix.MatchWarped(q, fingerprint.MatchOptions{}); len(cs) > 0 {
			t.Errorf("background clip, MatchWarped: %+v", cs)
		}
	}

	video := audiotest.Concat(audiotest.Silence(rate, 2), cat[0].Window(5, 20), bg[0].Window(10, 15), cat[1].Window(30, 15))
	video = audiotest.MixSNR(video, audiotest.PinkNoise(rate, video.Seconds()+1, 0.1, 5), 10)
	q := qfp.Fingerprint(video)
	music := musicdetect.Detect(video, musicdetect.Options{})
	for _, withMusic := range []bool{true, false} {
		o := fingerprint.TimelineOptions{}
		if withMusic {
			o.Music = music
		}
		got := ix.Timeline(q, o)
		var named []string
		unexplained := int64(0)
		for _, s := range got {
			if strings.HasPrefix(s.TrackID, "bg-") {
				t.Errorf("music %v: a background stretch was reported: %+v", withMusic, s)
			}
			if s.TrackID != "" {
				named = append(named, s.TrackID)
			} else if s.StartMs < 37000 && s.EndMs > 22000 {
				unexplained += min(s.EndMs, 37000) - max(s.StartMs, 22000)
			}
		}
		if strings.Join(named, ",") != "track-a,track-b" {
			t.Errorf("music %v: named %v, want track-a, track-b: %+v", withMusic, named, got)
		}
		if withMusic && unexplained < 13000 {
			t.Errorf("the background song's 15 s reported as unexplained music for %d ms: %+v", unexplained, got)
		}
	}
}

// TestBackgroundRefusesChance: against a catalog of one real track, a
// minute of another song aligns with it by chance now and then, and is
// named for it (7 stretches of 2–12 s, some of them warped); matched with
// the background (package background), it is not. The catalog's own track
// in noise is found exactly as without it.
func TestBackgroundRefusesChance(t *testing.T) {
	tracks := loadNamed(t, "battle-epic", "knalgan_theme")
	fp := fingerprint.New(fingerprint.IndexOptions)
	qfp := fingerprint.New(fingerprint.QueryOptions)
	b := fingerprint.NewBuilder()
	if err := b.Add("battle-epic", tracks[0].pcm.Seconds(), fp.Fingerprint(tracks[0].pcm)); err != nil {
		t.Fatal(err)
	}
	catalog := b.Build()
	ix, err := background.For(catalog)
	if err != nil {
		t.Fatal(err)
	}
	if !ix.HasBackground() {
		t.Fatal("background.For added no background to a catalog of one track")
	}
	unknown := qfp.Fingerprint(tracks[1].pcm.Window(270, 60))
	named := func(ix *fingerprint.Index) (n int) {
		for _, s := range ix.Timeline(unknown, fingerprint.TimelineOptions{}) {
			if s.TrackID != "" {
				n++
			}
		}
		return n
	}
	if n := named(catalog); n == 0 {
		t.Fatal("without the background no chance stretch: the test shows nothing")
	}
	if n := named(ix); n > 0 {
		t.Errorf("with the background the unknown song was named %d times", n)
	}
	own := tracks[0].pcm.Window(60, 30)
	own = audiotest.MixSNR(own, audiotest.PinkNoise(rate, own.Seconds()+1, 0.1, 7), 0)
	q := qfp.Fingerprint(own)
	with, without := ix.Timeline(q, fingerprint.TimelineOptions{}), catalog.Timeline(q, fingerprint.TimelineOptions{})
	if len(with) == 0 || fmt.Sprint(with) != fmt.Sprint(without) {
		t.Errorf("the catalog's own track in noise: %+v with the background, %+v without", with, without)
	}
}

// TestBackgroundHeldByTheCatalog: a catalog that holds a background
// recording itself still names it – the background's copy is left out
// rather than tying with the catalog's track – and the rest of the
// background still competes.
func TestBackgroundHeldByTheCatalog(t *testing.T) {
	fp := fingerprint.New(fingerprint.IndexOptions)
	qfp := fingerprint.New(fingerprint.QueryOptions)
	add := func(b *fingerprint.Builder, id string, p audio.PCM) {
		if err := b.Add(id, p.Seconds(), fp.Fingerprint(p)); err != nil {
			t.Fatal(err)
		}
	}
	shared, other, own := piece(3, 60), piece(4, 60), piece(1, 60)
	cb, bb := fingerprint.NewBuilder(), fingerprint.NewBuilder()
	add(cb, "track-a", own)
	add(cb, "track-c", shared)
	add(bb, "bg-a", shared)
	add(bb, "bg-b", other)
	ix, err := fingerprint.WithBackground(cb.Build(), bb.Build())
	if err != nil {
		t.Fatal(err)
	}
	noisy := func(p audio.PCM, seed uint64) []fingerprint.Hash {
		return qfp.Fingerprint(audiotest.MixSNR(p, audiotest.PinkNoise(rate, p.Seconds()+1, 0.1, seed), 5))
	}
	if cs := ix.Match(noisy(shared.Window(25, 8), 1), fingerprint.MatchOptions{}); len(cs) == 0 || cs[0].TrackID != "track-c" {
		t.Errorf("the catalog's copy of a background recording: %+v, want track-c", cs)
	}
	if cs := ix.Match(noisy(other.Window(25, 8), 2), fingerprint.MatchOptions{MinRatio: 0.5}); len(cs) > 0 {
		t.Errorf("the other background recording matched %+v", cs)
	}
}
