// Command api-recognition is the Lambda function of music recognition
// (interface.md §4.5): upload URL, submit, poll.
package main

import (
	"musiccatalog/pkg/app"
	"musiccatalog/pkg/httpapi"
)

func main() { app.RunHTTPLambda(httpapi.GroupRecognition) }
