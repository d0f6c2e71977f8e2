// Package workflow is the port for starting durable background workflows:
// Step Functions state machines on AWS (sfnworkflow) and an in-process
// runner that executes the same state-machine definitions locally
// (localworkflow).
//
// A start is named: the execution name makes it idempotent, so a retried
// request or a recovery after a crash never runs a workflow twice at once.
// Task errors are named the way the Lambda Go runtime names them (the
// error's type name, see ErrorName), which is what the definitions' Retry
// and Catch rules match on; TransientError marks failures worth a retry.
package workflow
