package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestMain lets the test binary stand in for a measured command:
// CPURUN_CHILD=spin burns CPU, CPURUN_CHILD=fail complains and exits 3.
func TestMain(m *testing.M) {
	switch os.Getenv("CPURUN_CHILD") {
	case "spin":
		x := uint64(1)
		for i := range 20_000_000 {
			x = x*6364136223846793005 + uint64(i)
		}
		fmt.Fprintf(os.Stderr, "%d\n", x)
		os.Stdout.WriteString("spun\n")
		os.Exit(0)
	case "fail":
		os.Stderr.WriteString("no such workbook\n")
		os.Exit(3)
	}
	os.Exit(m.Run())
}

func TestMeasureAddsUpRuns(t *testing.T) {
	t.Setenv("CPURUN_CHILD", "spin")
	out := t.TempDir() + "/out"
	gone := t.TempDir() + "/saved"
	if err := os.WriteFile(gone, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := measure(3, out, gone, []string{os.Args[0]})
	if err != nil {
		t.Fatal(err)
	}
	if m.cpu <= 0 || m.wall <= 0 {
		t.Errorf("measured %v CPU and %v wall per run: want both above zero", m.cpu, m.wall)
	}
	if m.rssKB <= 0 {
		t.Errorf("peak RSS %d KiB: want the child's", m.rssKB)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != "spun\n" {
		t.Errorf("stdout file holds %q (%v): want the last run's output", b, err)
	}
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("-rm file still there (%v): want it removed before the runs", err)
	}
}

func TestMeasureStopsOnAFailedRun(t *testing.T) {
	t.Setenv("CPURUN_CHILD", "fail")
	_, err := measure(5, os.DevNull, "", []string{os.Args[0]})
	if err == nil || !strings.Contains(err.Error(), "no such workbook") || !strings.Contains(err.Error(), "run 1") {
		t.Fatalf("measure of a failing command: %v, want its stderr and the run number", err)
	}
}
