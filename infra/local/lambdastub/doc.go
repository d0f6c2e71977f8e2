// Package lambdastub is the Lambda and Step Functions stand-in of the local
// AWS integration tier (DESIGN.md §7; no Docker on these machines).
//
// It reads template.yaml the way CloudFormation and SAM would — Globals,
// parameters, conditions, !Ref/!GetAtt/!Sub/!If — and runs what the stack
// declares around the stand-ins of the other services (DynamoDB Local,
// versitygw for S3, fauxqs for SQS):
//
//   - the functions: the real `bootstrap` binaries, built for the host,
//     each instance a process speaking the Lambda Runtime API to us, with
//     the template's environment, memory (GOMAXPROCS from the vCPU share
//     the memory buys), timeout and reserved concurrency, and Lambda's
//     error shapes (errorType/errorMessage; Sandbox.Timedout on timeout,
//     Runtime.ExitError when the process dies);
//   - the Lambda Invoke API (RequestResponse and Event) that the state
//     machine runner calls through AWS_ENDPOINT_URL_LAMBDA;
//   - the Step Functions API (StartExecution, DescribeExecution) over the
//     template's state machines, after its DefinitionSubstitutions, run by
//     aws-local-stepfunctions (`local-sfn`), one process per execution;
//   - the SQS event sources (batch size, ReportBatchItemFailures; the
//     queue's visibility timeout and redrive policy do the rest, as on AWS);
//   - S3 event notifications of the bucket (queue and function targets,
//     prefix/suffix filters), raised by Notify for an object just written.
//
// Provision creates the stack's tables, bucket and queues on the stand-ins.
// Nothing here imports the service's packages: it runs the binaries.
package lambdastub
