// Package searchapi is the HTTP surface of the search rankings
// (interface.md §4.2: by-text, by-prompt, by-id, by-url, by-video). It is
// apart from package httpapi because ranking links the text engine (bleve)
// and the audio analysis, which no other group's function should carry.
package searchapi
