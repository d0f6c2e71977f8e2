package downloads_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/blob/s3blob"
	"musiccatalog/pkg/catalog"
	"musiccatalog/pkg/catalog/catalogtest"
	"musiccatalog/pkg/clock"
	"musiccatalog/pkg/downloads"
	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/store/twintest"
)

// BenchmarkZIPBuild builds the archive of a track with 8 stems in both
// formats (18 renditions) from the blob store into the blob store and
// reports throughput and memory: MB/s of archive written, the process's
// peak RSS during the build (VmHWM, reset before it), how far that peak
// rose above the RSS before the build, and the peak Go heap. Cases: a
// 3-minute track (wav 31.7 MB, mp3 4.3 MB per rendition: 324 MB) and one
// scaled to a 500 MB archive; on the file store, and on S3 (versitygw,
// multipart upload) when TEST_S3_ENDPOINT is set (bash
// infra/local/with-stack.sh). Memory must not grow with the archive:
// compare the two sizes.
//
//	go test -run '^$' -bench ZIPBuild -benchtime 1x ./pkg/downloads/
func BenchmarkZIPBuild(b *testing.B) {
	stores := []struct {
		name string
		open func(b *testing.B) blob.Store
	}{{"file", func(b *testing.B) blob.Store { return catalogtest.NewStore(b) }}}
	if ep := os.Getenv("TEST_S3_ENDPOINT"); ep != "" {
		stores = append(stores, struct {
			name string
			open func(b *testing.B) blob.Store
		}{"s3", func(b *testing.B) blob.Store { return benchBucket(b, ep) }})
	}
	for _, size := range []struct {
		name     string
		wav, mp3 int64
	}{{"8stems-3min", 31_752_000, 4_320_000}, {"8stems-500MB", 49_000_000, 6_500_000}} {
		for _, st := range stores {
			b.Run(size.name+"/"+st.name, func(b *testing.B) {
				benchZIPBuild(b, st.open(b), size.wav, size.mp3)
			})
		}
	}
}

func benchBucket(b *testing.B, endpoint string) blob.Store {
	client := s3blob.NewCompatibleClient(endpoint, os.Getenv("TEST_S3_ACCESS_KEY"), os.Getenv("TEST_S3_SECRET_KEY"))
	bucket := fmt.Sprintf("zipbench-%d", time.Now().UnixNano())
	if _, err := client.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		b.Fatal(err)
	}
	s := s3blob.New(client, bucket)
	b.Cleanup(func() {
		ctx := context.Background()
		list, _ := s.List(ctx, "")
		for _, a := range list {
			s.Delete(ctx, a.Key)
		}
		client.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: &bucket})
	})
	return s
}

func benchZIPBuild(b *testing.B, bs blob.Store, wavSize, mp3Size int64) {
	ctx := context.Background()
	cc := catalogtest.Contents(1, 0)
	tr := cc.Tracks[0]
	tr.Stems = nil
	for i, name := range []string{"Drums", "Bass", "Keys", "Pads", "Lead", "Vocals", "FX", "Strings"} {
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", i+1)
		tr.Stems = append(tr.Stems, catalog.Stem{ID: id, Name: name, Length: 180,
			Audio: catalog.AudioRef{MP3Key: "catalog/audio/" + id + ".mp3", WAVKey: "catalog/audio/" + id + ".wav", SHA256: fmt.Sprintf("%064x", i+7)}})
	}
	var total int64
	refs := []catalog.AudioRef{tr.Audio}
	for _, s := range tr.Stems {
		refs = append(refs, s.Audio)
	}
	for i, a := range refs {
		for _, r := range []struct {
			key  string
			size int64
		}{{a.MP3Key, mp3Size}, {a.WAVKey, wavSize}} {
			src := io.LimitReader(rand.NewChaCha8([32]byte{byte(i)}), r.size) // audio does not compress either
			if err := bs.Put(ctx, r.key, src, r.size, "audio/wav"); err != nil {
				b.Fatal(err)
			}
			total += r.size
		}
	}
	cat := catalogtest.Publish(b, bs, cc)
	starter := &capture{}
	svc, err := downloads.New(downloads.Config{Store: twintest.Bolt(b), Blob: bs, Catalog: fixed{cat}, Workflow: starter,
		Clock: clock.Real{}})
	if err != nil {
		b.Fatal(err)
	}
	p := &identity.Principal{Client: identity.Client{ID: "c1", Plan: identity.PlanEnterprise, CanDownload: true, Status: identity.StatusActive}}
	req := downloads.Request{Type: "track", Formats: []string{"mp3", "wav"}, IncludeStems: true}
	var elapsed time.Duration
	var peakRSS, rise, peakHeap int64
	for b.Loop() {
		b.StopTimer()
		if _, err := svc.Audio(ctx, p, tr.ID, req); err != nil {
			b.Fatal(err)
		}
		in := starter.last()
		debug.FreeOSMemory()
		before := procStatus("VmRSS")
		os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) // reset VmHWM to the current RSS
		stop := watchHeap()
		b.StartTimer()
		start := time.Now()
		if err := svc.BuildZIP(ctx, in); err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(start)
		b.StopTimer()
		peakHeap = max(peakHeap, stop())
		hwm := procStatus("VmHWM")
		peakRSS, rise = max(peakRSS, hwm), max(rise, hwm-before)
		// Served once; then the archive is deleted, so the next
		// iteration's request builds generation n+1.
		if l, err := svc.Audio(ctx, p, tr.ID, req); err != nil || l.URL == "" {
			b.Fatalf("built: %+v %v", l, err)
		}
		objs, _ := bs.List(ctx, downloads.ZIPPrefix)
		if len(objs) != 1 || objs[0].Size < total {
			b.Fatalf("archive %v, sources %d bytes", objs, total)
		}
		if err := bs.Delete(ctx, objs[0].Key); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(total)/1e6, "archive_MB")
	b.ReportMetric(float64(total)*float64(b.N)/1e6/elapsed.Seconds(), "MB/s")
	b.ReportMetric(float64(peakRSS)/1e6, "peak_rss_MB")
	b.ReportMetric(float64(rise)/1e6, "rss_rise_MB")
	b.ReportMetric(float64(peakHeap)/1e6, "peak_heap_MB")
}

// capture is a workflow starter that keeps the last input and runs
// nothing: the benchmark times BuildZIP itself.
type capture struct {
	mu sync.Mutex
	in downloads.BuildInput
}

func (c *capture) Start(_ context.Context, _, _ string, in any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.in = in.(downloads.BuildInput)
	return nil
}

func (c *capture) last() downloads.BuildInput {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.in
}

// procStatus reads a "kB" field of /proc/self/status in bytes (0 when the
// system has none).
func procStatus(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// watchHeap samples the Go heap in use every 5 ms until the returned
// function is called, which returns the peak.
func watchHeap() func() int64 {
	var peak atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if v := int64(ms.HeapInuse); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() int64 { close(done); wg.Wait(); return peak.Load() }
}
