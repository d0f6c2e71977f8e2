package downloads_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"musiccatalog/infra/statemachines"
	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/catalogtest"
	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/downloads"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/store/twintest"
	"musiccatalog/pkg/workflow"
	"musiccatalog/pkg/workflow/localworkflow"
)

// zipFixture is a download service with ZIP builds on the in-process
// runner executing zip.asl.json, over a catalog whose track 0 has stems
// with awkward names (two called "Drums", one with path characters) and
// whose renditions are stored with distinct contents.
type zipFixture struct {
	svc     *downloads.Service
	st      store.Store
	bs      blob.Store
	clk     *clock.Manual
	runner  *localworkflow.Runner
	starts  atomic.Int64 // executions started
	track   *catalog.Track
	sources map[string][]byte
	p       *identity.Principal
	// gate, when set before the first request, holds every task until closed.
	gate chan struct{}
}

// countingStarter counts the executions the service starts.
type countingStarter struct {
	workflow.Starter
	n *atomic.Int64
}

func (c countingStarter) Start(ctx context.Context, m, name string, in any) error {
	c.n.Add(1)
	return c.Starter.Start(ctx, m, name, in)
}

func newZIPFixture(t *testing.T, st store.Store, wf func(*zipFixture) workflow.Starter) *zipFixture {
	t.Helper()
	ctx := context.Background()
	f := &zipFixture{st: st, bs: catalogtest.NewStore(t), clk: clock.NewManual(time.Now().Truncate(time.Second)), // the store expires items on the real clock,
		sources: map[string][]byte{},
		p:       &identity.Principal{Client: identity.Client{ID: "c1", Plan: identity.PlanCommercial, Status: identity.StatusActive}}}
	cc := catalogtest.Contents(2, 0)
	tr := cc.Tracks[0]
	tr.Name, tr.Artist.Name, tr.Stems = "Night/Drive: Part 2", "Zoë", nil
	for i, name := range []string{"Bass", "Drums", "Drums", "Keys\\Pads", "..", "Vocals", "FX", "Strings"} {
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", 100+i)
		tr.Stems = append(tr.Stems, catalog.Stem{ID: id, Name: name, Length: 30,
			Audio: catalog.AudioRef{MP3Key: "catalog/audio/" + id + ".mp3", WAVKey: "catalog/audio/" + id + ".wav", SHA256: fmt.Sprintf("%064x", 500+i)}})
	}
	for _, t2 := range cc.Tracks {
		refs := []catalog.AudioRef{t2.Audio}
		for _, s := range t2.Stems {
			refs = append(refs, s.Audio)
		}
		for _, a := range refs {
			for _, k := range []string{a.MP3Key, a.WAVKey} {
				data := bytes.Repeat([]byte(k), 300)
				f.sources[k] = data
				if err := f.bs.Put(ctx, k, bytes.NewReader(data), int64(len(data)), "audio/mpeg"); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	cat := catalogtest.Publish(t, f.bs, cc)
	f.track, _ = cat.Track(tr.ID)
	f.runner = localworkflow.New(localworkflow.WithWorkers(2))
	t.Cleanup(f.runner.Close)
	if err := f.runner.Register(downloads.Machine, statemachines.ZIP, downloads.Substitutions); err != nil {
		t.Fatal(err)
	}
	var starter workflow.Starter = countingStarter{f.runner, &f.starts}
	if wf != nil {
		starter = wf(f)
	}
	var err error
	f.svc, err = downloads.New(downloads.Config{Store: st, Blob: f.bs, Catalog: fixed{cat}, Workflow: starter, Clock: f.clk})
	if err != nil {
		t.Fatal(err)
	}
	f.runner.Handle(downloads.FnBuildZIP, func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		if f.gate != nil {
			<-f.gate
		}
		return f.svc.HandleTask(ctx, in)
	})
	return f
}

func (f *zipFixture) wait(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := f.runner.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}

var stemsBoth = downloads.Request{Type: "track", Formats: []string{"wav", "mp3"}, FormatsSent: true, IncludeStems: true}

// TestZIPOneBuildOnBothTwins: 30 concurrent identical first requests get
// 202 and start exactly one build, on the bolt twin and DynamoDB Local;
// once built every identical request gets the archive's URL, counted.
func TestZIPOneBuildOnBothTwins(t *testing.T) {
	twintest.Run(t, func(t *testing.T, st store.Store) {
		f := newZIPFixture(t, st, nil)
		f.gate = make(chan struct{}) // all 30 are first requests: none sees the build end
		ctx := context.Background()
		var wg sync.WaitGroup
		errc := make(chan error, 30)
		for i := range 30 {
			wg.Go(func() {
				req := stemsBoth
				req.ConfirmPersonalUse = i%2 == 0 // not part of the cache key
				link, err := f.svc.Audio(ctx, f.p, f.track.ID, req)
				if err == nil && (!link.Pending || link.Detail != downloads.MsgPreparing || link.URL != "") {
					err = fmt.Errorf("first requests: %+v", link)
				}
				errc <- err
			})
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			if err != nil {
				t.Fatal(err)
			}
		}
		if n := f.starts.Load(); n != 1 {
			t.Fatalf("%d builds started, want 1", n)
		}
		close(f.gate)
		f.wait(t)
		for range 3 {
			link, err := f.svc.Audio(ctx, f.p, f.track.ID, stemsBoth)
			if err != nil || link.Pending || link.URL == "" || link.Format != "zip" || link.Filename != "Zoë - Night_Drive_ Part 2 (stems).zip" {
				t.Fatalf("built: %+v %v", link, err)
			}
		}
		if n := f.starts.Load(); n != 1 {
			t.Errorf("%d builds started, want 1", n)
		}
		rows, err := f.svc.Report(ctx, "c1", f.clk.Now().UTC().Format("2006-01"))
		if err != nil || len(rows) != 1 || rows[0].Downloads != 3 || rows[0].ZIP != 3 || rows[0].MP3 != 3 || rows[0].WAV != 3 || rows[0].PersonalUseConfirmed != 0 {
			t.Errorf("counts %+v %v", rows, err)
		}
	})
}

// TestZIPArchiveEntries opens the archive and checks every entry: names
// (unique, safe, in order), stored method, bytes equal to the source
// renditions, and the LICENSE.txt text.
func TestZIPArchiveEntries(t *testing.T) {
	f := newZIPFixture(t, twintest.Bolt(t), nil)
	ctx := context.Background()
	if _, err := f.svc.Audio(ctx, f.p, f.track.ID, stemsBoth); err != nil {
		t.Fatal(err)
	}
	f.wait(t)
	if _, err := f.svc.Audio(ctx, f.p, f.track.ID, stemsBoth); err != nil {
		t.Fatal(err)
	}
	objs, err := f.bs.List(ctx, downloads.ZIPPrefix)
	if err != nil || len(objs) != 1 {
		t.Fatalf("archives %v %v", objs, err)
	}
	r, attrs, err := f.bs.Get(ctx, objs[0].Key)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(r)
	r.Close()
	if attrs.ContentType != "application/zip" {
		t.Errorf("content type %q", attrs.ContentType)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	base := "Zoë - Night_Drive_ Part 2"
	want := []struct{ name, key string }{
		{base + ".mp3", f.track.Audio.MP3Key}, {base + ".wav", f.track.Audio.WAVKey},
	}
	stemNames := []string{"Bass", "Drums", "Drums (2)", "Keys_Pads", "", "Vocals", "FX", "Strings"}
	for i, s := range f.track.Stems {
		for _, fm := range []string{"mp3", "wav"} {
			name := "Stems/" + base + " - " + stemNames[i] + "." + fm
			if stemNames[i] == "" { // "Title - .": trailing dots and spaces are trimmed
				name = "Stems/" + base + " -." + fm
			}
			key := s.Audio.MP3Key
			if fm == "wav" {
				key = s.Audio.WAVKey
			}
			want = append(want, struct{ name, key string }{name, key})
		}
	}
	if len(zr.File) != len(want)+1 {
		names := []string{}
		for _, zf := range zr.File {
			names = append(names, zf.Name)
		}
		t.Fatalf("%d entries %q, want %d", len(zr.File), names, len(want)+1)
	}
	seen := map[string]bool{}
	for i, w := range want {
		zf := zr.File[i]
		if zf.Name != w.name {
			t.Errorf("entry %d: %q, want %q", i, zf.Name, w.name)
		}
		if zf.Method != zip.Store {
			t.Errorf("%s: method %d, want stored", zf.Name, zf.Method)
		}
		if strings.HasPrefix(zf.Name, "/") || strings.Contains(zf.Name, "..") || strings.Contains(zf.Name, "\\") || seen[strings.ToLower(zf.Name)] {
			t.Errorf("unsafe or repeated name %q", zf.Name)
		}
		seen[strings.ToLower(zf.Name)] = true
		rc, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc) // also checks the CRC
		rc.Close()
		if err != nil || !bytes.Equal(got, f.sources[w.key]) {
			t.Errorf("%s: %d bytes (%v), want the %d of %s", zf.Name, len(got), err, len(f.sources[w.key]), w.key)
		}
	}
	lic := zr.File[len(zr.File)-1]
	if lic.Name != downloads.LicenseFile {
		t.Fatalf("last entry %q", lic.Name)
	}
	rc, _ := lic.Open()
	text, _ := io.ReadAll(rc)
	rc.Close()
	for _, s := range []string{"Title:        Night/Drive: Part 2", "Artist:       Zoë", "ISRC:         QZDMO2400001",
		"Label:        Label", "Writers:      W (GEMA) 100%", "Publishers:   P (GEMA) 100%", "Released:     2024-01-02",
		"Asset:        track " + f.track.ID, "  Stems/" + base + " - Drums (2).wav", "POST /api/v1/licenses/generate"} {
		if !strings.Contains(string(text), s) {
			t.Errorf("LICENSE.txt lacks %q:\n%s", s, text)
		}
	}
}

// TestZIPFailedBuildAnswers500OnceThenRebuilds: a missing source ends the
// build failed (through the Catch → MarkFailed path); the next identical
// request gets 500 {detail} with the reason, the one after starts a fresh
// build, which succeeds once the source is back.
func TestZIPFailedBuildAnswers500OnceThenRebuilds(t *testing.T) {
	twintest.Run(t, func(t *testing.T, st store.Store) {
		f := newZIPFixture(t, st, nil)
		ctx := context.Background()
		gone := f.track.Stems[3].Audio.WAVKey
		if err := f.bs.Delete(ctx, gone); err != nil {
			t.Fatal(err)
		}
		if l, err := f.svc.Audio(ctx, f.p, f.track.ID, stemsBoth); err != nil || !l.Pending {
			t.Fatalf("first: %+v %v", l, err)
		}
		f.wait(t)
		_, err := f.svc.Audio(ctx, f.p, f.track.ID, stemsBoth)
		var e *errs.Error
		if !errors.As(err, &e) || e.Status != 500 || !strings.Contains(e.Detail, "A source file of this download is missing (Stems/") {
			t.Fatalf("after the failure: %v", err)
		}
		if l, err := f.svc.Audio(ctx, f.p, f.track.ID, stemsBoth); err != nil || !l.Pending || f.starts.Load() != 2 {
			t.Fatalf("then: %+v %v, %d starts", l, err, f.starts.Load())
		}
		f.wait(t) // the second build fails too: the source is still missing
		if _, err := f.svc.Audio(ctx, f.p, f.track.ID, stemsBoth); err == nil {
			t.Fatal("second failure not reported")
		}
		if err := f.bs.Put(ctx, gone, bytes.NewReader(f.sources[gone]), -1, "audio/wav"); err != nil {
			t.Fatal(err)
		}
		if l, err := f.svc.Audio(ctx, f.p, f.track.ID, stemsBoth); err != nil || !l.Pending || f.starts.Load() != 3 {
			t.Fatalf("third build: %+v %v", l, err)
		}
		f.wait(t)
		if l, err := f.svc.Audio(ctx, f.p, f.track.ID, stemsBoth); err != nil || l.URL == "" {
			t.Fatalf("rebuilt: %+v %v", l, err)
		}
		rows, _ := f.svc.Report(ctx, "c1", f.clk.Now().UTC().Format("2006-01"))
		if len(rows) != 1 || rows[0].Downloads != 1 {
			t.Errorf("only the served archive is counted: %+v", rows)
		}
	})
}

// deadStarter accepts starts and runs nothing: an execution that died
// without its Catch.
type deadStarter struct{ n *atomic.Int64 }

func (d deadStarter) Start(context.Context, string, string, any) error { d.n.Add(1); return nil }

// failingStarter cannot start executions.
type failingStarter struct{ n *atomic.Int64 }

func (d failingStarter) Start(context.Context, string, string, any) error {
	d.n.Add(1)
	return errors.New("states: throttled")
}

// TestZIPNeverPendingForever: a build that stays "building" past
// ZIPBuildDeadline is failed by the next request (500 once), then built
// again; a start that fails answers 500 and the next request starts anew.
func TestZIPNeverPendingForever(t *testing.T) {
	ctx := context.Background()
	f := newZIPFixture(t, twintest.Bolt(t), func(f *zipFixture) workflow.Starter { return deadStarter{&f.starts} })
	req := downloads.Request{Type: "track", Formats: []string{"mp3", "wav"}}
	for range 2 {
		if l, err := f.svc.Audio(ctx, f.p, f.track.ID, req); err != nil || !l.Pending {
			t.Fatalf("building: %+v %v", l, err)
		}
	}
	f.clk.Advance(downloads.ZIPBuildDeadline + time.Second)
	var e *errs.Error
	if _, err := f.svc.Audio(ctx, f.p, f.track.ID, req); !errors.As(err, &e) || e.Status != 500 || !strings.Contains(e.Detail, "too long") {
		t.Fatalf("past the deadline: %v", err)
	}
	if l, err := f.svc.Audio(ctx, f.p, f.track.ID, req); err != nil || !l.Pending || f.starts.Load() != 2 {
		t.Fatalf("rebuild: %+v %v %d", l, err, f.starts.Load())
	}

	g := newZIPFixture(t, twintest.Bolt(t), func(f *zipFixture) workflow.Starter { return failingStarter{&f.starts} })
	if _, err := g.svc.Audio(ctx, g.p, g.track.ID, req); !errors.As(err, &e) || e.Status != 500 {
		t.Fatalf("failed start: %v", err)
	}
	if _, err := g.svc.Audio(ctx, g.p, g.track.ID, req); !errors.As(err, &e) || e.Status != 500 || g.starts.Load() != 2 {
		t.Fatalf("the next request starts again: %v, %d starts", err, g.starts.Load())
	}
}

// TestZIPExpiry: a built archive is reused until ZIPRetention, then its
// record has expired and the next request builds afresh; the sweeper
// deletes archives as old as the lifecycle rule does.
func TestZIPExpiry(t *testing.T) {
	ctx := context.Background()
	f := newZIPFixture(t, twintest.Bolt(t), nil)
	req := downloads.Request{Type: "track", Formats: []string{"mp3", "wav"}}
	f.svc.Audio(ctx, f.p, f.track.ID, req)
	f.wait(t)
	f.clk.Advance(downloads.ZIPRetention - time.Minute)
	if l, err := f.svc.Audio(ctx, f.p, f.track.ID, req); err != nil || l.URL == "" {
		t.Fatalf("before expiry: %+v %v", l, err)
	}
	if n, err := f.svc.SweepExpiredZIPs(ctx); err != nil || n != 0 {
		t.Errorf("swept %d %v before expiry", n, err)
	}
	f.clk.Advance(2 * time.Minute)
	if l, err := f.svc.Audio(ctx, f.p, f.track.ID, req); err != nil || !l.Pending || f.starts.Load() != 2 {
		t.Fatalf("after expiry: %+v %v %d", l, err, f.starts.Load())
	}
	// A built archive whose object is gone is rebuilt, not served.
	f.wait(t)
	objs, _ := f.bs.List(ctx, downloads.ZIPPrefix)
	if len(objs) != 1 {
		t.Fatalf("archives %v", objs)
	}
	f.bs.Delete(ctx, objs[0].Key)
	if l, err := f.svc.Audio(ctx, f.p, f.track.ID, req); err != nil || !l.Pending || f.starts.Load() != 3 {
		t.Fatalf("object gone: %+v %v", l, err)
	}
	f.wait(t)
}

// TestZIPDeadlineCoversMachineTimeout: a request gives up on a build only
// after the state machine itself would have ended.
func TestZIPDeadlineCoversMachineTimeout(t *testing.T) {
	var def struct{ TimeoutSeconds int }
	if err := json.Unmarshal(statemachines.ZIP, &def); err != nil || def.TimeoutSeconds == 0 {
		t.Fatalf("zip.asl.json TimeoutSeconds: %v", err)
	}
	if time.Duration(def.TimeoutSeconds)*time.Second >= downloads.ZIPBuildDeadline {
		t.Errorf("machine timeout %d s is not under ZIPBuildDeadline %v", def.TimeoutSeconds, downloads.ZIPBuildDeadline)
	}
}

// TestZIPMachineTasks: the local runner runs build-zip, the function
// template.yaml substitutes, in the order the ASL gives.
func TestZIPMachineTasks(t *testing.T) {
	f := newZIPFixture(t, twintest.Bolt(t), nil)
	tasks, err := f.runner.Tasks(downloads.Machine)
	if err != nil || len(tasks) != 1 || tasks[0] != downloads.FnBuildZIP {
		t.Errorf("tasks %v %v", tasks, err)
	}
}
