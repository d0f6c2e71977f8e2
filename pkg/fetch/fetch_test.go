package fetch

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/soundtrack"
)

func TestPublic(t *testing.T) {
	for addr, want := range map[string]bool{
		"8.8.8.8": true, "2606:4700:4700::1111": true, "142.250.74.14": true,
		"127.0.0.1": false, "127.8.9.10": false, "::1": false, "10.1.2.3": false, "172.16.0.1": false,
		"192.168.1.1": false, "169.254.169.254": false, "fe80::1": false, "fd00::1": false, "0.0.0.0": false,
		"::": false, "100.64.0.1": false, "224.0.0.1": false, "255.255.255.255": false, "::ffff:127.0.0.1": false,
		"::ffff:10.0.0.1": false, "64:ff9b::a00:1": false, "2002:7f00:1::": false, "198.18.0.1": false,
		// IPv4-compatible, IPv4-translated, 6to4 relay, site-local and the
		// other IANA special-purpose ranges; IPv4 in IPv6 forms.
		"::7f00:1": false, "::a9fe:a9fe": false, "::808:808": false, "::ffff:0:7f00:1": false, "::ffff:0:808:808": false,
		"192.88.99.1": false, "fec0::1": false, "feff::1": false, "3fff::1": false, "5f00::1": false, "100:0:0:1::1": false,
		"2001:0:4136:e378:8000:63bf:3fff:fdd2": false, "192.0.0.170": false, "::ffff:8.8.8.8": true,
		"1::1": false, "4000::1": false, "2001:4860:4860::8888": true,
	} {
		if got := Public(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Public(%s) = %v", addr, got)
		}
	}
}

// fixed resolves every host to addrs.
func fixed(addrs ...string) func(context.Context, string, string) ([]netip.AddrPort, error) {
	return func(context.Context, string, string) ([]netip.AddrPort, error) {
		var out []netip.AddrPort
		for _, a := range addrs {
			out = append(out, netip.MustParseAddrPort(a))
		}
		return out, nil
	}
}

func TestGuardRefusesAnyNonPublicAnswer(t *testing.T) {
	ctx := context.Background()
	for _, answer := range [][]string{{"127.0.0.1:80"}, {"8.8.8.8:80", "10.0.0.1:80"}, {"[::ffff:169.254.169.254]:80"}} {
		g := &Guard{Resolve: fixed(answer...)}
		_, err := g.DialContext(ctx, "tcp", "www.youtube.com:80")
		var be *BlockedError
		if !errors.As(err, &be) {
			t.Errorf("%v: %v, want a BlockedError", answer, err)
		}
	}
	// Literal addresses go through the same rule.
	if _, err := (&Guard{}).DialContext(ctx, "tcp", "127.0.0.1:1"); !errors.As(err, new(*BlockedError)) {
		t.Errorf("literal loopback: %v", err)
	}
}

// mediaServer serves a video at /v.mp4, a page at /page, a redirect to
// /v.mp4 at /go, 404 elsewhere, and counts requests.
func mediaServer(t *testing.T, body []byte) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/v.mp4":
			w.Header().Set("Content-Type", "video/mp4")
			w.Write(body)
		case "/page":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html>"))
		case "/go":
			http.Redirect(w, r, "/v.mp4", http.StatusFound)
		case "/down":
			http.Error(w, "busy", http.StatusServiceUnavailable)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func allowAll(netip.Addr) bool { return true }

func link(u string) soundtrack.Link { return soundtrack.Link{URL: u, Canonical: u} }

func code(err error) string {
	var e *errs.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func TestDirect(t *testing.T) {
	body := []byte("pretend this is an mp4 file")
	srv, hits := mediaServer(t, body)
	ctx := context.Background()
	dir := t.TempDir()

	// The real rule: a loopback server is out of reach, and nothing is sent.
	strict := &Direct{Guard: &Guard{}}
	if _, err := strict.Fetch(ctx, link(srv.URL+"/v.mp4"), dir, false); code(err) != CodePrivateAddress || errs.KindOf(err) != errs.Invalid {
		t.Errorf("loopback: %v", err)
	}
	if hits.Load() != 0 {
		t.Errorf("the server was reached %d times", hits.Load())
	}

	d := &Direct{Guard: &Guard{Allow: allowAll}, MaxBytes: 100}
	for _, path := range []string{"/v.mp4", "/go"} {
		m, err := d.Fetch(ctx, link(srv.URL+path), dir, false)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		got, _ := os.ReadFile(m.Path)
		if string(got) != string(body) || m.Title != "v" || filepath.Dir(m.Path) != dir {
			t.Errorf("%s: %q %+v", path, got, m)
		}
	}
	for path, want := range map[string]string{"/page": CodeNotMedia, "/gone": CodeVideoUnavailable, "/down": CodeUnreachable} {
		if _, err := d.Fetch(ctx, link(srv.URL+path), dir, false); code(err) != want {
			t.Errorf("%s: %v, want %s", path, err, want)
		}
	}
	small := &Direct{Guard: &Guard{Allow: allowAll}, MaxBytes: 10}
	if _, err := small.Fetch(ctx, link(srv.URL+"/v.mp4"), dir, false); code(err) != CodeTooLarge {
		t.Errorf("too large: %v", err)
	}

	// A redirect to a private address is refused at the redirect: every
	// connection is checked, not only the first.
	loopbackOnly := func(a netip.Addr) bool { return a.IsLoopback() }
	hop := httptest.NewServer(http.RedirectHandler("http://internal.example/v.mp4", http.StatusFound))
	defer hop.Close()
	hopAddr := netip.MustParseAddrPort(strings.TrimPrefix(hop.URL, "http://"))
	redirected := &Direct{Guard: &Guard{Allow: loopbackOnly, Resolve: func(_ context.Context, host, _ string) ([]netip.AddrPort, error) {
		if host == "internal.example" {
			return []netip.AddrPort{netip.MustParseAddrPort("10.0.0.7:80")}, nil
		}
		return []netip.AddrPort{hopAddr}, nil
	}}}
	if _, err := redirected.Fetch(ctx, link("http://www.youtube.com/watch?v=abc"), dir, false); code(err) != CodePrivateAddress {
		t.Errorf("redirect to a private address: %v", err)
	}
}

func TestProxy(t *testing.T) {
	body := []byte("media bytes")
	srv, hits := mediaServer(t, body)
	get := func(g *Guard) (*http.Response, error) {
		p, err := StartProxy(g)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		pu, _ := url.Parse(p.URL())
		cl := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}}
		resp, err := cl.Get(srv.URL + "/v.mp4")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 && string(b) != string(body) {
				t.Errorf("proxied body %q", b)
			}
		}
		if p.Blocked() == nil && resp != nil && resp.StatusCode != 200 {
			t.Errorf("refused without recording why: %d", resp.StatusCode)
		}
		return resp, err
	}
	if resp, err := get(&Guard{}); err != nil || resp.StatusCode != http.StatusBadGateway || hits.Load() != 0 {
		t.Errorf("proxy to loopback: %v %v (hits %d)", resp, err, hits.Load())
	}
	if resp, err := get(&Guard{Allow: allowAll}); err != nil || resp.StatusCode != 200 {
		t.Errorf("proxy, allowed: %v %v", resp, err)
	}
}

// fakeYTDLP writes a script standing in for yt-dlp: it records its
// arguments and runs body.
func fakeYTDLP(t *testing.T, body string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	argsFile := filepath.Join(dir, "args")
	script := filepath.Join(dir, "yt-dlp")
	os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > "+argsFile+"\n"+body+"\n"), 0o755)
	return script, argsFile
}

func TestYTDLP(t *testing.T) {
	ctx := context.Background()
	l, err := soundtrack.ParseLink("https://youtu.be/dQw4w9WgXcQ?si=track")
	if err != nil {
		t.Fatal(err)
	}
	// Success: the file it names (inside dir) and the title.
	script, argsFile := fakeYTDLP(t, `out=""; prev=""; for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
f=$(echo "$out" | sed 's/%(ext)s/webm/'); echo data > "$f"; echo '{"title": "Never \"Gonna\"", "filepath": "'"$f"'"}'`)
	y := &YTDLP{Path: script, Guard: &Guard{}}
	dir := t.TempDir()
	m, err := y.Fetch(ctx, l, dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if m.Title != `Never "Gonna"` || m.Path != filepath.Join(dir, "media.webm") {
		t.Errorf("fetched %+v", m)
	}
	args, _ := os.ReadFile(argsFile)
	a := string(args)
	for _, want := range []string{"--proxy\nhttp://127.0.0.1:", "--no-playlist", "-f\n" + audioFormat, "--max-filesize\n60000000",
		"--ignore-config", "--\nhttps://www.youtube.com/watch?v=dQw4w9WgXcQ\n"} {
		if !strings.Contains(a, want) {
			t.Errorf("args lack %q:\n%s", want, a)
		}
	}
	// A file outside dir is not taken.
	script, _ = fakeYTDLP(t, `echo '{"title": "x", "filepath": "/etc/passwd"}'`)
	if _, err := (&YTDLP{Path: script, Guard: &Guard{}}).Fetch(ctx, l, t.TempDir(), false); err == nil || errs.KindOf(err) != errs.Internal {
		t.Errorf("file outside dir: %v", err)
	}
	// Errors: yt-dlp's ERROR line decides between 422 and 502.
	for body, want := range map[string]string{
		`echo "ERROR: [youtube] dQw4w9WgXcQ: Video unavailable. This video has been removed" >&2; exit 1`:          CodeVideoUnavailable,
		`echo "ERROR: [youtube] dQw4w9WgXcQ: Private video. Sign in if you've been granted access" >&2; exit 1`:    CodeVideoUnavailable,
		`echo "ERROR: [youtube] dQw4w9WgXcQ: Unable to download webpage: <urlopen error timed out>" >&2; exit 1`:   CodeUnreachable,
		`echo "[info] dQw4w9WgXcQ: File is larger than max-filesize (90000000 bytes > 60000000 bytes). Aborting."`: CodeTooLarge,
	} {
		script, _ := fakeYTDLP(t, body)
		if _, err := (&YTDLP{Path: script, Guard: &Guard{}}).Fetch(ctx, l, t.TempDir(), false); code(err) != want {
			t.Errorf("%s: %v, want %s", body, err, want)
		}
	}
	// Not installed: the service's fault, not the client's.
	if _, err := (&YTDLP{Path: "/nonexistent/yt-dlp", Guard: &Guard{}}).Fetch(ctx, l, t.TempDir(), false); errs.KindOf(err) != errs.Internal {
		t.Errorf("missing binary: %v", err)
	}
}

// TestYTDLPFormatsAreHTTPOnly: every format alternative yt-dlp may pick
// is downloaded over HTTP(S), the one protocol that goes through the
// guarded proxy (HLS via ffmpeg, RTMP and the like would not).
func TestYTDLPFormatsAreHTTPOnly(t *testing.T) {
	l, err := soundtrack.ParseLink("https://youtu.be/dQw4w9WgXcQ")
	if err != nil {
		t.Fatal(err)
	}
	for _, audioOnly := range []bool{true, false} {
		args := (&YTDLP{}).Args(l, t.TempDir(), "http://127.0.0.1:1", audioOnly)
		i := slices.Index(args, "-f")
		if i < 0 || i+1 >= len(args) {
			t.Fatalf("no -f in %v", args)
		}
		for _, alt := range strings.Split(args[i+1], "/") {
			if !strings.Contains(alt, "[protocol^=http]") {
				t.Errorf("audioOnly=%v: format alternative %q may use a protocol that bypasses the proxy", audioOnly, alt)
			}
		}
	}
}
