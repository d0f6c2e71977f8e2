package app

import (
	"context"
	"log/slog"
	"os"

	"musiccatalog/pkg/httpapi"
	"musiccatalog/pkg/lambdarun"
)

// MustOpenAWS is the start of every Lambda main: configuration from the
// environment, a logger naming the function, the AWS adapters. It exits
// on error, which Lambda reports as an init failure.
func MustOpenAWS(function string) *Deps {
	cfg, err := FromEnv()
	log := NewLogger(cfg, os.Stdout, function)
	if err != nil {
		log.Error("configuration", slog.Any("error", err))
		os.Exit(1)
	}
	deps, err := OpenAWS(context.Background(), cfg, log)
	if err != nil {
		log.Error("wiring", slog.Any("error", err))
		os.Exit(1)
	}
	return deps
}

// RunHTTPLambda is the whole main of an API function: the group's
// handlers behind the API Gateway adapter.
func RunHTTPLambda(group httpapi.Group) {
	lambdarun.StartHTTP(MustOpenAWS("api-" + string(group)).API().Handler(group))
}
