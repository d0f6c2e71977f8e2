package cputime

import (
	"syscall"
	"time"
)

// Self is the CPU time this process has used; 0 if the kernel will not say.
func Self() time.Duration { return of(syscall.RUSAGE_SELF) }

// Children is the CPU time of the finished child processes this process
// has waited for; 0 if the kernel will not say.
func Children() time.Duration { return of(syscall.RUSAGE_CHILDREN) }

// Thread is the CPU time the calling OS thread has used (Linux; 0 where
// the kernel will not say): lock the goroutine to its thread
// (runtime.LockOSThread) around what is measured.
func Thread() time.Duration { return of(rusageThread) }

// rusageThread is Linux's RUSAGE_THREAD, which package syscall does not
// name.
const rusageThread = 1

// Total is Self plus Children.
func Total() time.Duration { return Self() + Children() }

func of(who int) time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(who, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
