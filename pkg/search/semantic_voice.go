package search

// voiceAnchors are the embedder dimensions that say who sings (or that
// nobody does). A request's voice is matched against the track's vocals
// value (the zero-shot vocals facet, semIndex.scores), not against its
// text's vector: "a lullaby sung by a mom" is a lullaby, for the track
// vector, and a woman's voice, for the vocals facet — summed into one
// vector, the voice words outweighed what the song is.
var voiceAnchors = []string{"vocal", "female", "male", "instrumental"}

// anchorNamer is what an embedder may add: the concepts its dimensions
// stand for.
type anchorNamer interface {
	Anchors() []string
}

// voiceMask marks e's voice dimensions (nil when e cannot name them).
func voiceMask(e TextEmbedder) []bool {
	an, ok := e.(anchorNamer)
	if !ok {
		return nil
	}
	mask := make([]bool, e.Dim())
	for d, a := range an.Anchors() {
		for _, v := range voiceAnchors {
			if a == v && d < len(mask) {
				mask[d] = true
			}
		}
	}
	return mask
}

// contentOf is the unit vector of v without its voice dimensions (v
// itself without a mask, or when v says nothing but who sings: then the
// voice is all there is to rank by).
func contentOf(v []float32, mask []bool) []float32 {
	if mask == nil {
		return v
	}
	out := make([]float32, len(v))
	left := false
	for d, x := range v {
		if d < len(mask) && mask[d] {
			continue
		}
		out[d] = x
		left = left || x != 0
	}
	if !left {
		return v
	}
	return unitOf(out)
}
