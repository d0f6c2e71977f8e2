// Command api-search is the Lambda function of the search endpoints and
// the filter listings (interface.md §4.2).
package main

import (
	"musiccatalog/pkg/app/core"
	"musiccatalog/pkg/app/searchapp"
	"musiccatalog/pkg/httpapi"
)

func main() { core.RunHTTPLambda(httpapi.GroupSearch, searchapp.Wiring) }
