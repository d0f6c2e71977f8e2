package app

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	// kin-openapi's YAML parser (a yaml.v3 fork), already in the module graph:
	// its Node tree keeps the !Ref, !GetAtt and !Sub tags.
	yaml "github.com/oasdiff/yaml3"

	"musiccatalog/pkg/downloads"
	"musiccatalog/pkg/recognition"
)

// Without `sam validate` on the machine, these tests check what a deploy
// would trip over first: dangling references, state machines whose
// placeholders are not substituted, routes missing from the OpenAPI
// document, and timeouts that disagree between Lambda, SQS and the ASL.

// cfnTemplate is template.yaml as a YAML tree plus its resource index.
type cfnTemplate struct {
	root       *yaml.Node
	resources  map[string]*yaml.Node // logical id → resource mapping node
	parameters map[string]bool
	conditions map[string]bool
}

func loadTemplate(t *testing.T) *cfnTemplate {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("template.yaml: %v", err)
	}
	tpl := &cfnTemplate{root: doc.Content[0], resources: map[string]*yaml.Node{}, parameters: map[string]bool{}, conditions: map[string]bool{}}
	for name, n := range mapping(tpl.root, "Resources") {
		tpl.resources[name] = n
	}
	for name := range mapping(tpl.root, "Parameters") {
		tpl.parameters[name] = true
	}
	for name := range mapping(tpl.root, "Conditions") {
		tpl.conditions[name] = true
	}
	return tpl
}

// get returns the value of key in a mapping node (nil when absent).
func get(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// mapping returns the entries of the mapping at path under n.
func mapping(n *yaml.Node, path ...string) map[string]*yaml.Node {
	for _, p := range path {
		n = get(n, p)
	}
	out := map[string]*yaml.Node{}
	if n == nil || n.Kind != yaml.MappingNode {
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		out[n.Content[i].Value] = n.Content[i+1]
	}
	return out
}

func (tpl *cfnTemplate) typeOf(id string) string { return get(tpl.resources[id], "Type").Value }

func (tpl *cfnTemplate) props(id string) *yaml.Node { return get(tpl.resources[id], "Properties") }

// refOK reports whether name can be referenced: a resource, a parameter
// or a pseudo parameter.
func (tpl *cfnTemplate) refOK(name string) bool {
	return tpl.resources[name] != nil || tpl.parameters[name] || strings.HasPrefix(name, "AWS::")
}

// samGenerated reports whether id is a resource SAM generates from one of
// the template's: the $default stage of an HTTP API.
func (tpl *cfnTemplate) samGenerated(id string) bool {
	api, ok := strings.CutSuffix(id, "ApiGatewayDefaultStage")
	return ok && tpl.resources[api] != nil && tpl.typeOf(api) == "AWS::Serverless::HttpApi"
}

var subVar = regexp.MustCompile(`\$\{([^}!][^}]*)\}`)

// walk checks every intrinsic function under n.
func (tpl *cfnTemplate) walk(t *testing.T, n *yaml.Node, where string) {
	t.Helper()
	switch n.Tag {
	case "!Ref":
		if !tpl.refOK(n.Value) {
			t.Errorf("%s: !Ref %s names nothing", where, n.Value)
		}
	case "!GetAtt":
		target := n.Value
		if n.Kind == yaml.SequenceNode && len(n.Content) > 0 {
			target = n.Content[0].Value
		}
		id, _, _ := strings.Cut(target, ".")
		if tpl.resources[id] == nil {
			t.Errorf("%s: !GetAtt %s names no resource", where, target)
		}
	case "!Sub":
		text, local := n.Value, map[string]bool{}
		if n.Kind == yaml.SequenceNode && len(n.Content) == 2 {
			text = n.Content[0].Value
			for k := range mapping(n.Content[1]) {
				local[k] = true
			}
		}
		for _, m := range subVar.FindAllStringSubmatch(text, -1) {
			id, _, _ := strings.Cut(m[1], ".")
			if !local[m[1]] && !tpl.refOK(id) {
				t.Errorf("%s: !Sub ${%s} names nothing", where, m[1])
			}
		}
	case "!If", "!Condition":
		name := n.Value
		if n.Kind == yaml.SequenceNode && len(n.Content) > 0 {
			name = n.Content[0].Value
		}
		if !tpl.conditions[name] {
			t.Errorf("%s: condition %s is not declared", where, name)
		}
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i].Value, n.Content[i+1]
			if k == "DependsOn" {
				for _, d := range append([]*yaml.Node{v}, v.Content...) {
					if d.Kind == yaml.ScalarNode && tpl.resources[d.Value] == nil && !tpl.samGenerated(d.Value) {
						t.Errorf("%s: DependsOn %s names no resource", where, d.Value)
					}
				}
			}
			tpl.walk(t, v, where+"."+k)
		}
		return
	}
	for _, c := range n.Content {
		tpl.walk(t, c, where)
	}
}

func TestTemplateReferences(t *testing.T) {
	tpl := loadTemplate(t)
	if len(tpl.resources) == 0 {
		t.Fatal("no resources")
	}
	tpl.walk(t, tpl.root, "template")

	// Every function SAM builds with the Makefile has a build target.
	makefile, _ := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	for id := range tpl.resources {
		if tpl.typeOf(id) == "AWS::Serverless::Function" && !strings.Contains(string(makefile), ":"+id) {
			t.Errorf("%s has no entry in the Makefile's FUNCTIONS", id)
		}
	}
}

// functionIDs maps functions/ directories to logical ids (Makefile FUNCTIONS).
func functionIDs(t *testing.T) map[string]string {
	t.Helper()
	makefile, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	// FUNCTIONS := ... and any FUNCTIONS += ... that add to it.
	ms := regexp.MustCompile(`(?m)^FUNCTIONS [:+]= (.*)$`).FindAllSubmatch(makefile, -1)
	if ms == nil {
		t.Fatal("Makefile has no FUNCTIONS list")
	}
	ids := map[string]string{}
	for _, m := range ms {
		for _, pair := range strings.Fields(string(m[1])) {
			dir, id, _ := strings.Cut(pair, ":")
			ids[dir] = id
		}
	}
	return ids
}

// TestRecognitionStateMachineDeployment ties the deployed state machine to
// the one the devserver runs: the same ASL file, substitutions naming the
// same task functions, permission to invoke each, and Lambda timeouts equal
// to the states' TimeoutSeconds.
func TestRecognitionStateMachineDeployment(t *testing.T) {
	checkStateMachineDeployment(t, "RecognitionStateMachine", recognition.Substitutions, "api-recognition", "RECOGNITION_STATE_MACHINE_ARN")
}

// TestZipStateMachineDeployment is the same for the ZIP build machine,
// started by api-downloads.
func TestZipStateMachineDeployment(t *testing.T) {
	checkStateMachineDeployment(t, "ZipStateMachine", downloads.Substitutions, "api-downloads", "ZIP_STATE_MACHINE_ARN")
}

// checkStateMachineDeployment checks state machine sm of template.yaml
// against the substitutions the local runner uses, and that function
// starter names it in variable env.
func checkStateMachineDeployment(t *testing.T, sm string, localSubs map[string]string, starter, env string) {
	tpl := loadTemplate(t)
	if tpl.resources[sm] == nil || tpl.typeOf(sm) != "AWS::Serverless::StateMachine" {
		t.Fatalf("no %s", sm)
	}
	uri := get(tpl.props(sm), "DefinitionUri").Value
	asl, err := os.ReadFile(filepath.Join("..", "..", uri))
	if err != nil {
		t.Fatalf("DefinitionUri: %v", err)
	}
	subs := mapping(tpl.props(sm), "DefinitionSubstitutions")
	used := map[string]bool{}
	for _, m := range subVar.FindAllStringSubmatch(string(asl), -1) {
		used[m[1]] = true
		if subs[m[1]] == nil {
			t.Errorf("%s uses ${%s}, which DefinitionSubstitutions lacks", uri, m[1])
		}
	}
	if got, want := slices.Sorted(maps.Keys(subs)), slices.Sorted(maps.Keys(localSubs)); !slices.Equal(got, want) {
		t.Errorf("substitutions %v; the local runner's have %v", got, want)
	}
	ids := functionIDs(t)
	invokable := map[string]bool{}
	for _, p := range get(tpl.props(sm), "Policies").Content {
		if fn := get(get(p, "LambdaInvokePolicy"), "FunctionName"); fn != nil {
			invokable[fn.Value] = true
		}
	}
	var def struct {
		States map[string]struct {
			Type, Resource string
			TimeoutSeconds int
		}
	}
	if err := json.Unmarshal(asl, &def); err != nil {
		t.Fatal(err)
	}
	for key, fn := range localSubs {
		v := subs[key]
		if v == nil {
			continue
		}
		id := ids[fn]
		if v.Tag != "!GetAtt" || v.Value != id+".Arn" {
			t.Errorf("%s = %s %s; want !GetAtt %s.Arn (functions/%s)", key, v.Tag, v.Value, id, fn)
		}
		if !invokable[id] {
			t.Errorf("the state machine may not invoke %s", id)
		}
		if !used[key] {
			t.Errorf("${%s} is substituted but not used", key)
		}
		timeout, _ := strconv.Atoi(get(tpl.props(id), "Timeout").Value)
		for name, st := range def.States {
			if st.Resource == "${"+key+"}" && st.TimeoutSeconds > timeout {
				t.Errorf("state %s waits %d s for %s, whose Lambda timeout is %d s", name, st.TimeoutSeconds, id, timeout)
			}
		}
	}
	// The API starts executions of exactly this machine.
	api := tpl.props(ids[starter])
	if v := mapping(api, "Environment", "Variables")[env]; v == nil || v.Tag != "!Ref" || v.Value != sm {
		t.Errorf("%s's %s is not !Ref %s", starter, env, sm)
	}
}

// TestRecognitionUploadTrigger checks the S3 → SQS → prepare chain.
func TestRecognitionUploadTrigger(t *testing.T) {
	tpl := loadTemplate(t)
	ids := functionIDs(t)
	prepare := ids["recognition-prepare"]
	ev := mapping(tpl.props(prepare), "Events")["Uploads"]
	if get(ev, "Type").Value != "SQS" {
		t.Fatalf("%s is not fed by SQS", prepare)
	}
	queue := strings.TrimSuffix(get(get(ev, "Properties"), "Queue").Value, ".Arn")
	if tpl.typeOf(queue) != "AWS::SQS::Queue" {
		t.Fatalf("event source %s is not a queue", queue)
	}
	types := get(get(ev, "Properties"), "FunctionResponseTypes")
	if types == nil || len(types.Content) != 1 || types.Content[0].Value != "ReportBatchItemFailures" {
		t.Errorf("partial batch responses are not enabled")
	}
	vis, _ := strconv.Atoi(get(tpl.props(queue), "VisibilityTimeout").Value)
	timeout, _ := strconv.Atoi(get(tpl.props(prepare), "Timeout").Value)
	if vis < 6*timeout {
		t.Errorf("visibility timeout %d s < 6 × the function's %d s", vis, timeout)
	}
	if get(get(tpl.props(queue), "RedrivePolicy"), "deadLetterTargetArn") == nil {
		t.Errorf("%s has no dead-letter queue", queue)
	}
	// The bucket notifies that queue of uploads under the recognition prefix.
	found := false
	for _, qc := range get(get(tpl.props("MediaBucket"), "NotificationConfiguration"), "QueueConfigurations").Content {
		if get(qc, "Queue").Value != queue+".Arn" {
			continue
		}
		for _, r := range get(get(get(qc, "Filter"), "S3Key"), "Rules").Content {
			if get(r, "Name").Value == "prefix" && get(r, "Value").Value == recognition.UploadPrefix {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("MediaBucket does not notify %s of %s uploads", queue, recognition.UploadPrefix)
	}
}

// TestTemplateRoutesAreDocumented checks every HTTP API route against
// infra/openapi.yaml, which the HTTP tests validate responses with.
func TestTemplateRoutesAreDocumented(t *testing.T) {
	tpl := loadTemplate(t)
	paths := openAPIPaths(t)
	for id := range tpl.resources {
		for name, ev := range mapping(tpl.props(id), "Events") {
			if get(ev, "Type").Value != "HttpApi" {
				continue
			}
			p := get(ev, "Properties")
			if get(p, "Path") == nil && get(p, "Method") == nil {
				continue // the $default route: TestUnroutedRequestsAnswerLikeTheDevserver
			}
			method, path := strings.ToLower(get(p, "Method").Value), get(p, "Path").Value
			// API Gateway refuses route keys ending in "/" (and SAM then
			// silently creates no route); the route /x serves /x/ too.
			if strings.HasSuffix(path, "/") {
				t.Errorf("%s.%s: route key %s ends in /", id, name, path)
				continue
			}
			// The document names the contract's paths, most of which end
			// in "/" (the route /x serves them).
			if method == "any" {
				if len(documentedMethods(paths, path)) == 0 {
					t.Errorf("%s.%s: ANY %s(/) has no operation in infra/openapi.yaml", id, name, path)
				}
				continue
			}
			if get(paths[path+"/"], method) == nil && get(paths[path], method) == nil {
				t.Errorf("%s.%s: %s %s(/) is not in infra/openapi.yaml", id, name, strings.ToUpper(method), path)
			}
		}
	}
}
