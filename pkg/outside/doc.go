// Package outside is the port to outside music-recognition services, the
// fallback tier of recognition for music the catalog does not hold
// (DESIGN.md §3). An adapter identifies one short sample; the recognition
// pipeline decides which stretches of a video to sample.
//
// Adapters: acrcloud (the ACRCloud identify protocol; acrcloud/acrfake is a
// local server speaking it, for development and tests).
package outside
