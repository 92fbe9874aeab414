package registry

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEntrypointFileOnWindowsEndsInExe: the same tool.yaml names a plugin
// built as NAME on Linux and macOS and as NAME.exe on Windows (make
// release, make cross); a file named exactly as the entrypoint, or an
// entrypoint with an extension, is taken as written.
func TestEntrypointFileOnWindowsEndsInExe(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"both", "both.exe", "tool.exe", "run.py"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		entrypoint, goos, want string
	}{
		{"tool", "linux", "tool"},
		{"tool", "darwin", "tool"},
		{"tool", "windows", "tool.exe"},
		{"both", "windows", "both"},
		{"run.py", "windows", "run.py"},
		{"missing", "windows", "missing.exe"},
		{"bin/tool", "windows", filepath.Join("bin", "tool.exe")},
	}
	for _, tt := range tests {
		if got := entrypointFile(dir, tt.entrypoint, tt.goos); got != filepath.Join(dir, tt.want) {
			t.Errorf("entrypointFile(%q, %s) = %s, want %s", tt.entrypoint, tt.goos, got, filepath.Join(dir, tt.want))
		}
	}
}
