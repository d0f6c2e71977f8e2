package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"musiccatalog/pkg/httpapi"
)

// LocalHandler is every endpoint group plus the local signed-URL endpoint:
// what the devserver serves and what the HTTP tests exercise.
func (d *Deps) LocalHandler() http.Handler {
	rt := d.API().Handler(httpapi.AllGroups...)
	if d.BlobHandler != nil {
		rt.HandleRaw("/_blob/", d.BlobHandler)
	}
	return rt
}

// RunDevserver serves every endpoint group on cfg.Addr with the embedded
// twins until ctx ends, then shuts down gracefully. It logs
// "listening on http://HOST:PORT" once ready.
func RunDevserver(ctx context.Context, cfg Config, log *slog.Logger) error {
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	if os.Getenv("PUBLIC_BASE_URL") == "" {
		cfg.PublicBaseURL = "http://" + addr // the real port when ADDR ends in :0
	}
	if os.Getenv("SITE_URL") == "" {
		cfg.SiteURL = cfg.PublicBaseURL
	}
	deps, err := OpenLocal(cfg, log)
	if err != nil {
		ln.Close()
		return err
	}
	defer deps.Close()
	deps.RecoverJobs(ctx)
	creds, err := EnsureDemo(ctx, deps)
	if err != nil {
		ln.Close()
		return err
	}
	log.Info("demo credentials", slog.String("file", DemoCredentialsFile(cfg)),
		slog.String("partner_client_id", creds.Partner.ClientID), slog.String("partner_key", creds.Partner.Key),
		slog.String("user", creds.User.Username), slog.String("user_token", creds.User.Token))

	srv := newDevHTTPServer(deps.LocalHandler())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	log.Info(fmt.Sprintf("listening on http://%s", addr))
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped")
	return nil
}

// Devserver connection timeouts. A client that stalls cannot hold a
// connection (and the goroutine and buffers behind it) for ever, while a
// legitimate 100 MB upload (interface.md §8) still fits at 0.5 MB/s, and
// its analysis after it.
const (
	devReadHeaderTimeout = 10 * time.Second
	devReadTimeout       = 200 * time.Second // the whole request, body included
	devWriteTimeout      = 10 * time.Minute  // from the end of the headers to the end of the response
	devIdleTimeout       = 2 * time.Minute   // a kept-alive connection between requests
)

// newDevHTTPServer is the devserver's http.Server for h.
func newDevHTTPServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: devReadHeaderTimeout, ReadTimeout: devReadTimeout,
		WriteTimeout: devWriteTimeout, IdleTimeout: devIdleTimeout, MaxHeaderBytes: 64 << 10}
}
