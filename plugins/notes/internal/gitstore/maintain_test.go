package gitstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestMaintenanceDue: git maintenance run --auto starts only when git's own
// checks could find work: loose objects past gc.auto's estimate, packs past
// gc.autoPackLimit, or a maintenance task configured; never when
// maintenance.auto or gc.auto turn it off.
func TestMaintenanceDue(t *testing.T) {
	ctx := context.Background()
	loose := func(t *testing.T, g Runner, n int) {
		dir := filepath.Join(g.Dir, ".git", "objects", "17")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			write(t, g, fmt.Sprintf(".git/objects/17/%038x", i), "")
		}
	}
	packs := func(t *testing.T, g Runner, n int) {
		for i := range n {
			for _, ext := range []string{"idx", "pack"} {
				write(t, g, fmt.Sprintf(".git/objects/pack/pack-%040x.%s", i, ext), "")
			}
		}
	}
	config := func(kv ...string) func(t *testing.T, g Runner) {
		return func(t *testing.T, g Runner) {
			for i := 0; i < len(kv); i += 2 {
				if _, err := g.Run(ctx, "config", kv[i], kv[i+1]); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	tests := []struct {
		name  string
		setup []func(t *testing.T, g Runner)
		want  bool
	}{
		{"a fresh repository", nil, false},
		{"27 loose objects in folder 17", []func(*testing.T, Runner){func(t *testing.T, g Runner) { loose(t, g, 27) }}, false},
		{"28 loose objects in folder 17", []func(*testing.T, Runner){func(t *testing.T, g Runner) { loose(t, g, 28) }}, true},
		{"gc.auto 0", []func(*testing.T, Runner){func(t *testing.T, g Runner) { loose(t, g, 28) }, config("gc.auto", "0")}, false},
		{"maintenance.auto false", []func(*testing.T, Runner){func(t *testing.T, g Runner) { loose(t, g, 28) }, config("maintenance.auto", "false")}, false},
		{"gc.auto 256: more than one", []func(*testing.T, Runner){func(t *testing.T, g Runner) { loose(t, g, 2) }, config("gc.auto", "256")}, true},
		{"51 packs", []func(*testing.T, Runner){func(t *testing.T, g Runner) { packs(t, g, 51) }}, true},
		{"3 packs, limit 2", []func(*testing.T, Runner){func(t *testing.T, g Runner) { packs(t, g, 3) }, config("gc.autoPackLimit", "2")}, true},
		{"a maintenance task enabled", []func(*testing.T, Runner){config("maintenance.commit-graph.enabled", "true")}, true},
		{"gc.auto as 10k", []func(*testing.T, Runner){config("gc.auto", "10k")}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := repo(t, map[string]string{"a.md": "a\n"})
			if !autoRulesKnown(ctx) {
				t.Skip("this git's automatic maintenance rules are not known; it always runs")
			}
			for _, f := range tt.setup {
				f(t, g)
			}
			if got := g.MaintenanceDue(ctx); got != tt.want {
				t.Fatalf("MaintenanceDue = %v, want %v", got, tt.want)
			}
		})
	}
}
