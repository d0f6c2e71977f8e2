// Package soundtrackapi is the HTTP surface of soundtrack videos
// (interface.md §4.1). It is apart from package httpapi because the
// soundtrack domain links the audio engine, which no other group's
// function should carry.
package soundtrackapi
