package basicpitch

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"slices"
	"testing"

	"musiccatalog/pkg/audio/decode"
	"musiccatalog/pkg/cputime"
)

// The excerpt testdata/reference.json was computed from (its comment in
// testdata/node/reference.mjs says how): 3 s of real music, two windows.
const (
	excerptPath    = "/usr/share/games/wesnoth/1.16/data/core/music/elvish-theme.ogg"
	excerptStart   = 40
	excerptSeconds = 3
)

// Tolerances of the Go forward pass against TensorFlow.js (WASM backend):
// both compute in float32, in different orders. The outputs are sigmoids
// in [0, 1]; the hidden layers are compared relative to the layer's
// largest value; pooled values relative to their block's largest.
const (
	outputTol = 1e-4
	hiddenTol = 1e-4
	pooledTol = 1e-4
)

type reference struct {
	Samples       int    `json:"samples"`
	SamplesSHA256 string `json:"samples_sha256"`
	Windows       int    `json:"windows"`
	Tensors       map[string]struct {
		Shape  []int  `json:"shape"`
		Frames []int  `json:"frames"`
		Data   string `json:"data"`
	} `json:"tensors"`
	Pooled map[string][]float64 `json:"pooled"`
}

func readReference(t testing.TB) reference {
	raw, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref reference
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	return ref
}

// excerpt decodes the reference's excerpt at 22,050 Hz, as ffmpeg did for
// reference.mjs, and checks it is the same audio.
func excerpt(t testing.TB, ref reference) []float32 {
	if _, err := os.Stat(excerptPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("the wesnoth-1.16-music package is required under CI=true")
		}
		t.Skip("wesnoth-1.16-music is not installed")
	}
	pcm, err := decode.Decoder{SampleRate: SampleRate}.DecodeWindow(t.Context(), excerptPath, excerptStart, excerptSeconds)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	var b [2]byte
	for _, v := range pcm.Samples {
		binary.LittleEndian.PutUint16(b[:], uint16(int16(math.Round(float64(v)*32768))))
		h.Write(b[:])
	}
	if got := hex.EncodeToString(h.Sum(nil)); len(pcm.Samples) != ref.Samples || got != ref.SamplesSHA256 {
		t.Fatalf("decoded excerpt: %d samples, SHA-256 %s; the reference was computed from %d samples, %s (another ffmpeg?)",
			len(pcm.Samples), got, ref.Samples, ref.SamplesSHA256)
	}
	return pcm.Samples
}

func TestModelFilesAreTheReleased(t *testing.T) {
	for path, want := range map[string]string{
		"model/model.json":           "1ed1aaee3409ec1dc098c8b01f430c0911f6fe9412e7af8086750f9e8f302f68",
		"model/group1-shard1of1.bin": "b142a95737a52e1e412d5f92e73d8bb80dfe8d04941acc0702f11f4524fb377c",
	} {
		b, err := modelFiles.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != want {
			t.Errorf("%s: SHA-256 %x, want %s (npm @spotify/basic-pitch@1.0.1)", path, got, want)
		}
	}
}

// TestForwardMatchesTensorFlowJS compares the first window's outputs (every
// 8th frame) and hidden layers (the middle frame) with TensorFlow.js's.
func TestForwardMatchesTensorFlowJS(t *testing.T) {
	ref := readReference(t)
	samples := excerpt(t, ref)
	net, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	ws := Windows(samples, 0)
	if len(ws) != ref.Windows {
		t.Fatalf("%d windows, reference %d", len(ws), ref.Windows)
	}
	a, err := net.Run(ws[0])
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]Tensor{"contour": a.Contour, "note": a.Note, "onset": a.Onset, "relu1": a.Relu1, "relu2": a.Relu2, "relu3": a.Relu3} {
		r := ref.Tensors[name]
		if !slices.Equal(got.Shape, r.Shape) {
			t.Errorf("%s: shape %v, reference %v", name, got.Shape, r.Shape)
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(r.Data)
		if err != nil {
			t.Fatal(err)
		}
		inner := size(r.Shape[1:])
		if len(raw) != 4*inner*len(r.Frames) {
			t.Fatalf("%s: %d bytes of reference", name, len(raw))
		}
		tol := float32(outputTol)
		if name[:4] == "relu" {
			tol = hiddenTol * slices.Max(got.Data)
		}
		worst, at := float32(0), 0
		for i, f := range r.Frames {
			for k := range inner {
				want := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*(i*inner+k):]))
				if d := float32(math.Abs(float64(got.Data[f*inner+k] - want))); d > worst {
					worst, at = d, f*inner+k
				}
			}
		}
		t.Logf("%s: max abs error %.2g (tolerance %.2g) over %d frames", name, worst, tol, len(r.Frames))
		if worst > tol {
			t.Errorf("%s: error %g at frame %d element %d, tolerance %g", name, worst, at/inner, at%inner, tol)
		}
	}
}

// TestEmbedMatchesTensorFlowJS compares the pooled vector of every window
// of the excerpt with embed.mjs's pooling on TensorFlow.js.
func TestEmbedMatchesTensorFlowJS(t *testing.T) {
	ref := readReference(t)
	samples := excerpt(t, ref)
	net, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	emb, err := net.Embed(samples, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range Blocks {
		want := ref.Pooled[b.Name]
		if len(want) != b.Len {
			t.Fatalf("%s: %d values in the reference, %d in the block", b.Name, len(want), b.Len)
		}
		got := emb[b.Offset:][:b.Len]
		scale, worst := 0.0, 0.0
		for k, w := range want {
			scale = max(scale, math.Abs(w))
			worst = max(worst, math.Abs(float64(got[k])-w))
		}
		t.Logf("%s: max abs error %.2g of largest %.3g", b.Name, worst, scale)
		if worst > pooledTol*max(scale, 1e-3) {
			t.Errorf("%s: error %g, largest value %g", b.Name, worst, scale)
		}
	}
}

// BenchmarkForward is one window's forward pass (2 s of audio), one core;
// cpu-ms/window is the process's CPU time (with the GC's), what
// testdata/node/reference.mjs's BENCH=n prints for TensorFlow.js.
func BenchmarkForward(b *testing.B) {
	ref := readReference(b)
	w := Windows(excerpt(b, ref), 0)[0]
	net, err := Load()
	if err != nil {
		b.Fatal(err)
	}
	cpu0 := cputime.Self()
	for b.Loop() {
		if _, err := net.Run(w); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cputime.Self()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/window")
}

func TestRunRejectsOtherWindowLengths(t *testing.T) {
	net, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := net.Run(make([]float32, WindowSamples-1)); err == nil {
		t.Error("a window one sample short runs")
	}
	// A track shorter than a window is one zero-padded window.
	if ws := Windows(make([]float32, 1000), DefaultExcerpts); len(ws) != 1 || len(ws[0]) != WindowSamples {
		t.Errorf("a short track: %d windows", len(ws))
	}
}
