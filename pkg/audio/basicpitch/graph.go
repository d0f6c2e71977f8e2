package basicpitch

import (
	"embed"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// modelFiles is Basic Pitch's TensorFlow.js graph and weights, unmodified
// from npm @spotify/basic-pitch@1.0.1 (model/NOTICE).
//
//go:embed model/model.json model/group1-shard1of1.bin
var modelFiles embed.FS

// graphJSON is the part of model.json the interpreter reads.
type graphJSON struct {
	Format   string `json:"format"`
	Topology struct {
		Node []nodeJSON `json:"node"`
	} `json:"modelTopology"`
	WeightsManifest []struct {
		Paths   []string `json:"paths"`
		Weights []struct {
			Name  string `json:"name"`
			Shape []int  `json:"shape"`
			DType string `json:"dtype"`
		} `json:"weights"`
	} `json:"weightsManifest"`
}

type nodeJSON struct {
	Name  string              `json:"name"`
	Op    string              `json:"op"`
	Input []string            `json:"input"`
	Attr  map[string]attrJSON `json:"attr"`
}

// attrJSON is a GraphDef attribute as the converter writes it: integers
// as strings, strings in base64.
type attrJSON struct {
	I    *string  `json:"i"`
	F    *float64 `json:"f"`
	B    *bool    `json:"b"`
	S    *string  `json:"s"`
	List *struct {
		I []string `json:"i"`
		S []string `json:"s"`
	} `json:"list"`
}

// node is one operation of the graph with its attributes decoded.
type node struct {
	name   string
	op     string
	inputs []int // indexes of the nodes it reads
	attr   map[string]attrJSON
}

func (n *node) int(key string) (int, error) {
	a, ok := n.attr[key]
	if !ok || a.I == nil {
		return 0, nil
	}
	v, err := strconv.Atoi(*a.I)
	if err != nil {
		return 0, fmt.Errorf("%s: attribute %s: %w", n.name, key, err)
	}
	return v, nil
}

func (n *node) bool(key string) bool {
	a, ok := n.attr[key]
	return ok && a.B != nil && *a.B
}

func (n *node) string(key string) (string, error) {
	a, ok := n.attr[key]
	if !ok || a.S == nil {
		return "", nil
	}
	b, err := base64.StdEncoding.DecodeString(*a.S)
	if err != nil {
		return "", fmt.Errorf("%s: attribute %s: %w", n.name, key, err)
	}
	return string(b), nil
}

func (n *node) ints(key string) ([]int, error) {
	a, ok := n.attr[key]
	if !ok || a.List == nil {
		return nil, nil
	}
	out := make([]int, len(a.List.I))
	for k, s := range a.List.I {
		v, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("%s: attribute %s: %w", n.name, key, err)
		}
		out[k] = v
	}
	return out, nil
}

func (n *node) strings(key string) ([]string, error) {
	a, ok := n.attr[key]
	if !ok || a.List == nil {
		return nil, nil
	}
	out := make([]string, len(a.List.S))
	for k, s := range a.List.S {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("%s: attribute %s: %w", n.name, key, err)
		}
		out[k] = string(b)
	}
	return out, nil
}

// graph is the parsed model: its nodes, the constants' values and the
// placeholder that takes the audio.
type graph struct {
	nodes  []node
	byName map[string]int
	consts map[int]*value
	input  int
}

// parseGraph reads model.json and its weight shards from files.
func parseGraph(files embed.FS, dir string) (*graph, error) {
	raw, err := files.ReadFile(dir + "/model.json")
	if err != nil {
		return nil, err
	}
	var gj graphJSON
	if err := json.Unmarshal(raw, &gj); err != nil {
		return nil, fmt.Errorf("model.json: %w", err)
	}
	if gj.Format != "graph-model" {
		return nil, fmt.Errorf("model.json: format %q, want graph-model", gj.Format)
	}
	g := &graph{byName: map[string]int{}, consts: map[int]*value{}, input: -1}
	for k, nj := range gj.Topology.Node {
		if _, dup := g.byName[nj.Name]; dup {
			return nil, fmt.Errorf("model.json: node %s twice", nj.Name)
		}
		g.byName[nj.Name] = k
		g.nodes = append(g.nodes, node{name: nj.Name, op: nj.Op, attr: nj.Attr})
		if nj.Op == "Placeholder" {
			g.input = k
		}
	}
	if g.input < 0 {
		return nil, fmt.Errorf("model.json: no Placeholder")
	}
	for k, nj := range gj.Topology.Node {
		for _, in := range nj.Input {
			if strings.HasPrefix(in, "^") {
				continue // a control dependency: no data
			}
			name, _, _ := strings.Cut(in, ":")
			j, ok := g.byName[name]
			if !ok {
				return nil, fmt.Errorf("model.json: node %s reads unknown %s", nj.Name, in)
			}
			g.nodes[k].inputs = append(g.nodes[k].inputs, j)
		}
	}
	for _, group := range gj.WeightsManifest {
		var data []byte
		for _, p := range group.Paths {
			b, err := files.ReadFile(dir + "/" + p)
			if err != nil {
				return nil, err
			}
			data = append(data, b...)
		}
		for _, w := range group.Weights {
			k, ok := g.byName[w.Name]
			if !ok {
				return nil, fmt.Errorf("weights: %s is no node", w.Name)
			}
			n := size(w.Shape)
			if len(data) < 4*n {
				return nil, fmt.Errorf("weights: %s: shard ends early", w.Name)
			}
			v := &value{shape: w.Shape}
			switch w.DType {
			case "float32":
				v.f = make([]float32, n)
				for e := range v.f {
					v.f[e] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*e:]))
				}
			case "int32":
				v.i = make([]int32, n)
				for e := range v.i {
					v.i[e] = int32(binary.LittleEndian.Uint32(data[4*e:]))
				}
			default:
				return nil, fmt.Errorf("weights: %s: dtype %s", w.Name, w.DType)
			}
			data = data[4*n:]
			g.consts[k] = v
		}
		if len(data) != 0 {
			return nil, fmt.Errorf("weights: %d bytes left over", len(data))
		}
	}
	for k, n := range g.nodes {
		if n.op == "Const" && g.consts[k] == nil {
			return nil, fmt.Errorf("model.json: constant %s has no weights", n.name)
		}
	}
	return g, nil
}

// plan returns the nodes outputs need, each after its inputs.
func (g *graph) plan(outputs []int) []int {
	state := make([]byte, len(g.nodes)) // 0 new, 1 visiting, 2 done
	var order []int
	var visit func(int)
	visit = func(k int) {
		if state[k] != 0 {
			return
		}
		state[k] = 1
		for _, in := range g.nodes[k].inputs {
			visit(in)
		}
		state[k] = 2
		order = append(order, k)
	}
	for _, k := range outputs {
		visit(k)
	}
	return order
}
