//go:build unix

package regular

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestOnlyRegularFilesOpen(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "log.jsonl")
	if err := os.WriteFile(file, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "zero.jsonl")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		ok         bool
	}{
		{"regular file", file, true},
		{"FIFO", fifo, false},
		{"link to a device", link, false},
		{"folder", dir, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := ReadFile(tc.path, 1<<20)
			if tc.ok && (err != nil || string(b) != "{}\n") {
				t.Errorf("ReadFile = %q, %v; want the file", b, err)
			}
			if !tc.ok && !errors.Is(err, ErrNotRegular) {
				t.Errorf("ReadFile = %v, want ErrNotRegular", err)
			}
			if _, err := Stat(tc.path); tc.ok != (err == nil) {
				t.Errorf("Stat = %v, want ok %v", err, tc.ok)
			}
		})
	}
	if _, err := ReadFile(file, 2); err == nil {
		t.Error("ReadFile over its limit succeeded")
	}
}
