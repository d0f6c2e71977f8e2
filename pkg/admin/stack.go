package admin

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"

	"musiccatalog/pkg/store"
)

// StackOutputEnv maps the stack outputs (template.yaml Outputs) that
// `admin --aws --stack NAME` reads to the variables app.FromEnv takes
// them from: the tables, the bucket and the state machine.
var StackOutputEnv = func() map[string]string {
	m := map[string]string{"MediaBucketName": "BUCKET", "RecognitionStateMachineArn": "RECOGNITION_STATE_MACHINE_ARN"}
	for _, t := range store.AllTables {
		m["Table"+string(t)] = "TABLE_" + strings.ToUpper(string(t))
	}
	return m
}()

// stackDescriber is the CloudFormation call the stack lookup needs.
type stackDescriber interface {
	DescribeStacks(ctx context.Context, in *cloudformation.DescribeStacksInput, opts ...func(*cloudformation.Options)) (*cloudformation.DescribeStacksOutput, error)
}

var _ stackDescriber = (*cloudformation.Client)(nil)

// stackEnv returns the variables the named stack's outputs give; an
// output that StackOutputEnv needs and the stack lacks is an error.
func stackEnv(ctx context.Context, cf stackDescriber, name string) (map[string]string, error) {
	out, err := cf.DescribeStacks(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String(name)})
	if err != nil {
		return nil, fmt.Errorf("stack %s: %w", name, err)
	}
	if len(out.Stacks) != 1 {
		return nil, fmt.Errorf("stack %s: not found", name)
	}
	env := map[string]string{}
	for _, o := range out.Stacks[0].Outputs {
		if v, ok := StackOutputEnv[aws.ToString(o.OutputKey)]; ok {
			env[v] = aws.ToString(o.OutputValue)
		}
	}
	for k, v := range StackOutputEnv {
		if env[v] == "" {
			return nil, fmt.Errorf("stack %s has no output %s (deployed from an older template?)", name, k)
		}
	}
	return env, nil
}

// useStack sets the environment from the stack's outputs (the standard
// AWS environment picks the account and region).
func useStack(ctx context.Context, name string) error {
	cfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return fmt.Errorf("load AWS config: %w", err)
	}
	env, err := stackEnv(ctx, cloudformation.NewFromConfig(cfg), name)
	if err != nil {
		return err
	}
	for k, v := range env {
		os.Setenv(k, v)
	}
	return nil
}
