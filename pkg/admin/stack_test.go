package admin

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation/types"
	yaml "github.com/oasdiff/yaml3"
)

type fakeStacks map[string]map[string]string

func (f fakeStacks) DescribeStacks(_ context.Context, in *cloudformation.DescribeStacksInput, _ ...func(*cloudformation.Options)) (*cloudformation.DescribeStacksOutput, error) {
	outs, ok := f[aws.ToString(in.StackName)]
	if !ok {
		return &cloudformation.DescribeStacksOutput{}, nil
	}
	var s types.Stack
	for k, v := range outs {
		s.Outputs = append(s.Outputs, types.Output{OutputKey: aws.String(k), OutputValue: aws.String(v)})
	}
	return &cloudformation.DescribeStacksOutput{Stacks: []types.Stack{s}}, nil
}

func TestStackEnv(t *testing.T) {
	full := map[string]string{"ApiUrl": "https://x"}
	for k := range StackOutputEnv {
		full[k] = "value-of-" + k
	}
	partial := map[string]string{"MediaBucketName": "b"}
	cf := fakeStacks{"prod": full, "old": partial}
	env, err := stackEnv(context.Background(), cf, "prod")
	if err != nil || env["TABLE_ACCOUNTS"] != "value-of-TableAccounts" || env["BUCKET"] != "value-of-MediaBucketName" ||
		env["RECOGNITION_STATE_MACHINE_ARN"] != "value-of-RecognitionStateMachineArn" || len(env) != len(StackOutputEnv) {
		t.Errorf("env %v: %v", env, err)
	}
	if _, err := stackEnv(context.Background(), cf, "old"); err == nil || !strings.Contains(err.Error(), "has no output") {
		t.Errorf("partial stack: %v", err)
	}
	if _, err := stackEnv(context.Background(), cf, "nope"); err == nil {
		t.Error("missing stack accepted")
	}
}

// TestTemplateHasStackOutputs: template.yaml declares every output admin
// reads.
func TestTemplateHasStackOutputs(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	outputs := map[string]bool{}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "Outputs" {
			o := root.Content[i+1]
			for j := 0; j+1 < len(o.Content); j += 2 {
				outputs[o.Content[j].Value] = true
			}
		}
	}
	for k := range StackOutputEnv {
		if !outputs[k] {
			t.Errorf("template.yaml has no output %s", k)
		}
	}
}
