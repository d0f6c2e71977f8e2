// Package basicpitch runs Spotify's Basic Pitch (npm @spotify/basic-pitch
// 1.0.1, Apache-2.0; model/ holds its TensorFlow.js graph and weights,
// unmodified) in pure Go, and pools its activations into a per-track audio
// embedding for by-id similarity.
//
// Network reads the graph (model/model.json, a TensorFlow GraphDef as JSON)
// and executes its nodes in order with the few operations it uses: the
// constant-Q front end as strided one-dimensional convolutions and a
// low-pass filter per octave, the log normalization and batch norm, the
// harmonic stacking (slices, pads, concatenation) and the 2-D convolutions
// with bias and ReLU or a sigmoid. The convolutions, which are nearly all
// of the cost, are plain loops over contiguous NHWC rows. A forward pass
// takes one 2-s window (WindowSamples of 22,050 Hz mono) and returns its
// outputs (pitch contour, notes, onsets) and its three hidden ReLU layers,
// which match TensorFlow.js's to within float32 rounding (parity_test.go,
// against testdata/reference.json written by testdata/node/reference.mjs).
//
// Embed frames a track as Basic Pitch's own inference does and pools the
// activations of a few windows into one vector (EmbeddingDim values) the
// way testdata/node/embed.mjs, the measurement of issue 15 item 6, did.
// A Projection (standardization, equal weight per block, principal
// components; projection.bin was fitted on the demo catalog) shortens it
// to what the catalog keeps per track and by-id compares:
// TrackEmbedding, which ingestion calls.
package basicpitch
