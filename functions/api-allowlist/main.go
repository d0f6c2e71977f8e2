// Command api-allowlist is the Lambda function of the channel allowlist
// endpoints (interface.md §4.8).
package main

import (
	"musiccatalog/pkg/app/core"
	"musiccatalog/pkg/httpapi"
)

func main() { core.RunHTTPLambda(httpapi.GroupAllowlist, core.Wiring{}) }
