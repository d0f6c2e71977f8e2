package basicpitch

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestProjectionKeepsNeighbours: embeddings drawn around a few centres
// project so that each one's nearest neighbour is of its own centre, the
// projection survives encoding, and the embedded one is 32 components.
func TestProjectionKeepsNeighbours(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 15))
	const centres, per = 4, 20
	var embs [][]float32
	var label []int
	for c := range centres {
		centre := make([]float32, EmbeddingDim)
		for d := range centre {
			centre[d] = float32(r.NormFloat64())
		}
		for range per {
			e := make([]float32, EmbeddingDim)
			for d := range e {
				e[d] = centre[d] + float32(r.NormFloat64())*0.7
			}
			embs, label = append(embs, e), append(label, c)
		}
	}
	p, err := FitProjection(embs, 8)
	if err != nil {
		t.Fatal(err)
	}
	data, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var q Projection
	if err := q.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	ys := make([][]float32, len(embs))
	for i, e := range embs {
		if ys[i], err = q.Apply(e); err != nil {
			t.Fatal(err)
		}
		y0, _ := p.Apply(e)
		if !slices.Equal(ys[i], y0) {
			t.Fatal("the decoded projection projects otherwise")
		}
		var n float64
		for _, v := range ys[i] {
			n += float64(v) * float64(v)
		}
		if len(ys[i]) != 8 || math.Abs(n-1) > 1e-5 {
			t.Fatalf("projection of %d values, norm² %g", len(ys[i]), n)
		}
	}
	for i, y := range ys {
		best, bi := -2.0, -1
		for j, z := range ys {
			var dot float64
			for k := range y {
				dot += float64(y[k]) * float64(z[k])
			}
			if j != i && dot > best {
				best, bi = dot, j
			}
		}
		if label[bi] != label[i] {
			t.Errorf("embedding %d (centre %d): nearest is %d (centre %d)", i, label[i], bi, label[bi])
		}
	}
	if err := q.UnmarshalBinary(data[:len(data)-1]); err == nil {
		t.Error("a truncated projection decodes")
	}
	if _, err := p.Apply(embs[0][:10]); err == nil {
		t.Error("a short embedding projects")
	}
	def, err := DefaultProjection()
	if err != nil || def.Dim != 32 {
		t.Fatalf("embedded projection: %v, %v", def, err)
	}
}
