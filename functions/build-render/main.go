// Command build-render is the task of the render state machine
// (render.asl.json): it mixes a catalog track into an uploaded video with
// ffmpeg, stores the result and queues its email; with failed=true it is
// the MarkFailed catch path.
package main

import "musiccatalog/pkg/app/renderapp"

func main() { renderapp.RunBuildLambda() }
