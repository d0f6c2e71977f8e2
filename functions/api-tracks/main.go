// Command api-tracks is the Lambda function of track detail, the stream
// proxy and waveforms (interface.md §4.2 stream, §4.3; gaps.md waveforms).
package main

import (
	"musiccatalog/pkg/app/core"
	"musiccatalog/pkg/blob/s3blob"
	"musiccatalog/pkg/httpapi"
)

func main() { core.RunHTTPLambda(httpapi.GroupTracks, core.Wiring{Blob: s3blob.Open}) }
