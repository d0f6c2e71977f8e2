// Command recognition-external is the External task of the recognition
// state machine: outside recognition (ACRCLOUD_*) of the music the
// catalog did not explain.
package main

import (
	"musiccatalog/pkg/app/recognitionapp"
	"musiccatalog/pkg/recognition"
)

func main() { recognitionapp.RunTaskLambda(recognition.FnExternal) }
