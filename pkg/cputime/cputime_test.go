package cputime

import (
	"os/exec"
	"testing"
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
	if Total() < Self()+before {
		t.Fatal("Total is below Self plus the children's time")
	}
}
