package fingerprint_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/audio/musicdetect"
)

const rate = fingerprint.SampleRate

// piece is synthetic music that never repeats: random chords and notes.
func piece(seed uint64, seconds float64) audio.PCM {
	r := rand.New(rand.NewPCG(seed, 9))
	var notes []audiotest.Note
	for t := 0.0; t < seconds; t += 0.25 {
		notes = append(notes, audiotest.Note{Pitch: 55 + r.IntN(30), Start: t, Dur: 0.2 + 0.6*r.Float64(), Amp: 0.1 + 0.1*r.Float64()})
		if r.IntN(4) == 0 {
			notes = append(notes, audiotest.Note{Pitch: 36 + r.IntN(12), Start: t, Dur: 1, Amp: 0.15})
		}
	}
	return audiotest.Render(rate, seconds, notes)
}

func buildSynthetic(t *testing.T, n int) (*fingerprint.Index, []audio.PCM) {
	t.Helper()
	b := fingerprint.NewBuilder()
	fp := fingerprint.New(fingerprint.IndexOptions)
	var ps []audio.PCM
	for i := range n {
		p := piece(uint64(i+1), 60)
		ps = append(ps, p)
		if err := b.Add(trackID(i), p.Seconds(), fp.Fingerprint(p)); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build(), ps
}

func trackID(i int) string { return "track-" + string(rune('a'+i)) }

func TestMatchNoisyClips(t *testing.T) {
	ix, ps := buildSynthetic(t, 8)
	q := fingerprint.New(fingerprint.QueryOptions)
	for i, p := range ps {
		start := 7.3 + 4*float64(i)
		clip := p.Window(start, 5)
		noisy := audiotest.MixSNR(clip, audiotest.PinkNoise(rate, 6, 0.1, uint64(i)), 0)
		audiotest.Scale(noisy, 0.3) // volume must not matter
		cs := ix.Match(q.Fingerprint(noisy), fingerprint.MatchOptions{})
		if len(cs) == 0 || cs[0].TrackID != trackID(i) {
			t.Errorf("clip of %s: %+v", trackID(i), cs)
			continue
		}
		if math.Abs(cs[0].TrackOffset-start) > 0.1 {
			t.Errorf("clip of %s at %.1f s matched at %.2f s", trackID(i), start, cs[0].TrackOffset)
		}
	}
	// Music that is not in the index is not reported.
	for s := uint64(100); s < 105; s++ {
		if cs := ix.Match(q.Fingerprint(piece(s, 10)), fingerprint.MatchOptions{}); len(cs) > 0 {
			t.Errorf("out-of-index piece matched %+v", cs)
		}
	}
	if cs := ix.Match(q.Fingerprint(audiotest.PinkNoise(rate, 10, 0.1, 1)), fingerprint.MatchOptions{}); len(cs) > 0 {
		t.Errorf("noise matched %+v", cs)
	}
}

func TestVolumeInvariance(t *testing.T) {
	p := piece(1, 10)
	quiet := audio.PCM{Samples: slices.Clone(p.Samples), Rate: p.Rate}
	audiotest.Scale(quiet, 0.05)
	a := fingerprint.New(fingerprint.IndexOptions).Fingerprint(p)
	b := fingerprint.New(fingerprint.IndexOptions).Fingerprint(quiet)
	same := 0
	set := map[fingerprint.Hash]bool{}
	for _, h := range a {
		set[h] = true
	}
	for _, h := range b {
		if set[h] {
			same++
		}
	}
	if len(a) == 0 || float64(same) < 0.85*float64(len(a)) {
		t.Errorf("26 dB quieter keeps %d of %d hashes", same, len(a))
	}
}

func TestResampledInput(t *testing.T) {
	ix, ps := buildSynthetic(t, 3)
	clip := ps[1].Window(20, 6)
	up := upsample2(clip)
	cs := ix.Match(fingerprint.New(fingerprint.QueryOptions).Fingerprint(up), fingerprint.MatchOptions{})
	if len(cs) == 0 || cs[0].TrackID != trackID(1) || math.Abs(cs[0].TrackOffset-20) > 0.1 {
		t.Errorf("22.05 kHz clip: %+v", cs)
	}
}

// upsample2 doubles the rate by linear interpolation; Fingerprint must
// resample it back.
func upsample2(p audio.PCM) audio.PCM {
	out := make([]float32, 2*len(p.Samples))
	for i, v := range p.Samples {
		out[2*i] = v
		next := v
		if i+1 < len(p.Samples) {
			next = p.Samples[i+1]
		}
		out[2*i+1] = (v + next) / 2
	}
	return audio.PCM{Samples: out, Rate: 2 * p.Rate}
}

func TestIndexSerializeAndMerge(t *testing.T) {
	fp := fingerprint.New(fingerprint.IndexOptions)
	b1, b2, all := fingerprint.NewBuilder(), fingerprint.NewBuilder(), fingerprint.NewBuilder()
	var ps []audio.PCM
	for i := range 4 {
		p := piece(uint64(i+1), 40)
		ps = append(ps, p)
		h := fp.Fingerprint(p)
		seg := b1
		if i >= 2 {
			seg = b2
		}
		seg.Add(trackID(i), p.Seconds(), h)
		all.Add(trackID(i), p.Seconds(), h)
	}
	merged, err := fingerprint.Merge(b1.Build(), b2.Build())
	if err != nil {
		t.Fatal(err)
	}
	whole := all.Build()
	mb, _ := merged.MarshalBinary()
	wb, _ := whole.MarshalBinary()
	if !bytes.Equal(mb, wb) {
		t.Error("merging two segments differs from building at once")
	}
	var buf bytes.Buffer
	if _, err := merged.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	loaded, err := fingerprint.ReadIndex(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Len() != whole.Len() || len(loaded.Tracks()) != 4 {
		t.Fatalf("loaded %d hashes, %d tracks", loaded.Len(), len(loaded.Tracks()))
	}
	q := fingerprint.New(fingerprint.QueryOptions).Fingerprint(ps[3].Window(12, 5))
	if cs := loaded.Match(q, fingerprint.MatchOptions{}); len(cs) == 0 || cs[0].TrackID != trackID(3) {
		t.Errorf("loaded index: %+v", cs)
	}
	// Damage is detected, not matched against.
	bad := slices.Clone(wb)
	bad[len(bad)/2] ^= 0xff
	if err := new(fingerprint.Index).UnmarshalBinary(bad); !errors.Is(err, fingerprint.ErrFormat) {
		t.Errorf("corrupted blob: %v", err)
	}
	if _, err := fingerprint.Merge(whole, whole); !errors.Is(err, fingerprint.ErrDuplicateTrack) {
		t.Errorf("duplicate ids: %v", err)
	}
}

// TestTimelineSynthetic: silence, A, B, a cut inside B, unknown music, A
// again: every known stretch within a second, the unknown one reported
// as unmatched music.
func TestTimelineSynthetic(t *testing.T) {
	ix, ps := buildSynthetic(t, 4)
	unknown := piece(99, 12)
	type seg struct {
		id           string
		start, end   float64
		trackAtStart float64
	}
	parts := []audio.PCM{audiotest.Silence(rate, 3), ps[0].Window(10, 20), audiotest.Silence(rate, 3),
		ps[1].Window(5, 15), ps[1].Window(35, 15), unknown, ps[0].Window(40, 15)}
	want := []seg{{"track-a", 3, 23, 10}, {"track-b", 26, 41, 5}, {"track-b", 41, 56, 35}, {"", 56, 68, 0}, {"track-a", 68, 83, 40}}
	video := audiotest.Concat(parts...)
	video = audiotest.MixSNR(video, audiotest.PinkNoise(rate, video.Seconds()+1, 0.1, 3), 10)
	music := musicdetect.Detect(video, musicdetect.Options{})
	got := ix.Timeline(fingerprint.New(fingerprint.QueryOptions).Fingerprint(video), fingerprint.TimelineOptions{Music: music})
	for _, w := range want {
		found := false
		for _, s := range got {
			if s.TrackID != w.id || math.Abs(float64(s.StartMs)/1000-w.start) > 1 || math.Abs(float64(s.EndMs)/1000-w.end) > 1 {
				continue
			}
			if w.id != "" && math.Abs(float64(s.TrackOffsetMs)/1000-w.trackAtStart) > 1 {
				continue
			}
			found = true
		}
		if !found {
			t.Errorf("no stretch like %+v in %+v", w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d stretches, want %d: %+v", len(got), len(want), got)
	}
}

// TestRealTracks: a few seconds of real music through AAC at 0 dB SNR.
func TestRealTracks(t *testing.T) {
	tracks := loadSome(t, []string{"battle", "elvish-theme", "knolls", "wanderer", "northerners"})
	b := fingerprint.NewBuilder()
	fp := fingerprint.New(fingerprint.IndexOptions)
	for _, tr := range tracks {
		b.Add(tr.name, tr.pcm.Seconds(), fp.Fingerprint(tr.pcm))
	}
	ix := b.Build()
	q := fingerprint.New(fingerprint.QueryOptions)
	for i, tr := range tracks {
		start := 20.0 + 5*float64(i)
		clip := audiotest.MixSNR(tr.pcm.Window(start, 5), audiotest.PinkNoise(rate, 6, 0.1, uint64(i)), 0)
		clip = aacRoundTrip(t, clip, "unit-"+tr.name)
		cs := ix.Match(q.Fingerprint(clip), fingerprint.MatchOptions{})
		if len(cs) == 0 || cs[0].TrackID != tr.name || math.Abs(cs[0].TrackOffset-start) > 0.2 {
			t.Errorf("%s at %.0f s: %+v", tr.name, start, cs)
		}
	}
}

func loadSome(t *testing.T, names []string) []benchTrack {
	paths := requireMusic(t)
	var out []benchTrack
	for _, p := range paths {
		for _, n := range names {
			if p == musicDir+"/"+n+".ogg" {
				pcm, err := decode.Decoder{}.DecodeWindow(context.Background(), p, 0, 60)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, benchTrack{name: n, path: p, pcm: pcm})
			}
		}
	}
	return out
}
