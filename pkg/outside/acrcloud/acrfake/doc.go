// Package acrfake is a local server speaking the ACRCloud identify
// protocol over a list of reference recordings, so that the outside tier
// of recognition runs end to end without the real service: the real
// acrcloud adapter talks to it unchanged.
//
// It checks what the real service checks that our adapter could get
// wrong (the access key → 3001, the HMAC-SHA1 signature → 3014, the form
// fields → 3006, the sample size → 3016), fingerprints the reference audio
// with pkg/audio/fingerprint and identifies a sample by matching it (1001
// when nothing matches). The score it reports is the fingerprint match
// strength mapped onto the service's 70–100 range. Over a few references
// it also requires a minimum match density (minScorePerSecond): the
// matcher's runner-up test needs other tracks to compare with.
package acrfake
