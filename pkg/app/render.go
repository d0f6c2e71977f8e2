package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"musiccatalog/infra/statemachines"
	"musiccatalog/pkg/app/renderapp"
	"musiccatalog/pkg/mail"
	"musiccatalog/pkg/mail/outboxmail"
	"musiccatalog/pkg/queue/memqueue"
	"musiccatalog/pkg/soundtrack/render"
	"musiccatalog/pkg/workflow/localworkflow"
)

// localMailFrom is the sender of local emails (MAIL_FROM overrides; on
// AWS the stack's MailSender parameter sets it).
const localMailFrom = "Music Catalog <no-reply@localhost>"

// OutboxDir is where the devserver's emails land, one .eml file each.
func (d *Deps) OutboxDir() string { return filepath.Join(d.Config.DataDir, "outbox") }

// startLocalRender runs renders on the in-process runner with the same
// ASL document and task code as build-render, and their emails through an
// in-process queue to the mailer, which writes DATA_DIR/outbox/*.eml.
func (d *Deps) startLocalRender(runner *localworkflow.Runner) error {
	if err := runner.Register(render.Machine, statemachines.Render, render.Substitutions); err != nil {
		return err
	}
	from := os.Getenv("MAIL_FROM")
	if from == "" {
		from = localMailFrom
	}
	mailer := &mail.Mailer{Store: d.Store, Clock: d.Clock, Log: d.Log,
		Sender: &outboxmail.Outbox{Dir: d.OutboxDir(), From: from, Clock: d.Clock}}
	q := memqueue.New(mailer.Handle, d.Log, 0)
	d.closers = append(d.closers, q)
	d.Render = renderapp.New(d.Core, d.Soundtrack, instrumentWorkflow(runner), q)
	runner.Handle(render.FnBuild, func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		if d.Render == nil {
			return nil, &render.BuildError{Code: render.CodeInternal, Detail: "rendering is not configured"}
		}
		return d.Render.HandleTask(ctx, in)
	})
	return nil
}
