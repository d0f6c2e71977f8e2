package recognition

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/blob/fileblob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/outside"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/twintest"
)

// countingRecognizer knows no music and counts the (billed) requests.
type countingRecognizer struct{ calls atomic.Int64 }

func (c *countingRecognizer) Identify(context.Context, []byte) (*outside.Match, error) {
	c.calls.Add(1)
	return nil, nil
}

type noStarts struct{}

func (noStarts) Start(context.Context, string, string, any) error { return nil }

type oneCatalog struct{ c *catalog.Catalog }

func (o oneCatalog) Current(context.Context) (*catalog.Catalog, error) { return o.c, nil }

// TestRetriedExternalStepCallsTheOutsideServiceOnce: Step Functions runs
// a task again when its Lambda timed out or its answer was lost after it
// stored its result (and the devserver's Recover restarts the whole
// pipeline). The outside service bills each request, so a run that finds
// the step's result stored must not ask it again, and must keep the
// stored result that Finish reads.
func TestRetriedExternalStepCallsTheOutsideServiceOnce(t *testing.T) {
	twintest.Run(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		bs, err := fileblob.New(t.TempDir(), "http://127.0.0.1:1", []byte("0123456789abcdef0123"))
		if err != nil {
			t.Fatal(err)
		}
		cat, err := catalog.New(catalog.Contents{})
		if err != nil {
			t.Fatal(err)
		}
		rec := &countingRecognizer{}
		s, err := New(Config{Store: st, Blob: bs, Catalog: oneCatalog{cat}, Workflow: noStarts{}, Outside: rec, DefaultDailyCap: 5})
		if err != nil {
			t.Fatal(err)
		}
		src := SourceRef{Key: UploadPrefix + "c1/u/clip.mp4", ETag: "e1", Size: 10, Filename: "clip.mp4"}
		// The prepared audio Extract would have stored: 20 s of music.
		if err := s.putWAV(ctx, workDir(src.Key, src.ETag)+audioFile, audiotest.Tone(11025, 20, 440, 0.3)); err != nil {
			t.Fatal(err)
		}
		job, err := s.Submit(ctx, &identity.Principal{Client: identity.Client{ID: "c1", Plan: identity.PlanEnterprise}}, src)
		if err != nil {
			t.Fatal(err)
		}
		// Match's result: the whole clip is music the catalog did not explain.
		tl, _ := json.Marshal([]fingerprint.Stretch{{StartMs: 0, EndMs: 20_000}})
		if err := s.updateActive(ctx, job.ID, map[string]any{attrTimeline: tl}); err != nil {
			t.Fatal(err)
		}
		in, _ := json.Marshal(TaskInput{JobID: job.ID})
		if _, err := s.HandleTask(ctx, FnExternal, in); err != nil {
			t.Fatal(err)
		}
		first := rec.calls.Load()
		if first == 0 {
			t.Fatal("the first run asked the outside service nothing; the test proves nothing")
		}
		stored, err := st.Get(ctx, store.Jobs, jobKey(job.ID))
		if err != nil {
			t.Fatal(err)
		}
		for _, fn := range []string{FnExternal, FnMatch, FnExternal} { // the retries, and a resumed pipeline
			if _, err := s.HandleTask(ctx, fn, in); err != nil {
				t.Fatalf("%s again: %v", fn, err)
			}
		}
		if n := rec.calls.Load(); n != first {
			t.Errorf("retried External sent %d more billed requests (first run %d)", n-first, first)
		}
		after, err := st.Get(ctx, store.Jobs, jobKey(job.ID))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range []string{attrExternal, attrTimeline} {
			if string(after.Bytes(a)) != string(stored.Bytes(a)) {
				t.Errorf("stored %s changed: %s -> %s", a, stored.Bytes(a), after.Bytes(a))
			}
		}
		// The pipeline still completes from the stored work.
		if _, err := s.HandleTask(ctx, FnFinish, in); err != nil {
			t.Fatal(err)
		}
		if r, err := s.loadJob(ctx, job.ID); err != nil || r.Status != StatusCompleted {
			t.Fatalf("after Finish: %+v %v", r, err)
		}
	})
}
