// Package statemachines embeds the Step Functions definitions that
// template.yaml deploys, so the in-process workflow runner executes the
// very same documents.
package statemachines

import _ "embed"

// Recognition is the recognition pipeline (DESIGN.md §5).
//
//go:embed recognition.asl.json
var Recognition []byte

// Render is the soundtrack render (interface.md §3.2; DESIGN.md §5).
//
//go:embed render.asl.json
var Render []byte
