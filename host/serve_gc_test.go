package main

import (
	"os"
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
