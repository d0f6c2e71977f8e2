package cputime

import (
	"os/exec"
	"runtime"
	"testing"
	"time"
)

func TestSelfGrowsWithWork(t *testing.T) {
	before := Self()
	x := 0
	for i := 0; Self()-before == 0 && i < 1e10; i++ {
		x += i
	}
	if Self() <= before {
		t.Fatalf("Self did not grow with work (%d)", x)
	}
}

func TestChildrenCountsWaitedProcesses(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	before := Children()
	for i := 0; Children() == before && i < 50; i++ {
		if err := exec.Command(sh, "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done").Run(); err != nil {
			t.Fatal(err)
		}
	}
	if Children() <= before {
		t.Fatal("Children did not grow after waited child processes")
	}
	// Self only grows, so Total read after both is at least their sum –
	// and is below it if it leaves the children out.
	c, s := Children(), Self()
	if tot := Total(); tot < s+c {
		t.Fatalf("Total %v is below Self %v plus Children %v", tot, s, c)
	}
}

// TestThreadCountsOnlyItsThread: work on the locked thread shows in
// Thread; work on another goroutine's thread, measured from here, does
// not.
func TestThreadCountsOnlyItsThread(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := Thread()
	if before == 0 && runtime.GOOS != "linux" {
		t.Skip("no per-thread CPU time here")
	}
	x := 0
	for i := 0; Thread()-before == 0 && i < 1e10; i++ {
		x += i
	}
	if Thread() <= before {
		t.Fatalf("Thread did not grow with work (%d)", x)
	}
	mine, self := Thread(), Self()
	done := make(chan int)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		s0, y := Self(), 0
		for i := 0; Self()-s0 < 50*time.Millisecond && i < 1e10; i++ {
			y += i
		}
		done <- y
	}()
	<-done
	if Thread()-mine >= Self()-self {
		t.Errorf("the thread's time grew by %v, the process's by %v: another thread's work counted", Thread()-mine, Self()-self)
	}
}
