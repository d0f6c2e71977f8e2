// Package render mixes a catalog track into an uploaded soundtrack video
// (interface.md §3.2, §4.1 render, §6): the first request for a cache key
// (video id + track + volumes + start) creates the build record with a
// conditional write and starts the render state machine
// (infra/statemachines/render.asl.json); repeats answer 202 while it runs
// and 200 with a signed URL once it is built. The build-render task runs
// ffmpeg (Mixer), stores the result and, when the caller asked for it,
// queues one email per render for the mailer (package mail).
//
// A build that fails ends `failed` with a reason; the next identical
// request answers 500 once with that reason and the one after starts a
// fresh build, so nobody polls a 202 forever. A record still building
// after BuildDeadline counts as failed (its workflow was lost).
package render
