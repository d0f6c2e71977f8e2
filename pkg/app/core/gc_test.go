package core

import (
	"runtime/debug"
	"testing"
)

// TestTuneGC: on Lambda the collector runs against the function's memory,
// unless the operator chose GOGC or GOMEMLIMIT; elsewhere nothing changes.
func TestTuneGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	for _, c := range []struct {
		mem, gogc, limit string
		want             int64
	}{
		{mem: "", want: 0},
		{mem: "1024", gogc: "200", want: 0},
		{mem: "1024", limit: "500MiB", want: 0},
		{mem: "junk", want: 0},
		{mem: "1024", want: 858993459},
	} {
		t.Setenv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", c.mem)
		t.Setenv("GOGC", c.gogc)
		t.Setenv("GOMEMLIMIT", c.limit)
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(1 << 62)
		limit, ok := tuneGC()
		if limit != c.want || ok != (c.want > 0) {
			t.Errorf("%+v: limit %d, %v", c, limit, ok)
		}
		gogc := debug.SetGCPercent(100)
		mem := debug.SetMemoryLimit(1 << 62)
		if c.want > 0 && (gogc >= 0 || mem != c.want) {
			t.Errorf("%+v: GOGC %d, GOMEMLIMIT %d", c, gogc, mem)
		}
		if c.want == 0 && (gogc != 100 || mem != 1<<62) {
			t.Errorf("%+v: changed GOGC %d, GOMEMLIMIT %d", c, gogc, mem)
		}
	}
}
