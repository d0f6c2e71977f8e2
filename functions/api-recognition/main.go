// Command api-recognition is the Lambda function of music recognition
// (interface.md §4.5): upload URL, submit, poll.
package main

import (
	"musiccatalog/pkg/app/core"
	"musiccatalog/pkg/app/recognitionapp"
	"musiccatalog/pkg/httpapi"
)

func main() { core.RunHTTPLambda(httpapi.GroupRecognition, recognitionapp.Wiring) }
