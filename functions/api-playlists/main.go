// Command api-playlists is the Lambda function of the playlist endpoints
// (interface.md §4.7) and the track listing by playlist (§4.3).
package main

import (
	"musiccatalog/pkg/app"
	"musiccatalog/pkg/httpapi"
)

func main() { app.RunHTTPLambda(httpapi.GroupPlaylists) }
