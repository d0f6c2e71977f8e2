package basicpitch

import (
	"fmt"
	"sync"
)

// The model's input: 2-s windows less one hop of 22,050 Hz mono audio.
const (
	SampleRate    = 22050
	Hop           = 256
	WindowSamples = 2*SampleRate - Hop
)

// Activations are one window's outputs (each [frames, bins]) and hidden
// ReLU layers (each [frames, bins, channels]); frames is 172 for a window.
type Activations struct {
	Contour Tensor // pitch contour, 264 bins at a third of a semitone
	Note    Tensor // note activations on the 88 piano keys
	Onset   Tensor // onset activations on the 88 piano keys
	Relu1   Tensor // 264 bins × 8 channels, under Contour
	Relu2   Tensor // 88 bins × 32 channels, under Note
	Relu3   Tensor // 88 bins × 32 channels, under Onset
}

// outputNodes name the graph nodes Activations holds, in its field order.
var outputNodes = [...]string{
	"Identity", "Identity_1", "Identity_2",
	"StatefulPartitionedCall/model_1/re_lu_1/Relu",
	"StatefulPartitionedCall/model_1/re_lu_2/Relu",
	"StatefulPartitionedCall/model_1/re_lu_3/Relu",
}

// Network is Basic Pitch's graph ready to run; it is safe for concurrent
// use.
type Network struct {
	g       *graph
	order   []int // the nodes a forward pass computes, inputs first
	outputs [len(outputNodes)]int
}

// Load parses the embedded model once; every caller shares the Network.
var Load = sync.OnceValues(func() (*Network, error) {
	g, err := parseGraph(modelFiles, "model")
	if err != nil {
		return nil, fmt.Errorf("basicpitch: %w", err)
	}
	n := &Network{g: g}
	for k, name := range outputNodes {
		j, ok := g.byName[name]
		if !ok {
			return nil, fmt.Errorf("basicpitch: model.json has no node %s", name)
		}
		n.outputs[k] = j
	}
	n.order = g.plan(n.outputs[:])
	return n, nil
})

// Run computes one window of WindowSamples samples in [-1, 1].
func (n *Network) Run(window []float32) (*Activations, error) {
	if len(window) != WindowSamples {
		return nil, fmt.Errorf("basicpitch: window of %d samples, want %d", len(window), WindowSamples)
	}
	vals := make([]*value, len(n.g.nodes))
	for _, k := range n.order {
		nd := &n.g.nodes[k]
		switch {
		case nd.op == "Const":
			vals[k] = n.g.consts[k]
		case k == n.g.input:
			vals[k] = &value{shape: []int{1, WindowSamples, 1}, f: window}
		default:
			in := make([]*value, len(nd.inputs))
			for j, i := range nd.inputs {
				in[j] = vals[i]
			}
			v, err := eval(nd, in)
			if err != nil {
				return nil, fmt.Errorf("basicpitch: %w", err)
			}
			vals[k] = v
		}
	}
	var ts [len(outputNodes)]Tensor
	for k, j := range n.outputs {
		v := vals[j]
		if v.isInt() || len(v.shape) < 2 || v.shape[0] != 1 {
			return nil, fmt.Errorf("basicpitch: output %s has shape %v", outputNodes[k], v.shape)
		}
		ts[k] = Tensor{Shape: v.shape[1:], Data: v.f}
	}
	return &Activations{Contour: ts[0], Note: ts[1], Onset: ts[2], Relu1: ts[3], Relu2: ts[4], Relu3: ts[5]}, nil
}
