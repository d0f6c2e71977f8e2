package catalog

import "math"

// An AudioEmbedding is kept in a snapshot at 8 bits a value: a step that
// is a power of two (one signed byte, its exponent) and each value as a
// signed byte multiple of it. The step is the least power of two that
// puts the largest magnitude within ±127 steps, so at least 64 levels
// cover it (7 to 8 bits), and a decoded embedding encodes to the same
// bytes: QuantizeEmbedding is idempotent, and a track assembled by
// ingestion equals the one its snapshot decodes to.

// zeroStep marks an embedding of zeros (its byte, zeroByte).
const (
	zeroStep = math.MinInt8
	zeroByte = 0x80
)

// embeddingBytes is v's step exponent and values.
func embeddingBytes(v []float32) []byte {
	var m float64
	for _, x := range v {
		m = max(m, math.Abs(float64(x)))
	}
	out := make([]byte, 1+len(v))
	if m == 0 || math.IsNaN(m) || math.IsInf(m, 0) {
		out[0] = zeroByte
		return out
	}
	frac, e := math.Frexp(m / 127)
	if frac == 0.5 {
		e-- // m/127 is a power of two itself
	}
	e = min(max(e, zeroStep+1), math.MaxInt8)
	out[0] = byte(int8(e))
	step := math.Ldexp(1, e)
	for i, x := range v {
		out[1+i] = byte(int8(min(max(math.Round(float64(x)/step), -127), 127)))
	}
	return out
}

// embeddingFrom decodes embeddingBytes.
func embeddingFrom(b []byte) []float32 {
	out := make([]float32, len(b)-1)
	e := int(int8(b[0]))
	if e == zeroStep {
		return out
	}
	step := math.Ldexp(1, e)
	for i, q := range b[1:] {
		out[i] = float32(float64(int8(q)) * step)
	}
	return out
}

// QuantizeEmbedding returns v as a snapshot keeps it (nil for nil).
func QuantizeEmbedding(v []float32) []float32 {
	if len(v) == 0 {
		return nil
	}
	return embeddingFrom(embeddingBytes(v))
}
