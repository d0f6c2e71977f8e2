// Command recognition-extract is the Extract task of the recognition
// state machine: decode the video's audio, detect music, fingerprint it.
package main

import (
	"musiccatalog/pkg/app/recognitionapp"
	"musiccatalog/pkg/recognition"
)

func main() { recognitionapp.RunTaskLambda(recognition.FnExtract) }
