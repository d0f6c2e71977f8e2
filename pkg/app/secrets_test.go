package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/ssm/types"
)

// fakeParameters is SSM Parameter Store holding SecureStrings by name.
type fakeParameters map[string]string

func (f fakeParameters) GetParameter(_ context.Context, in *ssm.GetParameterInput, _ ...func(*ssm.Options)) (*ssm.GetParameterOutput, error) {
	if !aws.ToBool(in.WithDecryption) {
		return nil, errors.New("SecureString read without decryption")
	}
	v, ok := f[aws.ToString(in.Name)]
	if !ok {
		return nil, &types.ParameterNotFound{}
	}
	return &ssm.GetParameterOutput{Parameter: &types.Parameter{Name: in.Name, Value: aws.String(v)}}, nil
}

func TestResolveSecrets(t *testing.T) {
	params := fakeParameters{
		"/mc/acrcloud": `{"access_key":"ak","access_secret":"s3cret"}`,
		"/mc/broken":   `{"access_key":"ak"}`,
	}
	ctx := context.Background()

	cfg := Config{ACRCloudHost: "https://identify.example", ACRCloudCredentialsParameter: "/mc/acrcloud"}
	if err := resolveSecrets(ctx, &cfg, params); err != nil || cfg.ACRCloudAccessKey != "ak" || cfg.ACRCloudAccessSecret != "s3cret" {
		t.Fatalf("resolved %q %q: %v", cfg.ACRCloudAccessKey, cfg.ACRCloudAccessSecret, err)
	}
	if out, err := outsideRecognizer(cfg); err != nil || out == nil {
		t.Errorf("outside recognizer with resolved credentials: %v %v", out, err)
	}

	// Without a parameter the environment's values stand (local runs).
	local := Config{ACRCloudAccessKey: "env-key"}
	if err := resolveSecrets(ctx, &local, params); err != nil || local.ACRCloudAccessKey != "env-key" {
		t.Errorf("no parameter: %q %v", local.ACRCloudAccessKey, err)
	}
	// A missing or malformed parameter fails the init, naming the parameter
	// but never a value.
	for _, name := range []string{"/mc/missing", "/mc/broken"} {
		c := Config{ACRCloudCredentialsParameter: name}
		err := resolveSecrets(ctx, &c, params)
		if err == nil || !strings.Contains(err.Error(), name) || strings.Contains(err.Error(), "ak") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
