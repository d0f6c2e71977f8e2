package ingest_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/catalogtest"
	"musiccatalog/pkg/catalog/demo"
	"musiccatalog/pkg/catalog/fpindex"
	"musiccatalog/pkg/catalog/ingest"
)

// TestDemoTracksAreRecognisedInNoise: what new users try first is
// recognising a demo track in a video, so a 12-s excerpt with pink noise
// 25 dB down, re-encoded to AAC, must be told apart from its synthesized
// siblings (the ratio test of fingerprint.Match).
func TestDemoTracksAreRecognisedInNoise(t *testing.T) {
	if testing.Short() {
		t.Skip("renders and ingests a demo catalog")
	}
	needFFmpeg(t)
	// n demo tracks; perTrack excerpts of length s from each of clips of
	// them, with noise snr dB below the excerpt.
	const n, clips, perTrack, length, snr = 40, 10, 4, 12.0, 25.0
	dir := t.TempDir()
	path, err := demo.Generate(t.Context(), dir, n, demo.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	bs := catalogtest.NewStore(t)
	run(t, ingest.Options{Blob: bs}, path)
	c := current(t, bs)
	ix, err := (&fpindex.Index{Blob: bs}).For(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	// Versions of one song (instrumental, short edit) legitimately share
	// its audio; query only songs that have a single version.
	versions := map[string]int{}
	for _, tr := range c.Tracks() {
		versions[tr.Artist.Name+"\x00"+tr.Name]++
	}
	var eligible []*catalog.Track
	for _, tr := range c.Tracks() {
		if versions[tr.Artist.Name+"\x00"+tr.Name] == 1 && float64(tr.Length) >= length+2 {
			eligible = append(eligible, tr)
		}
	}
	if len(eligible) < clips {
		t.Fatalf("%d eligible tracks", len(eligible))
	}
	qfp := fingerprint.New(fingerprint.QueryOptions)
	found := 0
	for k := range perTrack * clips {
		tr := eligible[(k/perTrack)*len(eligible)/clips]
		pcm, err := decode.ReadWAV(bytes.NewReader(readBlob(t, bs, tr.Audio.WAVKey)))
		if err != nil {
			t.Fatal(err)
		}
		start := (0.05 + 0.25*float64(k%perTrack) + 0.03*float64(k%3)) * (pcm.Seconds() - length)
		src := pcm.Window(start, length)
		mixed := audiotest.MixSNR(src, audiotest.PinkNoise(src.Rate, length+0.1, 0.1, uint64(k)+1), snr)
		peak := float32(0)
		for _, v := range mixed.Samples {
			peak = max(peak, v, -v)
		}
		if peak > 0.99 {
			audiotest.Scale(mixed, 0.99/float64(peak))
		}
		wav, mp4 := filepath.Join(dir, "clip.wav"), filepath.Join(dir, "clip.mp4")
		writeWAV(t, wav, mixed)
		cmd := exec.Command("ffmpeg", "-nostdin", "-y", "-loglevel", "error", "-i", wav, "-c:a", "aac", "-b:a", "128k", mp4)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("aac encode: %v: %s", err, out)
		}
		clip, err := decode.Decoder{}.DecodeFile(t.Context(), mp4)
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(mp4)
		q := qfp.Fingerprint(clip)
		got := ix.Match(q, fingerprint.MatchOptions{})
		all := ix.Match(q, fingerprint.MatchOptions{MinRatio: 0.3, MinScore: 1, MaxCandidates: 2})
		ok := len(got) > 0 && got[0].TrackID == tr.ID
		if ok {
			found++
		}
		t.Logf("%-32q at %4.1f s: identified %-5v candidates %+v", tr.Name, start, ok, all)
	}
	t.Logf("identified %d/%d", found, perTrack*clips)
	if found < perTrack*clips {
		t.Errorf("identified %d of %d noisy excerpts of demo tracks, want all", found, perTrack*clips)
	}
}
