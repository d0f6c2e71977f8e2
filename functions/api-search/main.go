// Command api-search is the Lambda function of the search endpoints and
// the filter listings (interface.md §4.2).
package main

import (
	"musiccatalog/pkg/app"
	"musiccatalog/pkg/httpapi"
)

func main() { app.RunHTTPLambda(httpapi.GroupSearch) }
