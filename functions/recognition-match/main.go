// Command recognition-match is the Match task of the recognition state
// machine: the catalog timeline over the catalog's fingerprint index.
package main

import (
	"musiccatalog/pkg/app/recognitionapp"
	"musiccatalog/pkg/recognition"
)

func main() { recognitionapp.RunTaskLambda(recognition.FnMatch) }
