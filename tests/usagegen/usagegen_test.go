package usagegen

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestDeterministic: the same seed writes the same bytes and totals.
func TestDeterministic(t *testing.T) {
	gen := func() ([]byte, map[string][]byte) {
		dir := t.TempDir()
		exp, err := Generate(dir, Config{Seed: 42, Days: 2, ContentBytes: 100})
		if err != nil {
			t.Fatal(err)
		}
		exp.ClaudeDir, exp.CodexDir = "", ""
		b, _ := json.Marshal(exp)
		files := map[string][]byte{}
		_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() {
				rel, _ := filepath.Rel(dir, p)
				files[rel], _ = os.ReadFile(p)
			}
			return nil
		})
		return b, files
	}
	e1, f1 := gen()
	e2, f2 := gen()
	if !bytes.Equal(e1, e2) {
		t.Error("expected totals differ between runs")
	}
	if len(f1) != len(f2) || len(f1) == 0 {
		t.Fatalf("got %d and %d files", len(f1), len(f2))
	}
	for k, v := range f1 {
		if !bytes.Equal(v, f2[k]) {
			t.Errorf("%s differs", k)
		}
	}
}

// TestSize: TargetBytes grows the logs to about that size.
func TestSize(t *testing.T) {
	exp, err := Generate(t.TempDir(), Config{Seed: 1, Days: 1, TargetBytes: 3 << 20, CodexSessionsPerDay: -1})
	if err != nil {
		t.Fatal(err)
	}
	if exp.ClaudeBytes < 3<<20 || exp.ClaudeBytes > 6<<20 {
		t.Errorf("got %d bytes, want about %d", exp.ClaudeBytes, 3<<20)
	}
	if exp.Codex.Total.Calls != 0 {
		t.Errorf("got %d codex calls, want none", exp.Codex.Total.Calls)
	}
}
