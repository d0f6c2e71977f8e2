// Command api-downloads is the Lambda function of the audio download
// endpoints (interface.md §4.4).
package main

import (
	"musiccatalog/pkg/app"
	"musiccatalog/pkg/httpapi"
)

func main() { app.RunHTTPLambda(httpapi.GroupDownloads) }
