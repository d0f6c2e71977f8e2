package admin

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"musiccatalog/pkg/app"
)

func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

func field(t *testing.T, out, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %q in %q", name, out)
	}
	return m[1]
}

func TestClientsUsersTokensLifecycle(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DATA_DIR", dir)
	t.Setenv("TOKEN_CACHE_TTL", "0s")
	out, errOut, code := run(t, "clients", "create", "--name", "Acme", "--plan", "commercial",
		"--scopes", "compliance_check,licenses:generate", "--can-download", "--recognition-daily-cap", "5",
		"--license-burst", "2", "--license-daily", "10", "--license-monthly", "100")
	if code != 0 {
		t.Fatalf("clients create: %d %s", code, errOut)
	}
	clientID, key := field(t, out, "client_id"), field(t, out, "key")

	out, errOut, code = run(t, "users", "create", "--client", clientID, "--username", "alice", "--name", "Alice A.")
	if code != 0 {
		t.Fatalf("users create: %d %s", code, errOut)
	}
	userID, userTok := field(t, out, "user_id"), field(t, out, "token")
	out, _, code = run(t, "tokens", "create", "--user", userID, "--expires", "1h")
	if code != 0 {
		t.Fatalf("tokens create: %d", code)
	}
	extra := field(t, out, "token")

	// Everything the CLI made is what the service sees.
	d, err := app.OpenLocal(app.Config{DataDir: dir}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, err := d.Identity.Authenticate(ctx, key)
	if err != nil || p.Client.Plan != "commercial" || !p.Client.CanDownload || p.Client.Quotas.RecognitionDailyCap != 5 ||
		p.Client.Quotas.LicenseMonthly != 100 || !p.HasScope("licenses:generate") {
		t.Fatalf("client principal %+v, %v", p, err)
	}
	for _, tok := range []string{userTok, extra} {
		if p, err := d.Identity.Authenticate(ctx, tok); err != nil || p.User == nil || p.User.Username != "alice" {
			t.Fatalf("user principal %+v, %v", p, err)
		}
	}

	// While the data dir is held, the CLI says so instead of hanging.
	_, errOut, code = run(t, "clients", "deactivate", "--client", clientID)
	if code != 1 || !strings.Contains(errOut, "devserver") {
		t.Errorf("locked data dir: code %d, %q", code, errOut)
	}
	d.Close()

	if _, errOut, code = run(t, "clients", "deactivate", "--client", clientID); code != 0 {
		t.Fatalf("deactivate: %s", errOut)
	}
	out, _, code = run(t, "clients", "revoke", "--client", clientID)
	if code != 0 || !strings.Contains(out, "revoked 3 tokens") {
		t.Errorf("revoke: %d %q", code, out)
	}
}

func TestCLIErrors(t *testing.T) {
	t.Setenv("DATA_DIR", t.TempDir())
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"clients"}, 2, "usage"},
		{[]string{"clients", "explode"}, 2, "unknown command"},
		{[]string{"clients", "create", "--name", "A"}, 2, "--plan"},
		{[]string{"clients", "create", "--name", "A", "--plan", "gold"}, 1, "--plan"},
		{[]string{"clients", "create", "--name", "A", "--plan", "free", "--scopes", "root"}, 1, "scope"},
		{[]string{"clients", "create", "--bogus"}, 2, "bogus"},
		{[]string{"users", "create", "--client", "00000000-0000-4000-8000-000000000000", "--username", "x"}, 1, "Client not found"},
		{[]string{"clients", "revoke", "--key", "mcat_nope"}, 1, "Token not found"},
		{[]string{"tokens", "create"}, 2, "exactly one"},
	}
	for _, c := range cases {
		_, errOut, code := run(t, c.args...)
		if code != c.code || !strings.Contains(errOut, c.msg) {
			t.Errorf("%v: code %d %q; want %d containing %q", c.args, code, errOut, c.code, c.msg)
		}
	}
}
