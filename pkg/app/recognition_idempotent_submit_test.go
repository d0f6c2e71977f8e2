package app

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"musiccatalog/pkg/httpapi/apitest"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/quota"
	"musiccatalog/pkg/recognition"
	"musiccatalog/pkg/store"
)

// lostSubmitAnswer commits the next recognition submit's transaction and
// then fails it, as a timeout after the commit does.
type lostSubmitAnswer struct {
	store.Store
	armed atomic.Bool
}

func (l *lostSubmitAnswer) Transact(ctx context.Context, ops []store.TxOp) error {
	submit := false
	for _, op := range ops {
		submit = submit || op.Kind == store.TxKindPut && strings.HasPrefix(op.Item.PK, "RECOGNITION#")
	}
	if !submit || !l.armed.CompareAndSwap(true, false) {
		return l.Store.Transact(ctx, ops)
	}
	if err := l.Store.Transact(ctx, ops); err != nil {
		return err
	}
	return errors.New("operation error DynamoDB: TransactWriteItems: context deadline exceeded")
}

// quietStarts starts nothing: the jobs stay queued, which is all the
// test reads.
type quietStarts struct{ n atomic.Int32 }

func (q *quietStarts) Start(context.Context, string, string, any) error { q.n.Add(1); return nil }

// TestRetriedSubmitWithIdempotencyKeyFindsTheFirstJob: a multipart submit
// whose job was written but whose answer failed (500: the error came after
// the commit) is retried with the same Idempotency-Key; the retry answers
// 201 with that job, takes no second quota unit, and deletes the file it
// uploaded itself. Before, the 500 released the key and the retry created
// a second job and took a second unit. A new key still makes a new job.
func TestRetriedSubmitWithIdempotencyKeyFindsTheFirstJob(t *testing.T) {
	d, _ := newTestDeps(t)
	st := &lostSubmitAnswer{Store: d.Store}
	wf := &quietStarts{}
	svc, err := recognition.New(recognition.Config{Store: st, Blob: d.Blob, Catalog: d.Catalog, Workflow: wf, Clock: d.Clock,
		DefaultDailyCap: 10})
	if err != nil {
		t.Fatal(err)
	}
	d.Recognition = svc
	c := apitest.New(t, d.LocalHandler())
	cl, key, err := d.Identity.CreateClient(context.Background(), identity.NewClient{Name: "Q", Plan: identity.PlanCommercial,
		Scopes: []string{identity.ScopeComplianceCheck}, Quotas: identity.Quotas{RecognitionDailyCap: 10}})
	if err != nil {
		t.Fatal(err)
	}
	c.Token = key
	submit := func(idemKey string) *apitest.Response {
		t.Helper()
		ct, body := multipartFile(t, "clip.mp4", []byte("the same video bytes"), nil)
		return c.Do(apitest.Request{Method: "POST", Path: recognitionPath, Body: body,
			Header: map[string]string{"Content-Type": ct, "Idempotency-Key": idemKey}})
	}
	used := func() int64 {
		t.Helper()
		u, err := quota.New(d.Store, d.Clock).Peek(context.Background(), recognition.QuotaScope, cl.ID, quota.Daily, 10)
		if err != nil {
			t.Fatal(err)
		}
		return u.Used
	}
	uploads := func() int {
		t.Helper()
		objs, err := d.Blob.List(context.Background(), "video-recognition/")
		if err != nil {
			t.Fatal(err)
		}
		return len(objs)
	}
	st.armed.Store(true)
	if r := submit("scan-1"); r.Status != 500 {
		t.Fatalf("submit whose answer failed: %d %s", r.Status, r.Body)
	}
	r := submit("scan-1")
	if r.Status != 201 {
		t.Fatalf("retry: %d %s", r.Status, r.Body)
	}
	m := r.Map(t)
	if len(m) != 3 || m["status"] != "queued" || m["track"] != nil || m["job_id"] == nil {
		t.Errorf("retry answered %s; want the submit shape {job_id, status: queued, track: null}", r.Body)
	}
	if n := used(); n != 1 {
		t.Errorf("%d quota units taken; want 1", n)
	}
	if n := uploads(); n != 1 {
		t.Errorf("%d uploads kept; want the first job's one", n)
	}
	if n := wf.n.Load(); n != 1 {
		t.Errorf("%d pipelines started; want 1", n)
	}
	job, err := svc.Get(context.Background(), cl.ID, m["job_id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if objs, _ := d.Blob.List(context.Background(), "video-recognition/"); len(objs) != 1 || objs[0].Key != job.Source.Key {
		t.Errorf("the upload kept is not the job's %s: %v", job.Source.Key, objs)
	}
	if again := submit("scan-1"); again.Status != 201 || again.Header.Get("Idempotent-Replayed") != "true" || string(again.Body) != string(r.Body) {
		t.Errorf("a third send: %d %s %v; want the retry's answer replayed", again.Status, again.Body, again.Header)
	}
	if other := submit("scan-2"); other.Status != 201 || other.Map(t)["job_id"] == m["job_id"] || used() != 2 || uploads() != 2 {
		t.Errorf("a new key: %d %s, %d units, %d uploads; want a second job", other.Status, other.Body, used(), uploads())
	}
}
