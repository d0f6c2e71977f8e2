package app

import (
	"bytes"
	"context"
	"image/png"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"musiccatalog/pkg/identity"
)

// chromium finds the headless browser of the page test: CHROMIUM_PATH, or
// Debian's `chromium` (.ci/run installs it). Without one the test skips,
// except under CI=true, where it fails.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("CHROMIUM_PATH"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const why = "no chromium on PATH (apt-get install -y chromium, or set CHROMIUM_PATH): the license page is not rendered in a browser"
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
	return ""
}

// artifactsDir is where the test's screenshots are kept after it ends:
// TEST_ARTIFACTS_DIR, else a directory under the system temp dir.
func artifactsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("TEST_ARTIFACTS_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "musiccatalog-test-artifacts")
	}
	dir = filepath.Join(dir, t.Name())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// pageFacts is what the browser reports about a rendered page.
type pageFacts struct {
	Lang         string  `json:"lang"`
	Text         string  `json:"text"`
	ScrollWidth  int     `json:"scrollWidth"`
	ClientWidth  int     `json:"clientWidth"`
	Landmarks    int     `json:"landmarks"` // header, main and footer present
	H1           int     `json:"h1"`
	MinContrast  float64 `json:"minContrast"`
	Stacked      bool    `json:"stacked"` // the first term sits above its value
	FontSizeBody float64 `json:"fontSize"`
}

// factsJS measures the page: visible text, overflow, landmarks and the
// lowest WCAG contrast ratio among text elements over their backgrounds.
const factsJS = `(() => {
  const rgb = s => (s.match(/[\d.]+/g) || [0,0,0,0]).map(Number);
  const lum = c => {
    const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const bg = el => {
    for (; el; el = el.parentElement) {
      const c = rgb(getComputedStyle(el).backgroundColor);
      if (c.length < 4 || c[3] > 0) return c;
    }
    return [255, 255, 255];
  };
  let min = 21;
  for (const el of document.querySelectorAll('body *')) {
    if (!el.offsetParent && getComputedStyle(el).position !== 'fixed') continue;
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim() !== '');
    if (!own) continue;
    const a = lum(rgb(getComputedStyle(el).color)), b = lum(bg(el));
    min = Math.min(min, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05));
  }
  const dt = document.querySelector('dt'), dd = document.querySelector('dd');
  return {
    lang: document.documentElement.lang,
    text: document.body.innerText,
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
    landmarks: ['header', 'main', 'footer'].filter(s => document.querySelector(s)).length,
    h1: document.querySelectorAll('h1').length,
    minContrast: min,
    stacked: !!(dt && dd && dd.getBoundingClientRect().top >= dt.getBoundingClientRect().bottom - 1),
    fontSize: parseFloat(getComputedStyle(document.body).fontSize),
  };
})()`

// TestLicensePageInBrowser renders the public license page in headless
// Chromium at a phone and a desktop width: the facts are visible, nothing
// scrolls sideways (not even a 255-character project name without
// spaces), landmarks and lang are there, text contrast meets WCAG AA, and
// a screenshot of each is kept as a test artifact.
func TestLicensePageInBrowser(t *testing.T) {
	exe := chromium(t)
	e := newLicenseEnv(t)
	_, key := e.newClient(t, identity.PlanEnterprise, []string{identity.ScopeLicenses}, identity.Quotas{})
	project := strings.Repeat("LongProjectNameWithoutSpaces", 10)[:255]
	r, g := e.generate(t, key, map[string]string{"X-User-ID": "creator-channel-4711"},
		map[string]any{"track_id": e.tracks[1].ID, "project_name": project})
	if r.Status != 200 {
		t.Fatalf("generate: %d %s", r.Status, r.Body)
	}
	srv := httptest.NewServer(e.d.LocalHandler())
	defer srv.Close()

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.UserDataDir(t.TempDir()),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute) // a busy shared machine
	defer cancelTimeout()

	out := artifactsDir(t)
	render := func(path string, width int64, shot string) pageFacts {
		t.Helper()
		err := chromedp.Do(ctx,
			chromedp.EmulateViewport(width, 800),
			chromedp.Navigate(srv.URL+path),
			chromedp.WaitVisible(chromedp.CSS("main")),
		)
		if err != nil {
			t.Fatalf("%s at %d px: %v", path, width, err)
		}
		facts, err := chromedp.Run(ctx, chromedp.Evaluate[pageFacts](factsJS))
		if err != nil {
			t.Fatalf("%s at %d px: measuring: %v", path, width, err)
		}
		img, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("%s at %d px: screenshot: %v", path, width, err)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(img))
		// The page is as wide as the viewport less a vertical scrollbar.
		if err != nil || int64(cfg.Width) > width || int64(cfg.Width) < width-20 {
			t.Errorf("%s: screenshot %d px wide in a %d px viewport, %v", shot, cfg.Width, width, err)
		}
		file := filepath.Join(out, shot)
		if err := os.WriteFile(file, img, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot %s", file)
		return facts
	}

	id := g.License.LicenseID
	for _, width := range []int64{375, 1280} {
		f := render("/v/"+id, width, "license-"+strconv.FormatInt(width, 10)+".png")
		for _, want := range []string{"Valid license", e.tracks[1].DisplayName(), "Artist", "creator-channel-4711",
			"Client enterprise", id, e.tracks[1].ID, e.start.Format("2 January 2006"), "No expiry", "recorded in the Music Catalog license registry"} {
			if !strings.Contains(f.Text, want) {
				t.Errorf("%d px: visible text lacks %q", width, want)
			}
		}
		if !strings.Contains(strings.ReplaceAll(f.Text, "\n", ""), project) {
			t.Errorf("%d px: the project name is not shown in full", width)
		}
		if f.ScrollWidth > f.ClientWidth {
			t.Errorf("%d px: scrolls sideways (content %d px wide in %d)", width, f.ScrollWidth, f.ClientWidth)
		}
		if f.Lang != "en" || f.Landmarks != 3 || f.H1 != 1 {
			t.Errorf("%d px: lang %q, %d of 3 landmarks, %d h1", width, f.Lang, f.Landmarks, f.H1)
		}
		if f.MinContrast < 4.5 {
			t.Errorf("%d px: lowest text contrast %.2f:1; WCAG AA needs 4.5:1", width, f.MinContrast)
		}
		if f.FontSizeBody < 16 {
			t.Errorf("%d px: body text %.0f px", width, f.FontSizeBody)
		}
		if want := width < 500; f.Stacked != want {
			t.Errorf("%d px: terms stacked above their values = %v; want %v", width, f.Stacked, want)
		}
	}
	f := render("/v/"+strings.Repeat("0f", 40), 375, "license-not-found-375.png") // an over-long id must wrap too
	if !strings.Contains(f.Text, "No license with this ID") || f.ScrollWidth > f.ClientWidth || f.Lang != "en" || f.Landmarks != 3 {
		t.Errorf("404 page: %+v", f)
	}
}
