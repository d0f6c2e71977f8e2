package admin

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"musiccatalog/pkg/app"
	"musiccatalog/pkg/errs"
	"musiccatalog/pkg/identity"
)

const usage = `usage: admin [--aws [--stack NAME]] COMMAND ...

  clients create --name N --plan free|subscriber|commercial|enterprise [--scopes a,b]
                 [--can-download] [--sfx] [--recognition-daily-cap N]
                 [--license-burst N --license-daily N --license-monthly N]
  clients revoke --client ID          revoke every key and user token a client has been issued so far
  clients revoke --key KEY            revoke one key or token
  clients deactivate --client ID
  clients activate --client ID
  users create --client ID --username U --name N
  tokens create (--user ID | --client ID) [--expires 720h]
  report downloads --client ID --month YYYY-MM   download counts per asset as CSV
  ingest MANIFEST [--replace] [--workers N]   ingest a catalog manifest (JSON Lines)
  demo [--tracks N] [--seed S] [--if-empty]   generate and ingest the demo catalog
  bootstrap                           create the TABLE_* tables and the BUCKET bucket
                                      (with --aws; for LocalStack and other stacks without CloudFormation)
  outside-serve --manifest M --addr HOST:PORT --access-key K --access-secret S
                 serve the ACRCloud identify protocol over the manifest's tracks
                 (a local outside recognizer: ACRCLOUD_HOST=http://HOST:PORT)

Local by default (DATA_DIR, default ./.data); --aws uses DynamoDB tables
from TABLE_* and the standard AWS environment; --stack NAME takes the
tables, bucket and state machine from the outputs of that deployed stack.
`

// Run executes one command and returns the process exit code.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	useAWS := false
	if len(args) > 0 && args[0] == "--aws" {
		useAWS, args = true, args[1:]
		if len(args) >= 2 && args[0] == "--stack" {
			if err := useStack(ctx, args[1]); err != nil {
				fmt.Fprintln(stderr, "admin:", err)
				return 1
			}
			args = args[2:]
		}
	}
	name, rest := "", []string(nil)
	switch {
	case len(args) >= 1 && singleWord[args[0]]:
		name, rest = args[0], args[1:]
	case len(args) >= 2:
		name, rest = args[0]+" "+args[1], args[2:]
	default:
		fmt.Fprint(stderr, usage)
		return 2
	}
	cfg, err := app.FromEnv()
	if err != nil {
		fmt.Fprintln(stderr, "admin:", err)
		return 1
	}
	log := app.NewLogger(cfg, stderr, "admin")
	if name == "outside-serve" {
		// No store: it runs beside a devserver that holds DATA_DIR.
		err = outsideServe(ctx, cfg, log, rest)
	} else if name == "bootstrap" {
		err = bootstrap(ctx, cfg, useAWS, stdout)
	} else {
		var deps *app.Deps
		if useAWS {
			deps, err = app.OpenAWS(ctx, cfg, log)
		} else {
			deps, err = app.OpenLocal(cfg, log)
		}
		if err != nil {
			fmt.Fprintln(stderr, "admin:", err)
			return 1
		}
		defer deps.Close()
		c := &cmd{deps: deps, out: stdout, errOut: stderr}
		err = c.dispatch(ctx, name, rest)
	}
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "admin: %s\n\n%s", ue, usage)
		return 2
	default:
		fmt.Fprintln(stderr, "admin:", describe(err))
		return 1
	}
}

type usageError string

func (u usageError) Error() string { return string(u) }

// describe shows an operator the client-facing text of a service error.
func describe(err error) string {
	var e *errs.Error
	if errors.As(err, &e) && e.Kind != errs.Internal {
		if len(e.Fields) > 0 {
			var parts []string
			for f, msgs := range e.Fields {
				parts = append(parts, "--"+strings.ReplaceAll(f, "_", "-")+": "+strings.Join(msgs, " "))
			}
			return strings.Join(parts, "; ")
		}
		return e.Detail
	}
	return err.Error()
}

// singleWord are the commands without a sub-command.
var singleWord = map[string]bool{"ingest": true, "demo": true, "outside-serve": true, "bootstrap": true}

type cmd struct {
	deps   *app.Deps
	out    io.Writer
	errOut io.Writer // progress bars
}

func (c *cmd) dispatch(ctx context.Context, name string, args []string) error {
	switch name {
	case "clients create":
		return c.clientsCreate(ctx, args)
	case "clients revoke":
		return c.clientsRevoke(ctx, args)
	case "clients deactivate":
		return c.clientsStatus(ctx, args, identity.StatusInactive)
	case "clients activate":
		return c.clientsStatus(ctx, args, identity.StatusActive)
	case "users create":
		return c.usersCreate(ctx, args)
	case "tokens create":
		return c.tokensCreate(ctx, args)
	case "report downloads":
		return c.reportDownloads(ctx, args)
	case "ingest":
		return c.ingest(ctx, args)
	case "demo":
		return c.demo(ctx, args)
	}
	return usageError("unknown command " + name)
}

func parse(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		return usageError(err.Error())
	}
	if fs.NArg() > 0 {
		return usageError("unexpected argument " + fs.Arg(0))
	}
	return nil
}

// parseWithArg parses flags around one positional argument.
func parseWithArg(fs *flag.FlagSet, args []string, what string) (string, error) {
	var pos []string
	for len(args) > 0 {
		fs.SetOutput(io.Discard)
		if err := fs.Parse(args); err != nil {
			return "", usageError(err.Error())
		}
		if fs.NArg() == 0 {
			break
		}
		pos, args = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
	if len(pos) != 1 {
		return "", usageError("give exactly one " + what)
	}
	return pos[0], nil
}

func (c *cmd) clientsCreate(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("clients create", flag.ContinueOnError)
	name := fs.String("name", "", "")
	plan := fs.String("plan", "", "")
	scopes := fs.String("scopes", "", "")
	canDownload := fs.Bool("can-download", false, "")
	sfx := fs.Bool("sfx", false, "")
	var q identity.Quotas
	fs.Int64Var(&q.RecognitionDailyCap, "recognition-daily-cap", 0, "")
	fs.Int64Var(&q.LicenseBurst, "license-burst", 0, "")
	fs.Int64Var(&q.LicenseDaily, "license-daily", 0, "")
	fs.Int64Var(&q.LicenseMonthly, "license-monthly", 0, "")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *name == "" || *plan == "" {
		return usageError("--name and --plan are required")
	}
	var sc []string
	for _, s := range strings.Split(*scopes, ",") {
		if s = strings.TrimSpace(s); s != "" {
			sc = append(sc, s)
		}
	}
	cl, key, err := c.deps.Identity.CreateClient(ctx, identity.NewClient{Name: *name, Plan: identity.Plan(*plan),
		Scopes: sc, CanDownload: *canDownload, SFXEnabled: *sfx, Quotas: q})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.out, "client_id %s\nkey %s\n", cl.ID, key)
	return nil
}

func (c *cmd) clientsRevoke(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("clients revoke", flag.ContinueOnError)
	client := fs.String("client", "", "")
	key := fs.String("key", "", "")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case (*client == "") == (*key == ""):
		return usageError("give exactly one of --client or --key")
	case *key != "":
		if err := c.deps.Identity.RevokeToken(ctx, *key); err != nil {
			return err
		}
		fmt.Fprintln(c.out, "revoked 1 token")
	default:
		n, err := c.deps.Identity.RevokeClientTokens(ctx, *client)
		if err != nil {
			return err
		}
		// The count is what the token index listed; the revocation covers
		// every token issued before it, listed or not (identity.RevokeClientTokens).
		fmt.Fprintf(c.out, "revoked %d tokens; every token of the client issued until now is refused "+
			"(by running API instances within TOKEN_CACHE_TTL); tokens created from now on work\n", n)
	}
	return nil
}

func (c *cmd) clientsStatus(ctx context.Context, args []string, st identity.Status) error {
	fs := flag.NewFlagSet("clients status", flag.ContinueOnError)
	client := fs.String("client", "", "")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *client == "" {
		return usageError("--client is required")
	}
	if err := c.deps.Identity.SetClientStatus(ctx, *client, st); err != nil {
		return err
	}
	fmt.Fprintf(c.out, "client %s is %s\n", *client, st)
	return nil
}

func (c *cmd) usersCreate(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("users create", flag.ContinueOnError)
	client := fs.String("client", "", "")
	username := fs.String("username", "", "")
	name := fs.String("name", "", "")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *client == "" || *username == "" {
		return usageError("--client and --username are required")
	}
	u, tok, err := c.deps.Identity.CreateUser(ctx, *client, *username, *name)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.out, "user_id %s\ntoken %s\n", u.ID, tok)
	return nil
}

func (c *cmd) tokensCreate(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("tokens create", flag.ContinueOnError)
	user := fs.String("user", "", "")
	client := fs.String("client", "", "")
	expires := fs.Duration("expires", 0, "")
	if err := parse(fs, args); err != nil {
		return err
	}
	if (*user == "") == (*client == "") {
		return usageError("give exactly one of --user or --client")
	}
	var exp time.Time
	if *expires > 0 {
		exp = c.deps.Clock.Now().Add(*expires)
	}
	tok, err := c.deps.Identity.CreateToken(ctx, *client, *user, exp)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.out, "token %s\n", tok)
	return nil
}
