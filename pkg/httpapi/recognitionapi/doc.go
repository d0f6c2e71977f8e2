// Package recognitionapi is the HTTP surface of video recognition
// (interface.md §4.5): upload URLs, submits and polls. It is apart from
// package httpapi because the recognition domain links the audio engine,
// which no other group's function should carry.
package recognitionapi
