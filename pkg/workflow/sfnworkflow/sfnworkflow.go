package sfnworkflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"musiccatalog/pkg/workflow"
)

var _ workflow.Launcher = (*Starter)(nil)

// API is the part of the Step Functions client a Starter uses.
type API interface {
	StartExecution(ctx context.Context, in *sfn.StartExecutionInput, optFns ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error)
}

var _ API = (*sfn.Client)(nil)

// Starter starts executions of configured state machines.
type Starter struct {
	api  API
	arns map[string]string
}

// New returns a Starter; arns maps workflow names (e.g. "recognition") to
// state machine ARNs.
func New(api API, arns map[string]string) *Starter {
	m := make(map[string]string, len(arns))
	for k, v := range arns {
		m[k] = v
	}
	return &Starter{api: api, arns: m}
}

// Start starts an execution named name with input as JSON; a name Step
// Functions already has is success.
func (s *Starter) Start(ctx context.Context, machine, name string, input any) error {
	if err := s.Launch(ctx, machine, name, input); err != nil && !errors.Is(err, workflow.ErrAlreadyStarted) {
		return err
	}
	return nil
}

// Launch is Start, but ExecutionAlreadyExists is workflow.ErrAlreadyStarted.
func (s *Starter) Launch(ctx context.Context, machine, name string, input any) error {
	arn, ok := s.arns[machine]
	if !ok || arn == "" {
		return fmt.Errorf("%w: %s", workflow.ErrUnknownMachine, machine)
	}
	body, err := json.Marshal(input)
	if err != nil {
		return fmt.Errorf("sfnworkflow: input: %w", err)
	}
	_, err = s.api.StartExecution(ctx, &sfn.StartExecutionInput{
		StateMachineArn: aws.String(arn),
		Name:            aws.String(name),
		Input:           aws.String(string(body)),
	})
	var exists *types.ExecutionAlreadyExists
	if errors.As(err, &exists) {
		return fmt.Errorf("sfnworkflow: %s/%s: %w", machine, name, workflow.ErrAlreadyStarted)
	}
	if err != nil {
		return fmt.Errorf("sfnworkflow: start %s/%s: %w", machine, name, err)
	}
	return nil
}
