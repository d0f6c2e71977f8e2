package basicpitch

import (
	"fmt"
	"slices"

	"musiccatalog/pkg/audio/dsp"
)

// conv2DNode is Conv2D, and _FusedConv2D with BiasAdd and an optional Relu,
// in NHWC with HWIO filters and no dilation.
func conv2DNode(n *node, in []*value) (*value, error) {
	fused, err := n.strings("fused_ops")
	if err != nil {
		return nil, err
	}
	st, err := n.ints("strides")
	if err != nil {
		return nil, err
	}
	dil, err := n.ints("dilations")
	if err != nil {
		return nil, err
	}
	padding, err := n.string("padding")
	if err != nil {
		return nil, err
	}
	format, err := n.string("data_format")
	if err != nil {
		return nil, err
	}
	if format != "" && format != "NHWC" || len(st) != 4 || st[0] != 1 || st[3] != 1 ||
		slices.ContainsFunc(dil, func(d int) bool { return d != 1 }) || (padding != "SAME" && padding != "VALID") {
		return nil, fmt.Errorf("%s: %s with format %q strides %v dilations %v padding %q is not implemented", n.name, n.op, format, st, dil, padding)
	}
	var bias []float32
	relu := false
	switch {
	case n.op == "Conv2D" && len(in) == 2:
	case n.op == "_FusedConv2D" && len(in) == 3 && (slices.Equal(fused, []string{"BiasAdd"}) || slices.Equal(fused, []string{"BiasAdd", "Relu"})):
		bias, relu = in[2].f, len(fused) == 2
	default:
		return nil, fmt.Errorf("%s: %s of %d inputs fusing %v is not implemented", n.name, n.op, len(in), fused)
	}
	x, f := in[0], in[1]
	if len(x.shape) != 4 || len(f.shape) != 4 || x.shape[3] != f.shape[2] || x.isInt() || f.isInt() ||
		(bias != nil && len(bias) != f.shape[3]) {
		return nil, fmt.Errorf("%s: input %v, filter %v, bias %d", n.name, x.shape, f.shape, len(bias))
	}
	return conv2D(x, f, st[1], st[2], padding == "SAME", bias, relu), nil
}

// conv2D convolves x [N,H,W,C] with f [KH,KW,C,CO]. For an output pixel and
// a filter row, the input it reads (KW pixels of C channels) and the filter
// row (KW·C rows of CO) are both contiguous, so each is one pass of a
// vector–matrix product, or a dot product when CO is 1.
func conv2D(x, f *value, sh, sw int, same bool, bias []float32, relu bool) *value {
	N, H, W, C := x.shape[0], x.shape[1], x.shape[2], x.shape[3]
	KH, KW, CO := f.shape[0], f.shape[1], f.shape[3]
	OH, OW, padT, padL := (H-KH)/sh+1, (W-KW)/sw+1, 0, 0
	if same {
		OH, OW = (H+sh-1)/sh, (W+sw-1)/sw
		padT = max((OH-1)*sh+KH-H, 0) / 2
		padL = max((OW-1)*sw+KW-W, 0) / 2
	}
	out := make([]float32, N*OH*OW*CO)
	for b := range N {
		for oh := range OH {
			for ow := 0; ow < OW; {
				acc := out[((b*OH+oh)*OW+ow)*CO:][:CO]
				iw0 := ow*sw - padL
				if bias != nil {
					copy(acc, bias)
				}
				// The filter columns that land inside the input.
				kw0, kw1 := max(0, -iw0), min(KW, W-iw0)
				for kh := range KH {
					ih := oh*sh + kh - padT
					if ih < 0 || ih >= H || kw0 >= kw1 {
						continue
					}
					xs := x.f[((b*H+ih)*W+iw0+kw0)*C:][:(kw1-kw0)*C]
					fs := f.f[(kh*KW+kw0)*C*CO:][:(kw1-kw0)*C*CO]
					if CO == 1 {
						acc[0] += dsp.Dot(xs, fs)
						continue
					}
					vecMat(acc, xs, fs)
				}
				if relu {
					for k, v := range acc {
						acc[k] = max(v, 0)
					}
				}
				ow++
			}
		}
	}
	return &value{shape: []int{N, OH, OW, CO}, f: out}
}

// vecMat adds x (len R) times m (R rows of len(acc)) to acc. Eight
// output channels at a time are summed in registers over all of x.
func vecMat(acc, x, m []float32) {
	co := len(acc)
	c := 0
	for ; c+8 <= co; c += 8 {
		var a0, a1, a2, a3, a4, a5, a6, a7 float32
		for r, v := range x {
			if v == 0 {
				continue
			}
			w := m[r*co+c:][:8]
			a0 += v * w[0]
			a1 += v * w[1]
			a2 += v * w[2]
			a3 += v * w[3]
			a4 += v * w[4]
			a5 += v * w[5]
			a6 += v * w[6]
			a7 += v * w[7]
		}
		a := acc[c:][:8]
		a[0] += a0
		a[1] += a1
		a[2] += a2
		a[3] += a3
		a[4] += a4
		a[5] += a5
		a[6] += a6
		a[7] += a7
	}
	for ; c < co; c++ {
		var a float32
		for r, v := range x {
			a += v * m[r*co+c]
		}
		acc[c] += a
	}
}
