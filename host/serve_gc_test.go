package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestTuneGCLeavesAChosenGOGC: serve raises the collector's target only
// when the person running it did not choose one with GOGC.
func TestTuneGCLeavesAChosenGOGC(t *testing.T) {
	for _, tt := range []struct {
		name string
		gogc *string
		want int
	}{
		{"unset", nil, serveGCPercent},
		{"set", ptr("150"), 150},
		{"off", ptr("off"), 150}, // the runtime applied it at start; tuneGC leaves whatever is in force
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := debug.SetGCPercent(150)
			t.Cleanup(func() { debug.SetGCPercent(before) })
			if old, had := os.LookupEnv("GOGC"); had {
				t.Cleanup(func() { os.Setenv("GOGC", old) })
			} else {
				t.Cleanup(func() { os.Unsetenv("GOGC") })
			}
			if tt.gogc == nil {
				os.Unsetenv("GOGC")
			} else {
				os.Setenv("GOGC", *tt.gogc)
			}
			tuneGC()
			if got := debug.SetGCPercent(150); got != tt.want {
				t.Errorf("GC percent after tuneGC: got %d, want %d", got, tt.want)
			}
		})
	}
}

func ptr(s string) *string { return &s }

// TestTuneProcsLeavesAChosenGOMAXPROCS: serving stdio runs the host's Go
// code on stdioProcs threads only when the person running it did not choose
// with GOMAXPROCS.
func TestTuneProcsLeavesAChosenGOMAXPROCS(t *testing.T) {
	for _, tt := range []struct {
		name string
		env  *string
		want int
	}{
		{"unset", nil, stdioProcs},
		{"set", ptr("3"), 3}, // the runtime applied it at start; tuneProcs leaves whatever is in force
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := runtime.GOMAXPROCS(3)
			t.Cleanup(func() { runtime.GOMAXPROCS(before) })
			if tt.env == nil {
				t.Setenv("GOMAXPROCS", "")
				os.Unsetenv("GOMAXPROCS")
			} else {
				t.Setenv("GOMAXPROCS", *tt.env)
			}
			tuneProcs()
			if got := runtime.GOMAXPROCS(0); got != tt.want {
				t.Errorf("GOMAXPROCS after tuneProcs: got %d, want %d", got, tt.want)
			}
		})
	}
}
