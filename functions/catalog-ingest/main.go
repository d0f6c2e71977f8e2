// Command catalog-ingest is the Lambda function that ingests a catalog
// manifest uploaded under catalog-manifests/ (DESIGN.md §4).
package main

import "musiccatalog/pkg/app/ingestapp"

func main() { ingestapp.RunLambda() }
