// Command build-zip is the task of the ZIP build state machine
// (infra/statemachines/zip.asl.json): it streams an asset's renditions
// into one archive in the media bucket, and with failed=true (the Catch
// path) records why a build failed.
package main

import "musiccatalog/pkg/app/downloadsapp"

func main() { downloadsapp.RunBuildLambda() }
