// Package lambdarun adapts Lambda events to the service's code: API
// Gateway HTTP API (payload 2.0) requests to the same http.Handler the
// devserver serves, and (as they appear) SQS, S3 and Step Functions events
// to task functions.
package lambdarun
