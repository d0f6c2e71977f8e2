// Command recognition-prepare is the S3 upload trigger of recognition
// (S3 → SQS → Lambda): it extracts and fingerprints a video uploaded under
// video-recognition/ before it is submitted, so the job reuses the work.
package main

import "musiccatalog/pkg/app/recognitionapp"

func main() { recognitionapp.RunPrepareLambda() }
