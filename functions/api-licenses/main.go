// Command api-licenses is the Lambda function of license generation,
// lookup and listing, and of the public license pages (interface.md §4.6,
// §7.3; gaps.md).
package main

import (
	"musiccatalog/pkg/app"
	"musiccatalog/pkg/httpapi"
)

func main() { app.RunHTTPLambda(httpapi.GroupLicenses) }
