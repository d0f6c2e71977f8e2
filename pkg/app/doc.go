// Package app reads the configuration from the environment and wires the
// services for one of two worlds: AWS (DynamoDB, S3) for the Lambda
// functions, or local (bbolt, files with signed URLs) for the devserver
// and the admin CLI. Everything above it is the same code in both.
package app
