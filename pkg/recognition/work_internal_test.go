package recognition

import (
	"reflect"
	"strings"
	"testing"

	"musiccatalog/pkg/audio"
	"musiccatalog/pkg/audio/fingerprint"
)

// TestWorkDirFollowsQueryOptions: work prepared with other query
// fingerprint options lives elsewhere, so a deploy that changes them
// does not reuse hashes computed the old way.
func TestWorkDirFollowsQueryOptions(t *testing.T) {
	o := fingerprint.QueryOptions
	o.SuppressVoice = !o.SuppressVoice
	p := fingerprint.QueryOptions
	p.PeaksPerSecond++
	if r := recipeOf(fingerprint.QueryOptions); r == recipeOf(o) || r == recipeOf(p) {
		t.Errorf("recipe %s does not follow the options", r)
	}
	if recipeOf(fingerprint.QueryOptions) != recipeOf(fingerprint.QueryOptions) {
		t.Error("recipe not stable")
	}
	d := workDir("uploads/a.mp4", `"etag"`)
	if !strings.Contains(d, "."+queryRecipe+"/") || d != workDir("uploads/a.mp4", "etag") {
		t.Errorf("work dir %s", d)
	}
}

// TestAnalysisKeepsSilences: the silences Extract finds reach Match (they
// bound the timeline's edges), and an analysis stored before them reads
// as none.
func TestAnalysisKeepsSilences(t *testing.T) {
	a := analysis{DurationMs: 30000, Rate: 11025, Music: []audio.Range{{StartMs: 0, EndMs: 10000}},
		Silences: []audio.Range{{StartMs: 10000, EndMs: 13000}}, Hashes: []fingerprint.Hash{{Key: 7, Time: 3}}}
	b, err := a.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got analysis
	if err := got.UnmarshalBinary(b); err != nil || !reflect.DeepEqual(got, a) {
		t.Errorf("read back %+v (%v), want %+v", got, err, a)
	}
	// One written before silences: its JSON head has no such key.
	a.Silences = nil
	if b, err = a.MarshalBinary(); err != nil || strings.Contains(string(b), "silences") {
		t.Fatalf("an analysis without silences stored %q (%v)", b, err)
	}
	got = analysis{Silences: []audio.Range{{StartMs: 1, EndMs: 2}}}
	if err := got.UnmarshalBinary(b); err != nil || got.Silences != nil || len(got.Hashes) != 1 {
		t.Errorf("an analysis stored before silences read as %+v (%v), want no silences", got, err)
	}
}
