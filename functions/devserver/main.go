// Command devserver serves every endpoint group on one port with embedded
// stand-ins for DynamoDB and S3 (make run). It is never deployed.
package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"musiccatalog/pkg/app"
)

func main() {
	cfg, err := app.FromEnv()
	log := app.NewLogger(cfg, os.Stderr, "devserver")
	if err != nil {
		log.Error("configuration", slog.Any("error", err))
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := app.RunDevserver(ctx, cfg, log); err != nil {
		log.Error("devserver", slog.Any("error", err))
		os.Exit(1)
	}
}
