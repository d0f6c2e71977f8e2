package app

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user + system) this process and the children
// it has waited for (ffmpeg) have used. Unlike wall time it does not grow
// when other work shares the machine, so the cost model (infra/costmodel)
// takes its per-request Lambda durations from it. The process includes
// the benchmark's HTTP client: an upper bound of the server's share.
func cpuTime() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return total
}
