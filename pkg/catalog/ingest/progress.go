package ingest

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progress reports ingestion as it goes: on a terminal one bar redrawn in
// place with the rate and ETA, elsewhere (logs, CI) one line per asset.
type progress struct {
	w        io.Writer
	tty      bool
	total    int
	start    time.Time
	now      func() time.Time
	mu       sync.Mutex
	done     int
	seconds  float64 // audio duration of the finished assets
	lastDraw time.Time
}

func newProgress(w io.Writer, total int, now func() time.Time) *progress {
	p := &progress{w: w, total: total, now: now, start: now()}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

// finished records one asset of the given audio duration; what says what
// happened to it.
func (p *progress) finished(seconds float64, what string) {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.seconds += seconds
	now := p.now()
	elapsed := now.Sub(p.start)
	rate := "-"
	if elapsed > 0 {
		rate = fmt.Sprintf("%.1f× real time", p.seconds/elapsed.Seconds())
	}
	eta := "-"
	if p.done > 0 && p.done < p.total {
		eta = clock(time.Duration(float64(elapsed) / float64(p.done) * float64(p.total-p.done)))
	} else if p.done == p.total {
		eta = "done in " + clock(elapsed)
	}
	if !p.tty {
		fmt.Fprintf(p.w, "ingest [%d/%d] %s; %s, ETA %s\n", p.done, p.total, what, rate, eta)
		return
	}
	if p.done < p.total && now.Sub(p.lastDraw) < 100*time.Millisecond {
		return
	}
	p.lastDraw = now
	const width = 30
	fill := width * p.done / max(p.total, 1)
	bar := strings.Repeat("=", fill) + strings.Repeat(" ", width-fill)
	if fill < width {
		bar = bar[:fill] + ">" + bar[fill+1:]
	}
	fmt.Fprintf(p.w, "\r\x1b[K[%s] %d/%d  %s of audio  %s  ETA %s", bar, p.done, p.total, clock(time.Duration(p.seconds*float64(time.Second))), rate, eta)
	if p.done == p.total {
		fmt.Fprintln(p.w)
	}
}

// clock formats a duration as h:mm:ss or m:ss.
func clock(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
