package basicpitch

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// Projection turns a pooled embedding (EmbeddingDim values laid out as
// Blocks) into a short unit vector whose dot products stand for the
// cosines issue 15 item 6 measured: each dimension standardized (z-score),
// each block scaled to unit length so that every block counts alike, the
// whole at unit length, then its principal components. The statistics
// and components are fixed, fitted once on a catalog (FitProjection), so
// a track is projected alone, at ingest, with no catalog-wide refit.
type Projection struct {
	Mean, Std []float32 // per embedding dimension
	Center    []float32 // mean of the normalized vectors
	Basis     []float32 // Dim rows of EmbeddingDim: the principal axes, largest first
	Dim       int
}

// normalize standardizes emb and weighs its blocks (see Projection).
func (p *Projection) normalize(emb []float32) []float64 {
	z := make([]float64, EmbeddingDim)
	for d, x := range emb {
		if p.Std[d] > 0 {
			z[d] = (float64(x) - float64(p.Mean[d])) / float64(p.Std[d])
		}
	}
	for _, b := range Blocks {
		scaleToUnit(z[b.Offset:][:b.Len])
	}
	scaleToUnit(z)
	return z
}

func scaleToUnit(v []float64) {
	var n float64
	for _, x := range v {
		n += x * x
	}
	if n > 0 {
		s := 1 / math.Sqrt(n)
		for i := range v {
			v[i] *= s
		}
	}
}

// Apply projects an embedding (Network.Embed) to Dim values at unit
// length.
func (p *Projection) Apply(emb []float32) ([]float32, error) {
	if len(emb) != EmbeddingDim {
		return nil, fmt.Errorf("basicpitch: embedding of %d values, want %d", len(emb), EmbeddingDim)
	}
	z := p.normalize(emb)
	for d := range z {
		z[d] -= float64(p.Center[d])
	}
	y := make([]float64, p.Dim)
	for k := range y {
		row := p.Basis[k*EmbeddingDim:][:EmbeddingDim]
		var s float64
		for d, w := range row {
			s += float64(w) * z[d]
		}
		y[k] = s
	}
	scaleToUnit(y)
	out := make([]float32, p.Dim)
	for k, v := range y {
		out[k] = float32(v)
	}
	return out, nil
}

// FitProjection fits a Projection of dim components on embeddings.
func FitProjection(embs [][]float32, dim int) (*Projection, error) {
	n := len(embs)
	if n < 2 || dim < 1 || dim > EmbeddingDim {
		return nil, fmt.Errorf("basicpitch: fit %d components on %d embeddings", dim, n)
	}
	p := &Projection{Mean: make([]float32, EmbeddingDim), Std: make([]float32, EmbeddingDim), Center: make([]float32, EmbeddingDim), Dim: dim}
	sum, sq := make([]float64, EmbeddingDim), make([]float64, EmbeddingDim)
	for _, e := range embs {
		if len(e) != EmbeddingDim {
			return nil, fmt.Errorf("basicpitch: embedding of %d values, want %d", len(e), EmbeddingDim)
		}
		for d, x := range e {
			sum[d] += float64(x)
			sq[d] += float64(x) * float64(x)
		}
	}
	for d := range sum {
		m := sum[d] / float64(n)
		p.Mean[d] = float32(m)
		if sd := math.Sqrt(max(0, sq[d]/float64(n)-m*m)); sd > 1e-9 {
			p.Std[d] = float32(sd)
		}
	}
	zs := mat.NewDense(n, EmbeddingDim, nil)
	center := make([]float64, EmbeddingDim)
	for i, e := range embs {
		z := p.normalize(e)
		zs.SetRow(i, z)
		for d, x := range z {
			center[d] += x / float64(n)
		}
	}
	for i := range n {
		for d := range EmbeddingDim {
			zs.Set(i, d, zs.At(i, d)-center[d])
		}
	}
	for d, c := range center {
		p.Center[d] = float32(c)
	}
	var cov mat.SymDense
	cov.SymOuterK(1/float64(n), zs.T())
	var eig mat.EigenSym
	if !eig.Factorize(&cov, true) {
		return nil, errors.New("basicpitch: the covariance did not factorize")
	}
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	// Eigenvalues come in ascending order: the last columns are the axes.
	p.Basis = make([]float32, dim*EmbeddingDim)
	for k := range dim {
		col := EmbeddingDim - 1 - k
		for d := range EmbeddingDim {
			p.Basis[k*EmbeddingDim+d] = float32(vecs.At(d, col))
		}
	}
	return p, nil
}

// projectionMagic starts an encoded Projection.
const projectionMagic = "BPPROJ1\n"

// MarshalBinary encodes p: the magic, Dim as a uint32, then Mean, Std,
// Center and Basis as little-endian float32.
func (p *Projection) MarshalBinary() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(projectionMagic)
	if err := binary.Write(&b, binary.LittleEndian, uint32(p.Dim)); err != nil {
		return nil, err
	}
	for _, part := range [][]float32{p.Mean, p.Std, p.Center, p.Basis} {
		if err := binary.Write(&b, binary.LittleEndian, part); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}

// UnmarshalBinary decodes what MarshalBinary wrote.
func (p *Projection) UnmarshalBinary(data []byte) error {
	r := bytes.NewReader(data)
	magic := make([]byte, len(projectionMagic))
	var dim uint32
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != projectionMagic {
		return errors.New("basicpitch: not a projection")
	}
	if err := binary.Read(r, binary.LittleEndian, &dim); err != nil || dim == 0 || dim > EmbeddingDim {
		return fmt.Errorf("basicpitch: projection of %d components", dim)
	}
	q := Projection{Dim: int(dim), Mean: make([]float32, EmbeddingDim), Std: make([]float32, EmbeddingDim),
		Center: make([]float32, EmbeddingDim), Basis: make([]float32, int(dim)*EmbeddingDim)}
	for _, part := range [][]float32{q.Mean, q.Std, q.Center, q.Basis} {
		if err := binary.Read(r, binary.LittleEndian, part); err != nil {
			return fmt.Errorf("basicpitch: projection: %w", err)
		}
	}
	if r.Len() != 0 {
		return fmt.Errorf("basicpitch: projection: %d bytes left over", r.Len())
	}
	*p = q
	return nil
}

// defaultProjection is the Projection TrackEmbedding applies: 32
// components fitted on the demo catalog's 240 tracks (written by
// BenchmarkSimilarPrecisionPretrained in package search, with
// SEARCH_PRETRAINED_WRITE_PROJECTION).
//
//go:embed projection.bin
var defaultProjection []byte

// DefaultProjection decodes the embedded projection once.
var DefaultProjection = sync.OnceValues(func() (*Projection, error) {
	var p Projection
	if err := p.UnmarshalBinary(defaultProjection); err != nil {
		return nil, err
	}
	return &p, nil
})

// TrackEmbedding is a track's embedding as the catalog keeps it:
// DefaultExcerpts windows of samples (22,050 Hz mono) through the network,
// pooled, then through DefaultProjection.
func TrackEmbedding(ctx context.Context, samples []float32) ([]float32, error) {
	net, err := Load()
	if err != nil {
		return nil, err
	}
	p, err := DefaultProjection()
	if err != nil {
		return nil, err
	}
	emb, err := net.Embed(samples, DefaultExcerpts)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return p.Apply(emb)
}
