package app

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"musiccatalog/pkg/httpapi/apitest"
)

// newTestDeps wires the local twins in a fresh data dir with the demo
// credentials, and no token cache so revocations show at once.
func newTestDeps(t testing.TB, opts ...func(*Config)) (*Deps, DemoCredentials) {
	t.Helper()
	return openTestDeps(t, io.Discard, opts...)
}

// openTestDeps is newTestDeps with the JSON log (info level) written to
// logs.
func openTestDeps(t testing.TB, logs io.Writer, opts ...func(*Config)) (*Deps, DemoCredentials) {
	t.Helper()
	cfg := Config{DataDir: t.TempDir(), PublicBaseURL: "http://127.0.0.1:1", LogLevel: "error",
		RateAnonymous: 1000, RateAuth: 1000}
	for _, o := range opts {
		o(&cfg)
	}
	d, err := OpenLocal(cfg, slog.New(slog.NewJSONHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	creds, err := EnsureDemo(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	return d, creds
}

// partnerClient is newTestDeps with a client on the devserver wiring that
// sends the demo partner's key.
func partnerClient(t *testing.T, opts ...func(*Config)) (*Deps, DemoCredentials, *apitest.Client) {
	t.Helper()
	d, creds := newTestDeps(t, opts...)
	c := apitest.New(t, d.LocalHandler())
	c.Token = creds.Partner.Key
	return d, creds, c
}
