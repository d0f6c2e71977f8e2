package app

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	yaml "github.com/oasdiff/yaml3"

	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/downloads"
	"musiccatalog/pkg/recognition"
	"musiccatalog/pkg/soundtrack/render"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/workflow"
)

// Permissions proven, not guessed: every sample event runs through its
// function's handler (TestLambdaSampleEvents) with the store, blob store
// and workflow starter decorated to record the IAM (resource, action) pair
// each call needs. The function's statements in template.yaml must grant
// every recorded pair; grants nothing recorded are listed (a sample event
// may not reach every path, so they are reported, not failed).

// access is one IAM action on one resource, named symbolically:
// table:T, index:T, objects (the media bucket's objects), bucket,
// statemachine:M.
type access struct{ resource, action string }

func (a access) String() string { return a.action + " on " + a.resource }

// recorder collects the accesses made under a context that carries it.
type recorder struct {
	mu   sync.Mutex
	seen map[access]bool
}

type recorderKey struct{}

// eventRecorder is the recorder of the function whose events run now;
// eventContext hands it to the handler, so set-up work is not counted.
var eventRecorder *recorder

// eventContext is the context a sample event's handler runs with.
func eventContext() context.Context {
	if eventRecorder == nil {
		return context.Background()
	}
	return context.WithValue(context.Background(), recorderKey{}, eventRecorder)
}

func record(ctx context.Context, accesses ...access) {
	r, _ := ctx.Value(recorderKey{}).(*recorder)
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range accesses {
		r.seen[a] = true
	}
}

func init() {
	instrumentPorts = func(st store.Store, bs blob.Store) (store.Store, blob.Store) {
		st = recordingStore{st}
		if bs != nil {
			bs = recordingBlob{bs}
		}
		return st, bs
	}
	instrumentWorkflow = func(wf workflow.Starter) workflow.Starter { return recordingWorkflow{wf} }
}

// recordingStore records DynamoDB actions (a transaction needs the action
// of each of its items).
type recordingStore struct{ store.Store }

var _ store.Store = recordingStore{}

func table(t store.Table) string { return "table:" + string(t) }

func (s recordingStore) Get(ctx context.Context, t store.Table, k store.Key) (store.Item, error) {
	record(ctx, access{table(t), "dynamodb:GetItem"})
	return s.Store.Get(ctx, t, k)
}

func (s recordingStore) Put(ctx context.Context, t store.Table, it store.Item, c store.Condition) error {
	record(ctx, access{table(t), "dynamodb:PutItem"})
	return s.Store.Put(ctx, t, it, c)
}

func (s recordingStore) Update(ctx context.Context, t store.Table, k store.Key, u store.Update, c store.Condition) (store.Item, error) {
	record(ctx, access{table(t), "dynamodb:UpdateItem"})
	return s.Store.Update(ctx, t, k, u, c)
}

func (s recordingStore) Delete(ctx context.Context, t store.Table, k store.Key, c store.Condition) error {
	record(ctx, access{table(t), "dynamodb:DeleteItem"})
	return s.Store.Delete(ctx, t, k, c)
}

func (s recordingStore) Query(ctx context.Context, t store.Table, q store.Query) (store.Page, error) {
	res := table(t)
	if q.Index != "" {
		res = "index:" + string(t)
	}
	record(ctx, access{res, "dynamodb:Query"})
	return s.Store.Query(ctx, t, q)
}

func (s recordingStore) Transact(ctx context.Context, ops []store.TxOp) error {
	for _, op := range ops {
		action := map[store.TxKind]string{store.TxKindPut: "dynamodb:PutItem", store.TxKindUpdate: "dynamodb:UpdateItem",
			store.TxKindDelete: "dynamodb:DeleteItem", store.TxKindCheck: "dynamodb:ConditionCheckItem"}[op.Kind]
		record(ctx, access{table(op.Table), action})
	}
	return s.Store.Transact(ctx, ops)
}

// recordingBlob records S3 actions. Reading a key that may be absent also
// needs s3:ListBucket: without it S3 answers 403, not 404, and the code's
// ErrNotFound paths would fail instead. A presigned URL carries the
// signer's permission for its method.
type recordingBlob struct{ blob.Store }

var _ blob.Store = recordingBlob{}

var (
	objGet  = access{"objects", "s3:GetObject"}
	objPut  = access{"objects", "s3:PutObject"}
	objDel  = access{"objects", "s3:DeleteObject"}
	listing = access{"bucket", "s3:ListBucket"}
)

// scopedPrefixes are the key prefixes some grants name alone: ZIP
// archives ("objects:builds/zip/") and recognition uploads, which
// api-recognition may delete.
var scopedPrefixes = []string{downloads.ZIPPrefix, recognition.UploadPrefix}

// writes names the objects a write or delete of key needs: a key under a
// scoped prefix is "objects:PREFIX", which a grant on every object also
// covers.
func writes(key, action string) access {
	for _, p := range scopedPrefixes {
		if strings.HasPrefix(key, p) {
			return access{"objects:" + p, action}
		}
	}
	return access{"objects", action}
}

func (b recordingBlob) Put(ctx context.Context, key string, r io.Reader, size int64, ct string) error {
	record(ctx, writes(key, objPut.action))
	return b.Store.Put(ctx, key, r, size, ct)
}

func (b recordingBlob) Get(ctx context.Context, key string) (io.ReadCloser, blob.Attrs, error) {
	record(ctx, objGet, listing)
	return b.Store.Get(ctx, key)
}

func (b recordingBlob) GetRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	record(ctx, objGet, listing)
	return b.Store.GetRange(ctx, key, offset, length)
}

func (b recordingBlob) Head(ctx context.Context, key string) (blob.Attrs, error) {
	record(ctx, objGet, listing)
	return b.Store.Head(ctx, key)
}

func (b recordingBlob) Delete(ctx context.Context, key string) error {
	record(ctx, writes(key, objDel.action))
	return b.Store.Delete(ctx, key)
}

func (b recordingBlob) List(ctx context.Context, prefix string) ([]blob.Attrs, error) {
	record(ctx, listing)
	return b.Store.List(ctx, prefix)
}

func (b recordingBlob) PresignGet(ctx context.Context, key string, ttl time.Duration, filename string) (string, error) {
	record(ctx, objGet)
	return b.Store.PresignGet(ctx, key, ttl, filename)
}

func (b recordingBlob) PresignPut(ctx context.Context, key, ct string, n int64, ttl time.Duration) (string, error) {
	record(ctx, objPut)
	return b.Store.PresignPut(ctx, key, ct, n, ttl)
}

// Create records a streamed upload (blob.NewWriter): a multipart upload
// needs s3:PutObject, and s3:AbortMultipartUpload to end a failed one.
func (b recordingBlob) Create(ctx context.Context, key, ct string) (blob.Writer, error) {
	record(ctx, writes(key, objPut.action), writes(key, "s3:AbortMultipartUpload"))
	return blob.NewWriter(ctx, b.Store, key, ct)
}

// recordingWorkflow records Step Functions starts.
type recordingWorkflow struct{ workflow.Starter }

func (w recordingWorkflow) Start(ctx context.Context, machine, name string, input any) error {
	record(ctx, access{"statemachine:" + machine, "states:StartExecution"})
	return w.Starter.Start(ctx, machine, name, input)
}

// grants are the (resource, action) pairs a function's policies allow,
// with the resources named as the recorder names them.
type grants map[access]bool

// functionGrants reads the Allow statements of function id's Policies
// (both branches of an !If count: the condition decides at deploy time).
func (tpl *cfnTemplate) functionGrants(t *testing.T, id string) grants {
	t.Helper()
	g := grants{}
	for _, p := range get(tpl.props(id), "Policies").Content {
		for _, doc := range ifBranches(p) {
			stmts := get(doc, "Statement")
			if stmts == nil {
				t.Errorf("%s: policy %s is not an inline statement list; write the exact actions", id, firstKey(doc))
				continue
			}
			for _, st := range stmts.Content {
				if v := get(st, "Effect"); v == nil || v.Value != "Allow" {
					continue
				}
				for _, r := range seq(get(st, "Resource")) {
					res := tpl.symbolicResource(r)
					for _, a := range seq(get(st, "Action")) {
						g[access{res, a.Value}] = true
					}
				}
			}
		}
	}
	return g
}

// ifBranches returns the documents an !If may yield (AWS::NoValue dropped).
func ifBranches(n *yaml.Node) []*yaml.Node {
	if n.Tag != "!If" {
		return []*yaml.Node{n}
	}
	var out []*yaml.Node
	for _, b := range n.Content[1:] {
		if b.Tag == "!Ref" && b.Value == "AWS::NoValue" {
			continue
		}
		out = append(out, ifBranches(b)...)
	}
	return out
}

func seq(n *yaml.Node) []*yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.SequenceNode && n.Tag != "!If" && n.Tag != "!GetAtt" {
		return n.Content
	}
	return []*yaml.Node{n}
}

func firstKey(n *yaml.Node) string {
	if n.Kind == yaml.MappingNode && len(n.Content) > 0 {
		return n.Content[0].Value
	}
	return n.Value
}

// symbolicResource names a statement's resource as the recorder does; a
// resource it does not know keeps its template text.
func (tpl *cfnTemplate) symbolicResource(n *yaml.Node) string {
	tables := tpl.tableIDs()
	bucket := "arn:${AWS::Partition}:s3:::" + get(tpl.props("MediaBucket"), "BucketName").Value
	switch {
	case n.Tag == "!GetAtt" && strings.HasSuffix(n.Value, ".Arn") && tables[strings.TrimSuffix(n.Value, ".Arn")] != "":
		return "table:" + tables[strings.TrimSuffix(n.Value, ".Arn")]
	case n.Tag == "!Sub" && strings.HasSuffix(n.Value, ".Arn}/index/*"):
		id := strings.TrimSuffix(strings.TrimPrefix(n.Value, "${"), ".Arn}/index/*")
		if tables[id] != "" {
			return "index:" + tables[id]
		}
	case n.Tag == "!Sub" && n.Value == bucket+"/*":
		return "objects"
	case n.Tag == "!Sub" && strings.HasPrefix(n.Value, bucket+"/") && strings.HasSuffix(n.Value, "/*") &&
		slices.Contains(scopedPrefixes, strings.TrimSuffix(strings.TrimPrefix(n.Value, bucket+"/"), "*")):
		return "objects:" + strings.TrimSuffix(strings.TrimPrefix(n.Value, bucket+"/"), "*")
	case n.Tag == "!Sub" && n.Value == bucket:
		return "bucket"
	case n.Tag == "!Ref" && n.Value == "RecognitionStateMachine":
		return "statemachine:" + recognition.Machine
	case n.Tag == "!Ref" && n.Value == "ZipStateMachine":
		return "statemachine:" + downloads.Machine
	case n.Tag == "!Ref" && n.Value == "RenderStateMachine":
		return "statemachine:" + render.Machine
	case n.Tag == "!GetAtt" && n.Value == "MailQueue.Arn":
		return mailQueueSend.resource
	case n.Tag == "!Sub" && n.Value == "arn:${AWS::Partition}:ses:${AWS::Region}:${AWS::AccountId}:identity/*":
		return sesSend.resource
	}
	return strings.TrimSpace(n.Tag + " " + n.Value)
}

// tableIDs maps table logical ids to store tables through the TABLE_*
// variables of Globals (TABLE_ACCOUNTS: !Ref AccountsTable → Accounts).
func (tpl *cfnTemplate) tableIDs() map[string]string {
	out := map[string]string{}
	env := mapping(tpl.root, "Globals", "Function", "Environment", "Variables")
	for _, tb := range store.AllTables {
		if v := env["TABLE_"+strings.ToUpper(string(tb))]; v != nil && v.Tag == "!Ref" {
			out[v.Value] = string(tb)
		}
	}
	return out
}

// initGrants are the grants a function needs at init, which no sample
// event exercises: they are checked by TestTemplatePermissionsShape.
var initGrants = map[string][]access{
	recognition.FnExternal: {{"!Sub arn:${AWS::Partition}:ssm:${AWS::Region}:${AWS::AccountId}:parameter${AcrCloudCredentialsParameter}", "ssm:GetParameter"}},
}

// checkPermissions compares what fn's sample events did with its grants.
func checkPermissions(t *testing.T, fn string, rec *recorder) {
	tpl := loadTemplate(t)
	id := functionIDs(t)[fn]
	if tpl.resources[id] == nil {
		t.Fatalf("functions/%s (%s) is not in template.yaml", fn, id)
	}
	g := tpl.functionGrants(t, id)
	used := map[access]bool{}
	for a := range rec.seen {
		used[a] = true
		if !g[a] && !(strings.HasPrefix(a.resource, "objects:") && g[access{"objects", a.action}]) {
			t.Errorf("%s (%s) does %s, which its policies do not grant", fn, id, a)
		}
	}
	for _, a := range initGrants[fn] {
		used[a] = true
	}
	var uses []string
	for a := range rec.seen {
		uses = append(uses, a.String())
	}
	slices.Sort(uses)
	t.Logf("%s uses: %s", id, strings.Join(uses, "; "))
	var unused []string
	for a := range g {
		if !used[a] {
			unused = append(unused, a.String())
		}
	}
	slices.Sort(unused)
	if len(unused) > 0 {
		t.Logf("%s: granted but not used by its sample events: %s", id, strings.Join(unused, "; "))
	}
	if len(rec.seen) == 0 {
		t.Logf("%s: its sample events made no store, blob or workflow call", id)
	}
}

// TestTemplatePermissionsShape checks what the event runs cannot: no
// resource "*" outside logs and X-Ray, and the init-time grants exist on
// exactly their functions.
func TestTemplatePermissionsShape(t *testing.T) {
	tpl := loadTemplate(t)
	ids := functionIDs(t)
	for _, id := range slices.Sorted(maps.Keys(tpl.resources)) {
		for _, p := range seq(get(tpl.props(id), "Policies")) {
			for _, doc := range ifBranches(p) {
				for _, st := range seq(get(doc, "Statement")) {
					for _, r := range seq(get(st, "Resource")) {
						if r.Value != "*" {
							continue
						}
						for _, a := range seq(get(st, "Action")) {
							if !strings.HasPrefix(a.Value, "logs:") && !strings.HasPrefix(a.Value, "xray:") {
								t.Errorf("%s grants %s on *", id, a.Value)
							}
						}
					}
				}
			}
		}
	}
	for fn, id := range ids {
		g := tpl.functionGrants(t, id)
		for _, a := range initGrants[fn] {
			if !g[a] {
				t.Errorf("%s lacks its init-time grant %s", id, a)
			}
		}
		for a := range g {
			if strings.HasPrefix(a.action, "ssm:") && !slices.Contains(initGrants[fn], a) {
				t.Errorf("%s may read parameters (%s) it does not need", id, a)
			}
		}
	}
	if len(ids) == 0 {
		t.Fatal(fmt.Sprint("no functions"))
	}
}
