// Package cputime reads the CPU time (user + system) the process and the
// child processes it has waited for (ffmpeg) have used. Benchmarks report
// it beside wall time: unlike wall time it does not grow when other work
// shares the machine, so figures stay comparable on a loaded host.
package cputime
