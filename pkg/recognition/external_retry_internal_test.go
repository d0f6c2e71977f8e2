package recognition

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"musiccatalog/pkg/audio/audiotest"
	"musiccatalog/pkg/audio/fingerprint"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/outside"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/twintest"
)

// flakyRecognizer names one song for its first answerFirst requests and
// is then down (transient errors) until up is set.
type flakyRecognizer struct {
	answerFirst int64
	calls, sent atomic.Int64 // requests, and those answered
	up          atomic.Bool
}

func (f *flakyRecognizer) Identify(context.Context, []byte) (*outside.Match, error) {
	if n := f.calls.Add(1); n > f.answerFirst && !f.up.Load() {
		return nil, outside.ErrTransient
	}
	f.sent.Add(1)
	return &outside.Match{Title: "Song", Artist: "Band", ISRC: "GBOUT0000009"}, nil
}

// TestRetriedExternalStepSendsOnlyTheUnansweredSamples: the outside
// service answers two samples of a job, then goes down; the task fails
// and Step Functions runs it again once the service is back. The retry
// sends only the windows still unanswered (each request is billed): the
// answers were kept on the job as they came. Before, it sent every
// sample again.
func TestRetriedExternalStepSendsOnlyTheUnansweredSamples(t *testing.T) {
	defer func(b time.Duration) { outsideBackoff = b }(outsideBackoff)
	outsideBackoff = time.Millisecond
	twintest.Run(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		rec := &flakyRecognizer{answerFirst: 2}
		s := testService(t, Config{Store: st, Outside: rec, DefaultDailyCap: 5})
		src := SourceRef{Key: UploadPrefix + "c1/u/long.mp4", ETag: "e1", Size: 10, Filename: "long.mp4"}
		const seconds = 180 // six windows of 30 s
		if err := s.putWAV(ctx, workDir(src.Key, src.ETag)+audioFile, audiotest.Tone(11025, seconds, 440, 0.3)); err != nil {
			t.Fatal(err)
		}
		job, err := s.Submit(ctx, &identity.Principal{Client: identity.Client{ID: "c1", Plan: identity.PlanEnterprise}}, src)
		if err != nil {
			t.Fatal(err)
		}
		tl, _ := json.Marshal([]fingerprint.Stretch{{StartMs: 0, EndMs: seconds * 1000}})
		if err := s.updateActive(ctx, job.ID, 0, map[string]any{attrTimeline: tl}); err != nil {
			t.Fatal(err)
		}
		windows := int64(len(sampleWindows(0, seconds*1000, planSamples([]fingerprint.Stretch{{EndMs: seconds * 1000}}, s.outsideSamples)[0])))
		in, _ := json.Marshal(TaskInput{JobID: job.ID})
		if _, err := s.HandleTask(ctx, FnExternal, in); err == nil {
			t.Fatal("External succeeded while the service was down")
		}
		if rec.sent.Load() != 2 {
			t.Fatalf("first run: %d answers, want 2", rec.sent.Load())
		}
		rec.up.Store(true)
		if _, err := s.HandleTask(ctx, FnExternal, in); err != nil {
			t.Fatalf("retry: %v", err)
		}
		if got := rec.sent.Load() - 2; got != windows-2 {
			t.Errorf("the retry sent %d samples; want the %d unanswered of %d", got, windows-2, windows)
		}
		r, err := s.loadJob(ctx, job.ID)
		if err != nil || !r.hasExt || len(r.external) != 1 || r.external[0].Hit == nil ||
			r.external[0].StartMs != 0 || r.external[0].EndMs != seconds*1000 {
			t.Fatalf("stored result %+v %v; want the song over the whole stretch", r.external, err)
		}
		if it, err := st.Get(ctx, store.Jobs, jobKey(job.ID)); err != nil || it.Bytes(attrHeard) != nil {
			t.Errorf("answers kept after the result was stored (%v): the result's write removes them", err)
		}
		if _, err := s.HandleTask(ctx, FnFinish, in); err != nil {
			t.Fatal(err)
		}
		it, err := st.Get(ctx, store.Jobs, jobKey(job.ID))
		if err != nil || it.Str(attrStatus) != StatusCompleted || it.Bytes(attrHeard) != nil {
			t.Errorf("completed job: status %q, kept answers %q (%v); want completed without them", it.Str(attrStatus), it.Bytes(attrHeard), err)
		}
	})
}

// downFirst fails (transiently) its first n requests, then names a song.
type downFirst struct {
	n     int64
	calls atomic.Int64
}

func (d *downFirst) Identify(context.Context, []byte) (*outside.Match, error) {
	if d.calls.Add(1) <= d.n {
		return nil, outside.ErrTransient
	}
	return &outside.Match{Title: "Song", Artist: "Band", ISRC: "GBOUT0000009"}, nil
}

// TestKeptAnswerEndsAFailureRun: an answer kept by an earlier run counts
// as a success for the failed-in-a-row count, as it did when it came:
// two failures, a kept answer and a third failure do not stop the task
// (before, they counted as three in a row and the task failed).
func TestKeptAnswerEndsAFailureRun(t *testing.T) {
	defer func(b time.Duration) { outsideBackoff = b }(outsideBackoff)
	outsideBackoff = time.Millisecond
	ctx := t.Context()
	const seconds = 180
	rec := &downFirst{n: 3 * outsideAttempts} // windows 1, 2 and 4 fail
	s := testService(t, Config{Store: twintest.Bolt(t), Outside: rec, DefaultDailyCap: 5})
	src := SourceRef{Key: UploadPrefix + "c1/u/long.mp4", ETag: "e1", Size: 10, Filename: "long.mp4"}
	if err := s.putWAV(ctx, workDir(src.Key, src.ETag)+audioFile, audiotest.Tone(11025, seconds, 440, 0.3)); err != nil {
		t.Fatal(err)
	}
	tl := []fingerprint.Stretch{{StartMs: 0, EndMs: seconds * 1000}}
	windows := sampleWindows(0, seconds*1000, planSamples(tl, s.outsideSamples)[0])
	if len(windows) < 6 {
		t.Fatalf("%d windows; the test needs 6", len(windows))
	}
	kept := sample{FromMs: windows[2][0], ToMs: windows[2][1], Hit: &outsideHit{Title: "Song", Artist: "Band"}}
	r := &jobRecord{Job: Job{ID: "j", Source: src}, timeline: tl, heard: []sample{kept}}
	// limit 0: new answers are used, not stored (there is no job item).
	if _, err := s.identifyOutside(ctx, r, &heardSamples{list: r.heard}); err != nil {
		t.Fatalf("two failures, a kept answer, a failure: %v; want the task to go on", err)
	}
}

// TestHeardAnswersFitTheItem: the answers kept on a job are bounded by
// what the item's other attributes (the timeline) leave of DynamoDB's
// 400 KB, less a margin, and by maxHeardBytes.
func TestHeardAnswersFitTheItem(t *testing.T) {
	small := store.Item{Key: jobKey("j"), Attrs: map[string]any{attrStatus: StatusQueued}}
	big := store.Item{Key: jobKey("j"), Attrs: map[string]any{attrStatus: StatusQueued,
		attrTimeline: []byte("[" + strings.Repeat(" ", 370<<10) + "]"), attrHeard: []byte("[]")}}
	for name, tc := range map[string]struct {
		it   store.Item
		want int
	}{"small timeline": {small, maxHeardBytes}, "large timeline": {big, store.MaxItemSize - heardMargin - store.ItemSize(big) + len(attrHeard) + len("[]")}} {
		r, err := recordFromItem("j", tc.it)
		if err != nil {
			t.Fatal(err)
		}
		if got := heardLimit(r); got != tc.want || got > maxHeardBytes {
			t.Errorf("%s: limit %d, want %d", name, got, tc.want)
		}
		full := tc.it
		full.Attrs = maps.Clone(tc.it.Attrs)
		full.Attrs[attrHeard] = make([]byte, heardLimit(r))
		full.Attrs[attrUpdated] = store.UnixNano(time.Now())
		if n := store.ItemSize(full); n > store.MaxItemSize {
			t.Errorf("%s: answers at the limit make an item of %d bytes", name, n)
		}
	}
}
