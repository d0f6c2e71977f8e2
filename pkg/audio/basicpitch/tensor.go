package basicpitch

import "fmt"

// Tensor is a dense row-major float32 array.
type Tensor struct {
	Shape []int
	Data  []float32
}

// value is a graph value: float32 data, or int32 data for the shapes,
// indexes and axes the graph computes with.
type value struct {
	shape []int
	f     []float32
	i     []int32
}

func size(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// strides returns the row-major element strides of shape.
func strides(shape []int) []int {
	s := make([]int, len(shape))
	n := 1
	for d := len(shape) - 1; d >= 0; d-- {
		s[d] = n
		n *= shape[d]
	}
	return s
}

// ints returns v's int32 data as ints (an error for float data).
func (v *value) ints() ([]int, error) {
	if v.i == nil && size(v.shape) > 0 {
		return nil, fmt.Errorf("want int32 data, have float32 %v", v.shape)
	}
	out := make([]int, len(v.i))
	for k, x := range v.i {
		out[k] = int(x)
	}
	return out, nil
}

func (v *value) isInt() bool { return v.i != nil }

// axis resolves a possibly negative axis against rank.
func axis(a, rank int) (int, error) {
	if a < 0 {
		a += rank
	}
	if a < 0 || a >= rank {
		return 0, fmt.Errorf("axis %d out of range for rank %d", a, rank)
	}
	return a, nil
}

// gather copies, for every index of the output shape, the element of
// v's data that at maps it to (a flat index); it serves transposes, slices
// and pads, whose cost is small next to the convolutions.
func gather[T any](src []T, outShape []int, at func(idx []int) int, zero T) []T {
	out := make([]T, size(outShape))
	idx := make([]int, len(outShape))
	for k := range out {
		if j := at(idx); j >= 0 {
			out[k] = src[j]
		} else {
			out[k] = zero
		}
		for d := len(idx) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < outShape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return out
}

// remap builds v's counterpart of shape outShape whose elements come from
// at (a flat index into v, or -1 for a zero), for either data type.
func (v *value) remap(outShape []int, at func(idx []int) int) *value {
	if v.isInt() {
		return &value{shape: outShape, i: gather(v.i, outShape, at, 0)}
	}
	return &value{shape: outShape, f: gather(v.f, outShape, at, 0)}
}
