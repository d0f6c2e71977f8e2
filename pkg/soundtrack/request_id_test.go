package soundtrack_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"musiccatalog/pkg/blob/fileblob"
	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/ids"
	"musiccatalog/pkg/soundtrack"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/twintest"
)

// fixedAnalyzer answers every file with the same analysis, counted.
type fixedAnalyzer struct{ calls atomic.Int32 }

func (*fixedAnalyzer) Version() string { return "fixed" }
func (f *fixedAnalyzer) Analyze(context.Context, string, bool) (soundtrack.Analysis, error) {
	f.calls.Add(1)
	return soundtrack.Analysis{Version: "fixed", Seconds: 12}, nil
}

// TestCreateWithARequestIDRunsOnce: a create run again under the same
// RequestID (a retry whose first run stored the video and lost its
// answer) returns the first video and analyzes and stores nothing; before,
// it stored a second video. Another request, or a create without one,
// stores a new video.
func TestCreateWithARequestIDRunsOnce(t *testing.T) {
	twintest.Run(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		bs, err := fileblob.New(t.TempDir(), "http://127.0.0.1:1", []byte("0123456789abcdef0123"))
		if err != nil {
			t.Fatal(err)
		}
		an := &fixedAnalyzer{}
		clk := clock.NewManual(time.Date(2030, 3, 10, 9, 0, 0, 0, time.UTC))
		svc, err := soundtrack.New(soundtrack.Config{Store: st, Blob: bs, Analyzer: an, Clock: clk, TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		p := &identity.Principal{Client: identity.Client{ID: "c1"}}
		create := func(content, requestID string) soundtrack.Video {
			t.Helper()
			u, err := svc.Spool(strings.NewReader(content), "v.mp4", "video/mp4")
			if err != nil {
				t.Fatal(err)
			}
			defer u.Close()
			v, err := svc.Create(ctx, p, soundtrack.CreateInput{File: u, RequestID: requestID})
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		reqID := ids.NewUUID()
		first := create("first video", reqID)
		if first.ID != reqID {
			t.Errorf("id %s, want the RequestID %s", first.ID, reqID)
		}
		clk.Advance(time.Minute)
		// The retry carries the same body; another content here shows
		// which run's video comes back.
		again := create("other bytes", reqID)
		if again.ID != first.ID || again.SourceValue != first.SourceValue || !again.CreatedAt.Equal(first.CreatedAt) || an.calls.Load() != 1 {
			t.Fatalf("run again: %+v (%d analyses); want %+v, one analysis", again, an.calls.Load(), first)
		}
		if got, err := svc.Get(ctx, first.ID); err != nil || got.SourceValue != first.SourceValue {
			t.Fatalf("stored video: %+v %v", got, err)
		}
		if other := create("first video", ids.NewUUID()); other.ID == first.ID {
			t.Errorf("another request got the first video")
		}
		if fresh := create("first video", ""); fresh.ID == first.ID {
			t.Errorf("a create without a key got the first video")
		}
		// Another caller's record under the id is never returned.
		other := &identity.Principal{Client: identity.Client{ID: "c2"}}
		u, err := svc.Spool(strings.NewReader("first video"), "v.mp4", "video/mp4")
		if err != nil {
			t.Fatal(err)
		}
		defer u.Close()
		if v, err := svc.Create(ctx, other, soundtrack.CreateInput{File: u, RequestID: reqID}); err != nil || v.ID == first.ID || v.CreatedBy != other.ID() {
			t.Errorf("another caller: %+v %v", v, err)
		}
	})
}
