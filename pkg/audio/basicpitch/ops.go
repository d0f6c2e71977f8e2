package basicpitch

import (
	"fmt"
	"math"
	"slices"
)

// eval computes node n from its inputs' values.
func eval(n *node, in []*value) (*value, error) {
	need := func(k int) error {
		if len(in) != k {
			return fmt.Errorf("%s %s: %d inputs, want %d", n.op, n.name, len(in), k)
		}
		return nil
	}
	switch n.op {
	case "Identity":
		return in[0], need(1)
	case "Shape":
		if err := need(1); err != nil {
			return nil, err
		}
		s := make([]int32, len(in[0].shape))
		for d, x := range in[0].shape {
			s[d] = int32(x)
		}
		return &value{shape: []int{len(s)}, i: s}, nil
	case "Neg", "Square", "Sqrt", "Log", "Sigmoid":
		if err := need(1); err != nil {
			return nil, err
		}
		return unary(n.op, in[0])
	case "Mul", "Add", "AddV2", "Sub", "DivNoNan":
		if err := need(2); err != nil {
			return nil, err
		}
		return elementwise(n.op, in[0], in[1])
	case "Sum", "Min", "Max":
		if err := need(2); err != nil {
			return nil, err
		}
		return reduce(n.op, in[0], in[1], n.bool("keep_dims"))
	case "Reshape":
		if err := need(2); err != nil {
			return nil, err
		}
		return reshape(in[0], in[1])
	case "ExpandDims":
		if err := need(2); err != nil {
			return nil, err
		}
		dims, err := in[1].ints()
		if err != nil || len(dims) != 1 {
			return nil, fmt.Errorf("%s: dim %v: %v", n.name, dims, err)
		}
		a, err := axis(dims[0], len(in[0].shape)+1)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n.name, err)
		}
		return &value{shape: slices.Insert(slices.Clone(in[0].shape), a, 1), f: in[0].f, i: in[0].i}, nil
	case "Squeeze":
		if err := need(1); err != nil {
			return nil, err
		}
		dims, err := n.ints("squeeze_dims")
		if err != nil {
			return nil, err
		}
		return squeeze(in[0], dims)
	case "Transpose":
		if err := need(2); err != nil {
			return nil, err
		}
		perm, err := in[1].ints()
		if err != nil {
			return nil, err
		}
		return transpose(in[0], perm)
	case "Pad", "MirrorPad":
		if err := need(2); err != nil {
			return nil, err
		}
		mode, err := n.string("mode")
		if err != nil {
			return nil, err
		}
		if n.op == "MirrorPad" && mode != "REFLECT" {
			return nil, fmt.Errorf("%s: MirrorPad mode %q", n.name, mode)
		}
		return pad(in[0], in[1], n.op == "MirrorPad")
	case "Pack":
		a, err := n.int("axis")
		if err != nil {
			return nil, err
		}
		return pack(in, a)
	case "ConcatV2":
		if len(in) < 2 {
			return nil, fmt.Errorf("%s: no inputs", n.name)
		}
		a, err := in[len(in)-1].ints()
		if err != nil || len(a) != 1 {
			return nil, fmt.Errorf("%s: axis %v: %v", n.name, a, err)
		}
		return concat(in[:len(in)-1], a[0])
	case "StridedSlice":
		if err := need(4); err != nil {
			return nil, err
		}
		return stridedSlice(n, in[0], in[1], in[2], in[3])
	case "Conv2D", "_FusedConv2D":
		return conv2DNode(n, in)
	}
	return nil, fmt.Errorf("%s: operation %s is not implemented", n.name, n.op)
}

func unary(op string, x *value) (*value, error) {
	if x.isInt() {
		return nil, fmt.Errorf("%s on int32", op)
	}
	out := make([]float32, len(x.f))
	switch op {
	case "Neg":
		for k, v := range x.f {
			out[k] = -v
		}
	case "Square":
		for k, v := range x.f {
			out[k] = v * v
		}
	case "Sqrt":
		for k, v := range x.f {
			out[k] = float32(math.Sqrt(float64(v)))
		}
	case "Log":
		for k, v := range x.f {
			out[k] = float32(math.Log(float64(v)))
		}
	case "Sigmoid":
		sigmoid(out, x.f)
	}
	return &value{shape: x.shape, f: out}, nil
}

func sigmoid(out, in []float32) {
	for k, v := range in {
		out[k] = float32(1 / (1 + math.Exp(-float64(v))))
	}
}

// broadcast returns the shape two operands broadcast to (NumPy's rules)
// and, per operand, its element strides over that shape (0 where it
// repeats).
func broadcast(a, b []int) (shape, sa, sb []int, err error) {
	r := max(len(a), len(b))
	shape, sa, sb = make([]int, r), make([]int, r), make([]int, r)
	pa, pb := strides(a), strides(b)
	for d := range r {
		da, db := 1, 1
		ia, ib := d-(r-len(a)), d-(r-len(b))
		if ia >= 0 {
			da = a[ia]
		}
		if ib >= 0 {
			db = b[ib]
		}
		switch {
		case da == db:
			shape[d] = da
		case da == 1:
			shape[d] = db
		case db == 1:
			shape[d] = da
		default:
			return nil, nil, nil, fmt.Errorf("shapes %v and %v do not broadcast", a, b)
		}
		if ia >= 0 && da != 1 {
			sa[d] = pa[ia]
		}
		if ib >= 0 && db != 1 {
			sb[d] = pb[ib]
		}
	}
	return shape, sa, sb, nil
}

func elementwise(op string, x, y *value) (*value, error) {
	if x.isInt() || y.isInt() {
		return nil, fmt.Errorf("%s on int32", op)
	}
	shape, sx, sy, err := broadcast(x.shape, y.shape)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	var f func(a, b float32) float32
	switch op {
	case "Mul":
		f = func(a, b float32) float32 { return a * b }
	case "Add", "AddV2":
		f = func(a, b float32) float32 { return a + b }
	case "Sub":
		f = func(a, b float32) float32 { return a - b }
	case "DivNoNan":
		f = func(a, b float32) float32 {
			if b == 0 {
				return 0
			}
			return a / b
		}
	}
	out := make([]float32, size(shape))
	idx := make([]int, len(shape))
	ix, iy := 0, 0
	for k := range out {
		out[k] = f(x.f[ix], y.f[iy])
		for d := len(idx) - 1; d >= 0; d-- {
			idx[d]++
			ix += sx[d]
			iy += sy[d]
			if idx[d] < shape[d] {
				break
			}
			ix -= sx[d] * shape[d]
			iy -= sy[d] * shape[d]
			idx[d] = 0
		}
	}
	return &value{shape: shape, f: out}, nil
}

func reduce(op string, x, axes *value, keep bool) (*value, error) {
	if x.isInt() {
		return nil, fmt.Errorf("%s on int32", op)
	}
	as, err := axes.ints()
	if err != nil {
		return nil, err
	}
	r := len(x.shape)
	reduced := make([]bool, r)
	for _, a := range as {
		d, err := axis(a, r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		reduced[d] = true
	}
	var outShape, keptShape []int // keptShape: rank r, 1 on reduced axes
	for d, n := range x.shape {
		if reduced[d] {
			keptShape = append(keptShape, 1)
			if keep {
				outShape = append(outShape, 1)
			}
			continue
		}
		keptShape = append(keptShape, n)
		outShape = append(outShape, n)
	}
	out := make([]float32, size(keptShape))
	init := map[string]float32{"Sum": 0, "Min": float32(math.Inf(1)), "Max": float32(math.Inf(-1))}[op]
	for k := range out {
		out[k] = init
	}
	ks := strides(keptShape)
	idx := make([]int, r)
	for _, v := range x.f {
		o := 0
		for d, i := range idx {
			if !reduced[d] {
				o += i * ks[d]
			}
		}
		switch op {
		case "Sum":
			out[o] += v
		case "Min":
			out[o] = min(out[o], v)
		case "Max":
			out[o] = max(out[o], v)
		}
		for d := r - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < x.shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return &value{shape: outShape, f: out}, nil
}

func reshape(x, shapeV *value) (*value, error) {
	want, err := shapeV.ints()
	if err != nil {
		return nil, err
	}
	free, known := -1, 1
	for d, n := range want {
		if n == -1 {
			if free >= 0 {
				return nil, fmt.Errorf("reshape to %v: two -1", want)
			}
			free = d
			continue
		}
		known *= n
	}
	total := size(x.shape)
	if free >= 0 && known > 0 {
		want[free] = total / known
	}
	if size(want) != total {
		return nil, fmt.Errorf("reshape %v to %v", x.shape, want)
	}
	return &value{shape: want, f: x.f, i: x.i}, nil
}

func squeeze(x *value, dims []int) (*value, error) {
	r := len(x.shape)
	drop := make([]bool, r)
	for _, a := range dims {
		d, err := axis(a, r)
		if err != nil {
			return nil, fmt.Errorf("squeeze: %w", err)
		}
		if x.shape[d] != 1 {
			return nil, fmt.Errorf("squeeze dimension %d of %v", a, x.shape)
		}
		drop[d] = true
	}
	var shape []int
	for d, n := range x.shape {
		if !drop[d] && !(len(dims) == 0 && n == 1) {
			shape = append(shape, n)
		}
	}
	return &value{shape: shape, f: x.f, i: x.i}, nil
}

func transpose(x *value, perm []int) (*value, error) {
	r := len(x.shape)
	if len(perm) != r {
		return nil, fmt.Errorf("transpose %v by %v", x.shape, perm)
	}
	in := strides(x.shape)
	shape, st := make([]int, r), make([]int, r)
	for d, p := range perm {
		if p < 0 || p >= r {
			return nil, fmt.Errorf("transpose %v by %v", x.shape, perm)
		}
		shape[d], st[d] = x.shape[p], in[p]
	}
	if slices.Equal(shape, x.shape) && isIdentity(perm, x.shape) {
		return &value{shape: shape, f: x.f, i: x.i}, nil
	}
	return x.remap(shape, func(idx []int) int {
		o := 0
		for d, i := range idx {
			o += i * st[d]
		}
		return o
	}), nil
}

// isIdentity reports whether perm moves only dimensions of size 1, so the
// data keeps its order.
func isIdentity(perm, shape []int) bool {
	last := -1
	for _, p := range perm {
		if shape[p] == 1 {
			continue
		}
		if p < last {
			return false
		}
		last = p
	}
	return true
}

func pad(x, paddings *value, reflect bool) (*value, error) {
	p, err := paddings.ints()
	r := len(x.shape)
	if err != nil || len(p) != 2*r {
		return nil, fmt.Errorf("pad %v by %v: %v", x.shape, p, err)
	}
	shape := make([]int, r)
	for d, n := range x.shape {
		if p[2*d] < 0 || p[2*d+1] < 0 || (reflect && (p[2*d] >= n || p[2*d+1] >= n)) {
			return nil, fmt.Errorf("pad %v by %v", x.shape, p)
		}
		shape[d] = n + p[2*d] + p[2*d+1]
	}
	st := strides(x.shape)
	return x.remap(shape, func(idx []int) int {
		o := 0
		for d, i := range idx {
			j, n := i-p[2*d], x.shape[d]
			if j < 0 || j >= n {
				if !reflect {
					return -1
				}
				if j < 0 {
					j = -j
				} else {
					j = 2*(n-1) - j
				}
			}
			o += j * st[d]
		}
		return o
	}), nil
}

func pack(in []*value, a int) (*value, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("pack: no inputs")
	}
	for _, v := range in[1:] {
		if !slices.Equal(v.shape, in[0].shape) || v.isInt() != in[0].isInt() {
			return nil, fmt.Errorf("pack %v with %v", in[0].shape, v.shape)
		}
	}
	d, err := axis(a, len(in[0].shape)+1)
	if err != nil {
		return nil, fmt.Errorf("pack: %w", err)
	}
	expanded := make([]*value, len(in))
	for k, v := range in {
		expanded[k] = &value{shape: slices.Insert(slices.Clone(v.shape), d, 1), f: v.f, i: v.i}
	}
	return concat(expanded, d)
}

func concat(in []*value, a int) (*value, error) {
	r := len(in[0].shape)
	d, err := axis(a, r)
	if err != nil {
		return nil, fmt.Errorf("concat: %w", err)
	}
	shape := slices.Clone(in[0].shape)
	shape[d] = 0
	for _, v := range in {
		if len(v.shape) != r || v.isInt() != in[0].isInt() {
			return nil, fmt.Errorf("concat %v with %v", in[0].shape, v.shape)
		}
		for e := range r {
			if e != d && v.shape[e] != in[0].shape[e] {
				return nil, fmt.Errorf("concat %v with %v on axis %d", in[0].shape, v.shape, d)
			}
		}
		shape[d] += v.shape[d]
	}
	outer := size(shape[:d])
	out := &value{shape: shape}
	if in[0].isInt() {
		out.i = make([]int32, 0, size(shape))
	} else {
		out.f = make([]float32, 0, size(shape))
	}
	for o := range outer {
		for _, v := range in {
			block := size(v.shape[d:])
			if out.i != nil {
				out.i = append(out.i, v.i[o*block:(o+1)*block]...)
			} else {
				out.f = append(out.f, v.f[o*block:(o+1)*block]...)
			}
		}
	}
	return out, nil
}

// stridedSlice is TensorFlow's StridedSlice without ellipses.
func stridedSlice(n *node, x, beginV, endV, strideV *value) (*value, error) {
	begin, err1 := beginV.ints()
	end, err2 := endV.ints()
	step, err3 := strideV.ints()
	if err := firstErr(err1, err2, err3); err != nil || len(begin) != len(end) || len(begin) != len(step) {
		return nil, fmt.Errorf("%s: begin %v end %v strides %v: %v", n.name, begin, end, step, err)
	}
	var masks [5]int
	for k, key := range []string{"begin_mask", "end_mask", "shrink_axis_mask", "new_axis_mask", "ellipsis_mask"} {
		v, err := n.int(key)
		if err != nil {
			return nil, err
		}
		masks[k] = v
	}
	beginMask, endMask, shrinkMask, newMask := masks[0], masks[1], masks[2], masks[3]
	if masks[4] != 0 {
		return nil, fmt.Errorf("%s: ellipsis_mask is not implemented", n.name)
	}
	// Per output dimension: the input dimension it walks (-1 for a new
	// axis), its first index and step; shrunk dimensions fix an index.
	var shape, from, first, by []int
	fixed := map[int]int{}
	in := 0
	for k := range begin {
		bit := 1 << k
		if newMask&bit != 0 {
			shape, from, first, by = append(shape, 1), append(from, -1), append(first, 0), append(by, 0)
			continue
		}
		if in >= len(x.shape) {
			return nil, fmt.Errorf("%s: slice of rank %d beyond %v", n.name, len(begin), x.shape)
		}
		dim, s := x.shape[in], step[k]
		if s == 0 {
			return nil, fmt.Errorf("%s: stride 0", n.name)
		}
		b, e := begin[k], end[k]
		if shrinkMask&bit != 0 {
			if b < 0 {
				b += dim
			}
			if b < 0 || b >= dim {
				return nil, fmt.Errorf("%s: index %d of %d", n.name, begin[k], dim)
			}
			fixed[in] = b
			in++
			continue
		}
		lo, hi := 0, dim
		if s < 0 {
			lo, hi = -1, dim-1
		}
		clamp := func(v int) int {
			if v < 0 {
				v += dim
			}
			return min(max(v, lo), hi)
		}
		// A masked begin or end is the far edge in the stride's direction.
		b, e = clamp(b), clamp(e)
		if beginMask&bit != 0 {
			b = 0
			if s < 0 {
				b = dim - 1
			}
		}
		if endMask&bit != 0 {
			e = dim
			if s < 0 {
				e = -1
			}
		}
		count := 0
		if s > 0 && e > b {
			count = (e - b + s - 1) / s
		} else if s < 0 && b > e {
			count = (b - e - s - 1) / -s
		}
		shape, from, first, by = append(shape, count), append(from, in), append(first, b), append(by, s)
		in++
	}
	for ; in < len(x.shape); in++ {
		shape, from, first, by = append(shape, x.shape[in]), append(from, in), append(first, 0), append(by, 1)
	}
	st := strides(x.shape)
	base := 0
	for d, i := range fixed {
		base += i * st[d]
	}
	return x.remap(shape, func(idx []int) int {
		o := base
		for d, i := range idx {
			if from[d] >= 0 {
				o += (first[d] + i*by[d]) * st[from[d]]
			}
		}
		return o
	}), nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
