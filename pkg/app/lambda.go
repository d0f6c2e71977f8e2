package app

import (
	"context"
	"log/slog"
	"os"

	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/lambdarun"
)

// RunHTTPLambda is the whole main of an API function: configuration from
// the environment, AWS adapters, the group's handlers, lambda.Start.
func RunHTTPLambda(group httpapi.Group) {
	cfg, err := FromEnv()
	log := NewLogger(cfg, os.Stdout, "api-"+string(group))
	if err != nil {
		log.Error("configuration", slog.Any("error", err))
		os.Exit(1)
	}
	deps, err := OpenAWS(context.Background(), cfg, log)
	if err != nil {
		log.Error("wiring", slog.Any("error", err))
		os.Exit(1)
	}
	lambdarun.StartHTTP(deps.API().Handler(group))
}
