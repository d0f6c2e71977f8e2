// Package statemachines embeds the Step Functions definitions that
// template.yaml deploys, so the in-process workflow runner executes the
// very same documents.
package statemachines

import _ "embed"

// Recognition is the recognition pipeline (DESIGN.md §5).
//
//go:embed recognition.asl.json
var Recognition []byte

// ZIP builds the archive of a ZIP audio download (interface.md §3.2).
//
//go:embed zip.asl.json
var ZIP []byte

// Render is the soundtrack render (interface.md §3.2; DESIGN.md §5).
//
//go:embed render.asl.json
var Render []byte
