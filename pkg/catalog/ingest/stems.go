package ingest

import (
	"musiccatalog/pkg/audio/fingerprint"
)

// Stems are fingerprinted under their track (issue 16): a video that uses
// one stem of a catalog track (only the drums, only the melody) matches
// the track's index entry and is named as the track. Stems play on the
// track's clock (as stems are delivered: same start, same length), so
// their hashes join the track's at the same times and a match of a stem
// reports the track's offsets.
//
// Index size: a stem is fingerprinted at stemOptions, a third of a track's
// peak density, and a track's stems together add at most what
// maxDenseStems stems add (a track with more is thinned evenly), so a
// track with stems costs at most twice the index of one without.
// Measured on real music, a stem 10 dB below the rest of its mix, alone
// in a 10-s clip with noise 15 dB down: found 17/40 from the track's own
// hashes, 37/40 with stems at this density, 40/40 at a track's density
// (which would cost 2.4 times the index for two stems).
var stemOptions = func() fingerprint.Options {
	o := fingerprint.IndexOptions
	o.PeaksPerSecond = 6
	return o
}()

// maxDenseStems is how many stems a track carries at stemOptions' full
// density; more stems share that many stems' worth of hashes.
const maxDenseStems = 3

// withStems is what the index holds for a track: its own hashes and its
// stems', thinned when it has more than maxDenseStems stems. The thinning
// keeps a fixed, content-determined subset (so the same catalog builds the
// same index bytes).
func withStems(track trackHashes, stems []trackHashes) trackHashes {
	out := trackHashes{Seconds: track.Seconds, Hashes: append([]fingerprint.Hash(nil), track.Hashes...)}
	n := uint32(len(stems))
	for _, s := range stems {
		out.Seconds = max(out.Seconds, s.Seconds)
		for _, h := range s.Hashes {
			if n <= maxDenseStems || mixBits(h)%n < maxDenseStems {
				out.Hashes = append(out.Hashes, h)
			}
		}
	}
	return out
}

// mixBits spreads a hash's key and time over 32 bits (a multiplicative
// hash), so that keeping those below a bound keeps an even share.
func mixBits(h fingerprint.Hash) uint32 {
	x := h.Key*0x9e3779b1 ^ h.Time*0x85ebca6b
	x ^= x >> 15
	x *= 0xc2b2ae35
	return x ^ x>>13
}
