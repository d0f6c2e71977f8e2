// Package lambdarun adapts Lambda events to the service's code, so that a
// Lambda main only wires:
//
//   - API Gateway HTTP API (payload 2.0) requests to the same http.Handler
//     the devserver serves (NewHTTPHandler);
//   - Step Functions task invocations to a TaskFunc over raw JSON, keeping
//     the error type names the state machines' Retry and Catch rules match
//     (NewTaskHandler);
//   - SQS batches carrying S3 event notifications to a function per
//     created object, with partial batch failures (NewS3QueueHandler).
//
// It knows no domain package: what a task or an object means is the
// caller's business (pkg/app).
package lambdarun
