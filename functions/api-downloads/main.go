// Command api-downloads is the Lambda function of the audio download
// endpoints (interface.md §4.4).
package main

import (
	"musiccatalog/pkg/app/core"
	"musiccatalog/pkg/app/downloadsapp"
	"musiccatalog/pkg/httpapi"
)

func main() { core.RunHTTPLambda(httpapi.GroupDownloads, downloadsapp.Wiring) }
