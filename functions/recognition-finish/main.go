// Command recognition-finish is the Finish task of the recognition state
// machine (segments, cleared, suggestions, track) and its MarkFailed
// catch path (failed=true ends the job as failed).
package main

import (
	"musiccatalog/pkg/app/recognitionapp"
	"musiccatalog/pkg/recognition"
)

func main() { recognitionapp.RunTaskLambda(recognition.FnFinish) }
