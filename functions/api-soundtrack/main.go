// Command api-soundtrack is the Lambda function of soundtrack videos:
// upload URL, create (file, storage key or link; analyzed on the spot) and
// retrieve (interface.md §4.1, §2.3; gaps.md).
package main

import (
	"musiccatalog/pkg/app/core"
	"musiccatalog/pkg/app/renderapp"
	"musiccatalog/pkg/httpapi"
)

func main() { core.RunHTTPLambda(httpapi.GroupSoundtrack, renderapp.Wiring) }
