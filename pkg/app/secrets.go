package app

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"musiccatalog/pkg/app/core"
	"musiccatalog/pkg/app/recognitionapp"
	"musiccatalog/pkg/outside"
)

// resolveSecrets is core.ResolveSecrets (core.OpenAWS calls it at init).
func resolveSecrets(ctx context.Context, cfg *Config, params interface {
	GetParameter(ctx context.Context, in *ssm.GetParameterInput, opts ...func(*ssm.Options)) (*ssm.GetParameterOutput, error)
}) error {
	return core.ResolveSecrets(ctx, cfg, params)
}

// outsideRecognizer is recognitionapp.OutsideRecognizer.
func outsideRecognizer(cfg Config) (outside.Recognizer, error) {
	return recognitionapp.OutsideRecognizer(cfg)
}
