package lambdarun

import (
	"context"
	"encoding/json"

	"github.com/aws/aws-lambda-go/lambda"
)

// TaskFunc is a Step Functions task: it gets the state's effective input
// and returns its result (nil for null).
//
// Step Functions matches Retry and Catch rules on the name the Go runtime
// gives a returned error, the name of its dynamic type without the pointer
// (*workflow.TransientError → "TransientError"). A TaskFunc must therefore
// return its typed errors as they are: wrapping one (fmt.Errorf("%w"))
// would rename it "wrapError" and turn a retried error into a failed job.
type TaskFunc func(ctx context.Context, input json.RawMessage) (json.RawMessage, error)

// NewTaskHandler is the Lambda handler of a task function: the exact
// handler lambda.Start runs, so tests invoke what Lambda invokes.
func NewTaskHandler(fn TaskFunc) lambda.Handler { return lambda.NewHandler(fn) }

// StartTask serves fn as the Lambda function's handler; it never returns.
func StartTask(fn TaskFunc) { lambda.Start(fn) }
