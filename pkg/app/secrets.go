package app

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"musiccatalog/pkg/app/recognitionapp"
	"musiccatalog/pkg/outside"
)

// resolveSecrets is recognitionapp.ResolveSecrets (OpenAWS calls it at init).
func resolveSecrets(ctx context.Context, cfg *Config, params interface {
	GetParameter(ctx context.Context, in *ssm.GetParameterInput, opts ...func(*ssm.Options)) (*ssm.GetParameterOutput, error)
}) error {
	return recognitionapp.ResolveSecrets(ctx, cfg, params)
}

// outsideRecognizer is recognitionapp.OutsideRecognizer.
func outsideRecognizer(cfg Config) (outside.Recognizer, error) {
	return recognitionapp.OutsideRecognizer(cfg)
}
