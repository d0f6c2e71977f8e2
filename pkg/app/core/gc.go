package core

import (
	"os"
	"runtime/debug"
	"strconv"
)

// lambdaHeapShare is the share of a Lambda function's memory the Go heap
// may take before the collector must run (GOMEMLIMIT); the rest is for
// the runtime's own memory, goroutine stacks, ffmpeg and the like.
const lambdaHeapShare = 0.8

// tuneGC sets the collector of a Lambda function to run against the
// function's memory rather than at every doubling of the heap: unless the
// operator set GOGC or GOMEMLIMIT, GOMEMLIMIT is lambdaHeapShare of
// AWS_LAMBDA_FUNCTION_MEMORY_SIZE and GOGC is off. A cold start builds a
// heap of hundreds of megabytes from nothing (the catalog snapshot, the
// search or fingerprint index); at 100k tracks the collector's cycles on
// the way were 0.65 s of a first search's 2.2 s on one vCPU
// (BenchmarkColdStartByText100k with GOGC=off: 1.56 s). The memory limit
// still makes the collector run, and harder as the heap nears it, so a
// long-lived instance neither runs out of memory for want of a
// collection nor collects while it has room to spare. Outside Lambda it
// does nothing.
func tuneGC() (limit int64, ok bool) {
	mb, err := strconv.ParseInt(os.Getenv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE"), 10, 64)
	if err != nil || mb <= 0 || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return 0, false
	}
	limit = int64(float64(mb<<20) * lambdaHeapShare)
	debug.SetMemoryLimit(limit)
	debug.SetGCPercent(-1)
	return limit, true
}
