// Package sfnworkflow starts workflows as AWS Step Functions executions.
// The state machine of each workflow name is configured by ARN; the
// execution name is the caller's (a job id), so a start that Step
// Functions already knows (ExecutionAlreadyExists) is the idempotent
// success the workflow port promises.
package sfnworkflow
