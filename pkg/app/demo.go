package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"musiccatalog/pkg/identity"
)

// DemoCredentials is the file the devserver writes on first start
// (DATA_DIR/demo-credentials.json).
type DemoCredentials struct {
	Partner struct {
		ClientID string `json:"client_id"`
		Key      string `json:"key"`
	} `json:"partner"`
	User struct {
		UserID   string `json:"user_id"`
		Username string `json:"username"`
		Token    string `json:"token"`
	} `json:"user"`
}

// DemoCredentialsFile is where EnsureDemo keeps the demo tokens.
func DemoCredentialsFile(cfg Config) string {
	return filepath.Join(cfg.DataDir, "demo-credentials.json")
}

// EnsureDemo makes sure a demo partner client (every scope, enterprise
// plan, downloads and sound effects on) and a demo user exist and that
// their tokens are in DemoCredentialsFile. Existing, still valid
// credentials are kept, so restarts do not change the keys.
func EnsureDemo(ctx context.Context, d *Deps) (DemoCredentials, error) {
	path := DemoCredentialsFile(d.Config)
	var creds DemoCredentials
	if b, err := os.ReadFile(path); err == nil && json.Unmarshal(b, &creds) == nil {
		_, perr := d.Identity.Authenticate(ctx, creds.Partner.Key)
		_, uerr := d.Identity.Authenticate(ctx, creds.User.Token)
		if perr == nil && uerr == nil {
			return creds, nil
		}
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return creds, err
	}
	c, key, err := d.Identity.CreateClient(ctx, identity.NewClient{
		Name: "Demo Partner", Plan: identity.PlanEnterprise, Scopes: identity.AllScopes,
		CanDownload: true, SFXEnabled: true,
		Quotas: identity.Quotas{RecognitionDailyCap: 1000, LicenseBurst: 60, LicenseDaily: 1000, LicenseMonthly: 30000},
	})
	if err != nil {
		return creds, fmt.Errorf("create demo client: %w", err)
	}
	username := "demo"
	if _, err := d.Identity.FindUserByUsername(ctx, username); err == nil {
		username = "demo-" + c.ID[:8] // an older demo user exists; keep names unique
	}
	u, tok, err := d.Identity.CreateUser(ctx, c.ID, username, "Demo User")
	if err != nil {
		return creds, fmt.Errorf("create demo user: %w", err)
	}
	creds.Partner.ClientID, creds.Partner.Key = c.ID, key
	creds.User.UserID, creds.User.Username, creds.User.Token = u.ID, u.Username, tok
	b, _ := json.MarshalIndent(creds, "", "  ")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return creds, err
	}
	return creds, os.Rename(tmp, path)
}
