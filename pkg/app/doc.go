// Package app wires every endpoint group together for one of two worlds:
// AWS (DynamoDB, S3, Step Functions) for the admin CLI, or local (bbolt,
// files with signed URLs, the in-process workflow runner) for the
// devserver and the tests. It builds each group with the constructors of
// that group's package (pkg/app/core, searchapp, soundtrackapp,
// recognitionapp, ingestapp), which the Lambda mains use one group at a
// time: a Lambda function never imports this package, so it links only
// its own group (TestFunctionImports).
package app
