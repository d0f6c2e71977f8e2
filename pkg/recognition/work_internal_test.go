package recognition

import (
	"strings"
	"testing"

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
