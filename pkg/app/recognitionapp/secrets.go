package recognitionapp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"musiccatalog/pkg/app/core"
)

// parameterReader reads one SSM parameter, decrypting a SecureString.
type parameterReader interface {
	GetParameter(ctx context.Context, in *ssm.GetParameterInput, opts ...func(*ssm.Options)) (*ssm.GetParameterOutput, error)
}

var _ parameterReader = (*ssm.Client)(nil)

// acrCloudCredentials is the JSON document the SecureString parameter
// ACRCLOUD_CREDENTIALS_PARAMETER names holds.
type acrCloudCredentials struct {
	AccessKey    string `json:"access_key"`
	AccessSecret string `json:"access_secret"`
}

// ResolveSecrets fills the ACRCloud credentials from SSM Parameter Store
// when ACRCLOUD_CREDENTIALS_PARAMETER names a parameter: read once at
// init (OpenAWS; only the recognition functions use it, and only they
// link the SSM client), so the secret never sits in the function's environment (where the
// console and GetFunctionConfiguration show it).
func ResolveSecrets(ctx context.Context, cfg *core.Config, params parameterReader) error {
	if cfg.ACRCloudCredentialsParameter == "" {
		return nil
	}
	out, err := params.GetParameter(ctx, &ssm.GetParameterInput{
		Name: aws.String(cfg.ACRCloudCredentialsParameter), WithDecryption: aws.Bool(true),
	})
	if err != nil {
		return fmt.Errorf("ACRCLOUD_CREDENTIALS_PARAMETER %s: %w", cfg.ACRCloudCredentialsParameter, err)
	}
	var c acrCloudCredentials
	if out.Parameter == nil || out.Parameter.Value == nil || json.Unmarshal([]byte(*out.Parameter.Value), &c) != nil ||
		c.AccessKey == "" || c.AccessSecret == "" {
		return fmt.Errorf(`ACRCLOUD_CREDENTIALS_PARAMETER %s: want {"access_key":"…","access_secret":"…"}`, cfg.ACRCloudCredentialsParameter)
	}
	cfg.ACRCloudAccessKey, cfg.ACRCloudAccessSecret = c.AccessKey, c.AccessSecret
	return nil
}
