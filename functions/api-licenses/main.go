// Command api-licenses is the Lambda function of license generation,
// lookup and listing, and of the public license pages (interface.md §4.6,
// §7.3; gaps.md).
package main

import (
	"musiccatalog/pkg/app/core"
	"musiccatalog/pkg/app/licensesapp"
	"musiccatalog/pkg/httpapi"
)

func main() { core.RunHTTPLambda(httpapi.GroupLicenses, licensesapp.Wiring) }
