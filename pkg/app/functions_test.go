package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Packages a function may or may not link: an import path, or with "/..."
// the package and all below it, as the go command writes it.
const (
	depBleve       = "github.com/blevesearch/..."
	depGonum       = "gonum.org/v1/gonum/..."
	depAudio       = "musiccatalog/pkg/audio/..."
	depSearch      = "musiccatalog/pkg/search" // the text engine; search/similarity is apart
	depRecognition = "musiccatalog/pkg/recognition/..."
	depSoundtrack  = "musiccatalog/pkg/soundtrack/..."
	depIngest      = "musiccatalog/pkg/catalog/ingest/..."
	depS3          = "github.com/aws/aws-sdk-go-v2/service/s3"
	depSFN         = "github.com/aws/aws-sdk-go-v2/service/sfn"
	depApp         = "musiccatalog/pkg/app"             // every group at once; Lambda mains use core and their group's package
	depBolt        = "musiccatalog/pkg/store/boltstore" // local twins
	depLocalFlow   = "musiccatalog/pkg/workflow/localworkflow"
	depFileBlob    = "musiccatalog/pkg/blob/fileblob"
)

// engines is what a function that serves neither search, audio nor
// recognition must not link; it is also the rule for a function this
// table does not know yet, so a new one is wired per group from the start.
var engines = []string{depBleve, depGonum, depAudio, depSearch, depRecognition, depSoundtrack, depIngest}

// functionDeps says, per Lambda function, what it must not link (besides
// the local twins and package app, which none may) and, to show the
// check sees the graph, one thing it must.
var functionDeps = map[string]struct{ forbidden, required []string }{
	"api-allowlist":        {forbidden: append([]string{depS3, depSFN}, engines...), required: []string{"musiccatalog/pkg/allowlist"}},
	"api-downloads":        {forbidden: engines, required: []string{"musiccatalog/pkg/downloads", depSFN}}, // starts ZIP builds
	"build-zip":            {forbidden: engines, required: []string{"musiccatalog/pkg/downloads", depS3}},
	"api-licenses":         {forbidden: append([]string{depSFN}, engines...), required: []string{"musiccatalog/pkg/licensing"}},
	"api-playlists":        {forbidden: append([]string{depSFN}, engines...), required: []string{"musiccatalog/pkg/playlists"}},
	"api-tracks":           {forbidden: append([]string{depSFN}, engines...), required: []string{depS3}},
	"api-search":           {forbidden: []string{depRecognition, depSFN, depIngest}, required: []string{depBleve}},
	"api-soundtrack":       {forbidden: []string{depBleve, depSearch, depRecognition, depIngest}, required: []string{depSoundtrack, depSFN}},
	"api-recognition":      {forbidden: []string{depBleve, depSearch, depSoundtrack, depIngest}, required: []string{depSFN}},
	"recognition-prepare":  {forbidden: []string{depBleve, depSearch, depSoundtrack, depIngest}, required: []string{depRecognition}},
	"recognition-extract":  {forbidden: []string{depBleve, depSearch, depSoundtrack, depIngest}, required: []string{depRecognition}},
	"recognition-match":    {forbidden: []string{depBleve, depSearch, depSoundtrack, depIngest}, required: []string{"musiccatalog/pkg/audio/fingerprint"}},
	"recognition-external": {forbidden: []string{depBleve, depSearch, depSoundtrack, depIngest}, required: []string{depRecognition}},
	"recognition-finish":   {forbidden: []string{depBleve, depSearch, depSoundtrack, depIngest}, required: []string{depRecognition}},
	"catalog-ingest":       {forbidden: []string{depRecognition, depSoundtrack, depSFN}, required: []string{depIngest}},
	"build-render":         {forbidden: []string{depBleve, depSearch, depRecognition, depIngest}, required: []string{"musiccatalog/pkg/soundtrack/render"}},
	"mailer":               {forbidden: append([]string{depS3, depSFN}, engines...), required: []string{"github.com/aws/aws-sdk-go-v2/service/sesv2"}},
}

// TestFunctionImports checks the import graph of every functions/* main
// (go list -deps) against what its group may link: each function carries
// its own group's engines and no other's (issue 12, item 4).
func TestFunctionImports(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dirs, err := os.ReadDir(filepath.Join("..", "..", "functions"))
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range dirs {
		name := dir.Name()
		if !dir.IsDir() || notDeployed[name] {
			continue
		}
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(goBin, "list", "-deps", "-tags", "lambda.norpc", "./functions/"+name)
			cmd.Dir = filepath.Join("..", "..")
			cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("go list: %v", err)
			}
			deps := strings.Fields(string(out))
			rule, known := functionDeps[name]
			if !known {
				rule.forbidden = engines // a new function: wire it per group, then list it above
			}
			forbidden := append([]string{depApp, depBolt, depLocalFlow, depFileBlob}, rule.forbidden...)
			for _, f := range forbidden {
				if i := slices.IndexFunc(deps, matches(f)); i >= 0 {
					t.Errorf("%s links %s (forbidden: %s)", name, deps[i], f)
				}
			}
			for _, r := range rule.required {
				if !slices.ContainsFunc(deps, matches(r)) {
					t.Errorf("%s does not link %s: the function does not do its job, or the check does not see the graph", name, r)
				}
			}
		})
	}
}

// matches reports whether an import path is pattern (see depBleve).
func matches(pattern string) func(string) bool {
	if root, ok := strings.CutSuffix(pattern, "/..."); ok {
		return func(p string) bool { return p == root || strings.HasPrefix(p, root+"/") }
	}
	return func(p string) bool { return p == pattern }
}
