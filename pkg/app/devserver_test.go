package app

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"testing"
	"time"
)

// startDevserver runs RunDevserver on a free port and returns its base URL
// as announced by the "listening on" log line, and a stop function.
func startDevserver(t *testing.T, dataDir string) (string, func()) {
	t.Helper()
	cfg := Config{Addr: "127.0.0.1:0", DataDir: dataDir, LogLevel: "info", RateAnonymous: 60, RateAuth: 600}
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- RunDevserver(ctx, cfg, slog.New(slog.NewJSONHandler(pw, nil))); pw.Close() }()
	listening := regexp.MustCompile(`"msg":"listening on (http://127\.0\.0\.1:\d+)"`)
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		sent := false
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil && !sent {
				urlc <- m[1]
				sent = true
			}
		}
	}()
	select {
	case u := <-urlc:
		return u, func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("devserver stopped with %v", err)
			}
		}
	case err := <-done:
		t.Fatalf("devserver exited: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("devserver never logged its listening line")
	}
	return "", nil
}

func TestDevserverFirstStartWritesDemoCredentials(t *testing.T) {
	dir := t.TempDir()
	base, stop := startDevserver(t, dir)
	raw, err := os.ReadFile(dir + "/demo-credentials.json")
	if err != nil {
		t.Fatal(err)
	}
	var creds DemoCredentials
	if err := json.Unmarshal(raw, &creds); err != nil || creds.Partner.Key == "" || creds.User.Token == "" ||
		creds.Partner.ClientID == "" || creds.User.UserID == "" || creds.User.Username == "" {
		t.Fatalf("credentials %s: %v", raw, err)
	}
	get := func(key string) int {
		req, _ := http.NewRequest("GET", base+"/api/v4/allowlist/channels/", nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := get(creds.Partner.Key); s != 200 {
		t.Errorf("demo key: %d", s)
	}
	if s := get(""); s != 401 {
		t.Errorf("no key: %d", s)
	}
	stop()

	// A restart keeps the same credentials.
	_, stop = startDevserver(t, dir)
	defer stop()
	raw2, _ := os.ReadFile(dir + "/demo-credentials.json")
	if string(raw2) != string(raw) {
		t.Errorf("credentials changed on restart")
	}
}
