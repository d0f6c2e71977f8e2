package app

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// notDeployed are the functions/ commands that are not Lambda functions.
var notDeployed = map[string]bool{"devserver": true, "admin": true}

// TestEveryFunctionIsBuiltAndDeployed keeps functions/, the Makefile's
// SAM build targets and template.yaml in step.
func TestEveryFunctionIsBuiltAndDeployed(t *testing.T) {
	root := filepath.Join("..", "..")
	template, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	logical := functionIDs(t)
	dirs, _ := os.ReadDir(filepath.Join(root, "functions"))
	for _, d := range dirs {
		name := d.Name()
		if notDeployed[name] {
			continue
		}
		id, ok := logical[name]
		if !ok {
			t.Errorf("functions/%s is not in the Makefile's FUNCTIONS", name)
			continue
		}
		block := regexp.MustCompile(`(?ms)^  ` + id + `:\n(.*?)(?:^  \S|\z)`).FindSubmatch(template)
		if block == nil {
			t.Errorf("template.yaml has no resource %s for functions/%s", id, name)
			continue
		}
		for _, want := range []string{"Type: AWS::Serverless::Function", "BuildMethod: makefile", "CodeUri: ."} {
			if !strings.Contains(string(block[1]), want) {
				t.Errorf("%s lacks %q", id, want)
			}
		}
		delete(logical, name)
	}
	for dir := range logical {
		t.Errorf("Makefile builds %s, which is not under functions/", dir)
	}
}
