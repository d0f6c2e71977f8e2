// Package localworkflow runs Amazon States Language definitions in process:
// the devserver's stand-in for Step Functions. It executes the very
// definitions deployed to AWS (infra/statemachines/*.asl.json), so the
// local order of tasks, their retries and their catch paths are the
// deployed ones.
//
// The subset it runs is what our machines use: Task (Resource, Parameters
// with "key.$" paths, ResultPath, TimeoutSeconds, Retry, Catch), Pass,
// Succeed and Fail states, and JSONPaths of the form "$" or "$.a.b".
// Register refuses anything else, so a definition that uses more fails
// loudly instead of running differently. Task resources are resolved
// like SAM's DefinitionSubstitutions: "${Name}" placeholders are replaced
// by the values given to Register (locally, a function name), and each
// resource is served by the Handler registered for it. Errors are named
// as the Lambda Go runtime names them (workflow.ErrorName), and a caught
// error reaches its handler as {"Error", "Cause"} with the Lambda-shaped
// Cause, so catch handlers parse one format everywhere.
//
// Executions run on a bounded pool of workers. Start is idempotent by
// execution name; retry delays are scaled down (WithRetryScale) so local
// runs do not wait out production back-off, while task timeouts are kept.
package localworkflow
