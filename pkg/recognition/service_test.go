package recognition_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"musiccatalog/pkg/blob/fileblob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/quota"
	"musiccatalog/pkg/recognition"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/boltstore"
	"musiccatalog/pkg/workflow"
)

// starter records workflow starts instead of running anything.
type starter struct {
	mu     sync.Mutex
	starts []string
	err    error
}

func (s *starter) Start(_ context.Context, machine, name string, input any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	b, _ := json.Marshal(input)
	s.starts = append(s.starts, machine+" "+name+" "+string(b))
	return nil
}

type staticCatalog struct{ c *catalog.Catalog }

func (s staticCatalog) Current(context.Context) (*catalog.Catalog, error) { return s.c, nil }

// fixedIDs hands out the same id every time.
type fixedIDs string

func (f fixedIDs) UUID() string { return string(f) }

type env struct {
	svc   *recognition.Service
	st    store.Store
	clock *clock.Manual
	wf    *starter
	cfg   recognition.Config
}

func newEnv(t testing.TB, tweak func(*recognition.Config)) *env {
	t.Helper()
	c := clock.NewManual(time.Date(2030, 3, 10, 9, 0, 0, 0, time.UTC))
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "s.db"), boltstore.WithClock(c.Now), boltstore.WithSweepInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	bs, err := fileblob.New(t.TempDir(), "http://127.0.0.1:1", []byte("0123456789abcdef0123"))
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.New(catalog.Contents{})
	if err != nil {
		t.Fatal(err)
	}
	wf := &starter{}
	cfg := recognition.Config{Store: st, Blob: bs, Catalog: staticCatalog{cat}, Workflow: wf, Clock: c, DefaultDailyCap: 5}
	if tweak != nil {
		tweak(&cfg)
	}
	svc, err := recognition.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &env{svc: svc, st: st, clock: c, wf: wf, cfg: cfg}
}

func principal(id string, plan identity.Plan, cap int64) *identity.Principal {
	return &identity.Principal{Client: identity.Client{ID: id, Plan: plan, Quotas: identity.Quotas{RecognitionDailyCap: cap}},
		Scopes: []string{identity.ScopeComplianceCheck}}
}

var src = recognition.SourceRef{Key: "video-recognition/c1/u/clip.mp4", ETag: `"abc"`, Size: 10, Filename: "clip.mp4"}

func TestSubmitCreatesAQueuedJobAndStartsItsWorkflow(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	job, err := e.svc.Submit(ctx, principal("c1", identity.PlanFree, 0), src)
	if err != nil {
		t.Fatal(err)
	}
	if !ids.IsUUID(job.ID) || job.Status != recognition.StatusQueued || job.Track != nil || job.Source.ETag != "abc" {
		t.Errorf("job = %+v", job)
	}
	want := fmt.Sprintf(`recognition %s {"job_id":"%s","generation":1}`, job.ID, job.ID)
	if len(e.wf.starts) != 1 || e.wf.starts[0] != want {
		t.Errorf("starts = %v, want %s", e.wf.starts, want)
	}
	got, err := e.svc.Get(ctx, "c1", job.ID)
	if err != nil || got.Status != recognition.StatusQueued || got.Progress != nil || got.Source != job.Source {
		t.Errorf("Get = %+v, %v", got, err)
	}
}

func TestDailyQuotaIsExactUnderConcurrentSubmits(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	p := principal("c1", identity.PlanSubscriber, 10) // the client's own cap beats the default 5
	var mu sync.Mutex
	var ok, exceeded int
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			_, err := e.svc.Submit(ctx, p, src)
			mu.Lock()
			defer mu.Unlock()
			var qe *quota.ExceededError
			switch {
			case err == nil:
				ok++
			case errors.As(err, &qe):
				exceeded++
				u := qe.Usage
				if u.Cap != 10 || u.Used != 10 || u.Window != quota.Daily || u.Scope != "compliance_check" ||
					!u.ResetsAt.Equal(time.Date(2030, 3, 11, 0, 0, 0, 0, time.UTC)) {
					t.Errorf("usage = %+v", u)
				}
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	page, err := e.st.Query(ctx, store.Jobs, store.Query{Index: "GSI1", PK: "RECOGNITION#ACTIVE"})
	if err != nil {
		t.Fatal(err)
	}
	if ok != 10 || exceeded != 40 || len(page.Items) != 10 || len(e.wf.starts) != 10 {
		t.Fatalf("ok=%d exceeded=%d jobs=%d starts=%d", ok, exceeded, len(page.Items), len(e.wf.starts))
	}
	// Another client has its own quota; the next day resets this one.
	if _, err := e.svc.Submit(ctx, principal("c2", identity.PlanFree, 0), src); err != nil {
		t.Errorf("other client: %v", err)
	}
	e.clock.Advance(15 * time.Hour)
	if _, err := e.svc.Submit(ctx, p, src); err != nil {
		t.Errorf("next day: %v", err)
	}
}

func TestAFailedJobWriteTakesNoQuota(t *testing.T) {
	e := newEnv(t, func(c *recognition.Config) { c.IDs = fixedIDs("7d3c1a52-8c0e-4f6a-9a57-0c1d2e3f4a5b") })
	ctx := context.Background()
	p := principal("c1", identity.PlanFree, 2)
	if _, err := e.svc.Submit(ctx, p, src); err != nil {
		t.Fatal(err)
	}
	// The same id again: the job put fails its condition, so the quota
	// unit of that transaction is not taken either.
	_, err := e.svc.Submit(ctx, p, src)
	var qe *quota.ExceededError
	if err == nil || errors.As(err, &qe) {
		t.Fatalf("second submit with a taken id: %v", err)
	}
	u, err := quota.New(e.st, e.clock).Peek(ctx, "compliance_check", "c1", quota.Daily, 2)
	if err != nil || u.Used != 1 {
		t.Fatalf("usage = %+v, %v; want 1 used", u, err)
	}
}

func TestAPipelineThatCannotStartFailsTheJobAndReturnsTheUnit(t *testing.T) {
	e := newEnv(t, func(c *recognition.Config) { c.IDs = fixedIDs("7d3c1a52-8c0e-4f6a-9a57-0c1d2e3f4a5b") })
	e.wf.err = errors.New("step functions down")
	ctx := context.Background()
	_, err := e.svc.Submit(ctx, principal("c1", identity.PlanFree, 1), src)
	if !errs.Is(err, errs.Unavailable) {
		t.Fatalf("submit: %v", err)
	}
	job, err := e.svc.Get(ctx, "c1", "7d3c1a52-8c0e-4f6a-9a57-0c1d2e3f4a5b")
	if err != nil || job.Status != recognition.StatusFailed || job.ErrorCode != recognition.CodeStartFailed {
		t.Fatalf("job = %+v, %v", job, err)
	}
	u, _ := quota.New(e.st, e.clock).Peek(ctx, "compliance_check", "c1", quota.Daily, 1)
	if u.Used != 0 {
		t.Errorf("quota used = %d after a failed start", u.Used)
	}
}

func TestGetIsPrivateToTheSubmittingClient(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	job, err := e.svc.Submit(ctx, principal("c1", identity.PlanFree, 0), src)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ client, id string }{
		{"c2", job.ID}, // another client's job
		{"c1", "4f6a9a57-0c1d-4e3f-8a5b-7d3c1a528c0e"}, // unknown
		{"c1", "not-a-uuid"},
		{"c1", ""},
	} {
		if _, err := e.svc.Get(ctx, tc.client, tc.id); !errs.Is(err, errs.NotFound) {
			t.Errorf("Get(%s, %s) = %v, want NotFound", tc.client, tc.id, err)
		}
	}
	// Ids are case-insensitive, as UUIDs are.
	if _, err := e.svc.Get(ctx, "c1", upper(job.ID)); err != nil {
		t.Errorf("upper-case id: %v", err)
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'f' {
			b[i] = c - 32
		}
	}
	return string(b)
}

func TestEndedJobsExpireAboutADayLater(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	job, _ := e.svc.Submit(ctx, principal("c1", identity.PlanFree, 0), src)
	if err := e.svc.Fail(ctx, job.ID, recognition.CodeCorruptMedia, "The file is corrupt."); err != nil {
		t.Fatal(err)
	}
	got, err := e.svc.Get(ctx, "c1", job.ID)
	if err != nil || got.Status != recognition.StatusFailed || got.ErrorCode != "corrupt_media" ||
		got.Detail != "The file is corrupt." || got.Progress != nil || !got.CompletedAt.Equal(e.clock.Now()) {
		t.Fatalf("failed job = %+v, %v", got, err)
	}
	// A second Fail (a retried catch path) changes nothing.
	if err := e.svc.Fail(ctx, job.ID, recognition.CodeInternal, "other"); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.svc.Get(ctx, "c1", job.ID); got.ErrorCode != "corrupt_media" {
		t.Errorf("ended job changed: %+v", got)
	}
	e.clock.Advance(23 * time.Hour)
	if _, err := e.svc.Get(ctx, "c1", job.ID); err != nil {
		t.Errorf("after 23 h: %v", err)
	}
	e.clock.Advance(2 * time.Hour)
	if _, err := e.svc.Get(ctx, "c1", job.ID); !errs.Is(err, errs.NotFound) {
		t.Errorf("after 25 h: %v, want NotFound", err)
	}
}

func TestAJobThatStoppedProgressingFailsWhenRead(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	job, _ := e.svc.Submit(ctx, principal("c1", identity.PlanFree, 0), src)
	e.clock.Advance(recognition.DefaultStaleAfter - time.Minute)
	if got, _ := e.svc.Get(ctx, "c1", job.ID); got.Status != recognition.StatusQueued {
		t.Fatalf("before stale: %+v", got)
	}
	e.clock.Advance(2 * time.Minute)
	got, err := e.svc.Get(ctx, "c1", job.ID)
	if err != nil || got.Status != recognition.StatusFailed || got.ErrorCode != recognition.CodeTimeout {
		t.Fatalf("stale job = %+v, %v", got, err)
	}
	if u, _ := quota.New(e.st, e.clock).Peek(ctx, "compliance_check", "c1", quota.Daily, 5); u.Used != 0 {
		t.Errorf("quota used = %d after the job timed out", u.Used)
	}
}

func TestRecoverRestartsThenFailsInterruptedJobs(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	job, _ := e.svc.Submit(ctx, principal("c1", identity.PlanFree, 0), src)
	done, _ := e.svc.Submit(ctx, principal("c1", identity.PlanFree, 0), src)
	e.svc.Fail(ctx, done.ID, recognition.CodeInternal, "x")
	e.wf.starts = nil
	for i := 1; i <= recognition.MaxRecoveries; i++ {
		e.clock.Advance(recognition.DefaultStaleAfter - time.Minute) // recovery refreshes the job's clock
		if err := e.svc.Recover(ctx); err != nil {
			t.Fatal(err)
		}
		if len(e.wf.starts) != i || e.wf.starts[i-1][len("recognition "):][:36] != job.ID {
			t.Fatalf("recovery %d: starts = %v", i, e.wf.starts)
		}
		if got, _ := e.svc.Get(ctx, "c1", job.ID); got.Status != recognition.StatusQueued {
			t.Fatalf("recovery %d: job = %+v", i, got)
		}
	}
	if err := e.svc.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	got, _ := e.svc.Get(ctx, "c1", job.ID)
	if got.Status != recognition.StatusFailed || got.ErrorCode != recognition.CodeInterrupted || len(e.wf.starts) != recognition.MaxRecoveries {
		t.Fatalf("after too many recoveries: %+v, starts %d", got, len(e.wf.starts))
	}
}

func TestCatchPathRecordsTheErrorCode(t *testing.T) {
	cases := []struct {
		caught          string
		code, detailHas string
		used            int64 // the input's fault keeps the unit; ours gives it back
	}{
		{`{"Error":"JobError","Cause":"{\"errorMessage\":\"corrupt_media: The file is corrupt or not a supported audio or video format.\",\"errorType\":\"JobError\"}"}`,
			"corrupt_media", "The file is corrupt", 1},
		{`{"Error":"JobError","Cause":"{\"errorMessage\":\"too_long: The video's audio is longer than 60 minutes.\",\"errorType\":\"JobError\"}"}`,
			"too_long", "longer than 60 minutes", 1},
		{`{"Error":"JobError","Cause":"{\"errorMessage\":\"source_missing: The uploaded video is no longer available; upload it again.\",\"errorType\":\"JobError\"}"}`,
			"source_missing", "no longer available", 0},
		{`{"Error":"States.Timeout","Cause":"Task timed out."}`, "timeout", "took too long", 0},
		{`{"Error":"TransientError","Cause":"{\"errorMessage\":\"dial tcp: secret internals\"}"}`, "internal_error", "could not be completed", 0},
		{`null`, "internal_error", "could not be completed", 0},
	}
	for _, tc := range cases {
		e := newEnv(t, nil)
		ctx := context.Background()
		job, _ := e.svc.Submit(ctx, principal("c1", identity.PlanFree, 0), src)
		in := fmt.Sprintf(`{"job_id":%q,"failed":true,"error":%s}`, job.ID, tc.caught)
		if _, err := e.svc.HandleTask(ctx, recognition.FnFinish, json.RawMessage(in)); err != nil {
			t.Fatal(err)
		}
		got, _ := e.svc.Get(ctx, "c1", job.ID)
		if got.Status != recognition.StatusFailed || got.ErrorCode != tc.code || !strings.Contains(got.Detail, tc.detailHas) {
			t.Errorf("%s: job = %+v", tc.caught, got)
		}
		// A job failed by the service costs no quota, one failed by its
		// input does; a repeated catch refunds nothing more.
		if _, err := e.svc.HandleTask(ctx, recognition.FnFinish, json.RawMessage(in)); err != nil {
			t.Fatal(err)
		}
		if u, _ := quota.New(e.st, e.clock).Peek(ctx, "compliance_check", "c1", quota.Daily, 5); u.Used != tc.used {
			t.Errorf("%s: quota used = %d after the job failed, want %d", tc.code, u.Used, tc.used)
		}
	}
}

func TestTaskErrorsAreNamedForTheWorkflow(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	job, _ := e.svc.Submit(ctx, principal("c1", identity.PlanFree, 0), src)
	// The upload does not exist: the input's fault, not retried.
	_, err := e.svc.HandleTask(ctx, recognition.FnExtract, json.RawMessage(`{"job_id":"`+job.ID+`"}`))
	var je *recognition.JobError
	if !errors.As(err, &je) || je.Code != recognition.CodeSourceMissing || workflow.ErrorName(err) != "JobError" {
		t.Fatalf("extract of a missing upload: %v (%s)", err, workflow.ErrorName(err))
	}
	if got, _ := e.svc.Get(ctx, "c1", job.ID); got.Status != recognition.StatusProcessing || *got.Progress != recognition.ProgressExtracting {
		t.Errorf("job = %+v", got)
	}
	// Finish before Match is a bug or a race: retried.
	_, err = e.svc.HandleTask(ctx, recognition.FnFinish, json.RawMessage(`{"job_id":"`+job.ID+`"}`))
	if workflow.ErrorName(err) != "TransientError" {
		t.Errorf("finish before match: %v (%s)", err, workflow.ErrorName(err))
	}
	// A task for a job that ended does nothing.
	e.svc.Fail(ctx, job.ID, recognition.CodeInternal, "x")
	for _, fn := range recognition.TaskFunctions {
		if _, err := e.svc.HandleTask(ctx, fn, json.RawMessage(`{"job_id":"`+job.ID+`"}`)); err != nil {
			t.Errorf("%s on an ended job: %v", fn, err)
		}
	}
}
