package registry

import (
	"path/filepath"
	"strings"
	"testing"
)

// The approval key is at least 16 bytes of hex: a shorter or partly
// unreadable key file is damaged, and the error names the file and the fix.
func TestReadKeyRefusesAShortOrDamagedKey(t *testing.T) {
	tests := []struct {
		name, file string
		wantLen    int // 0: refused
	}{
		{"32 bytes", strings.Repeat("ab", 32) + "\n", 32},
		{"16 bytes, the least", strings.Repeat("ab", 16), 16},
		{"15 bytes", strings.Repeat("ab", 15) + "\n", 0},
		{"20 bytes, then not hex", strings.Repeat("ab", 20) + "zz\n", 0},
		{"empty", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := t.TempDir()
			writeFile(t, filepath.Join(state, KeyFile), tt.file, 0o600)
			key, err := ReadKey(state)
			if tt.wantLen > 0 {
				if err != nil || len(key) != tt.wantLen {
					t.Fatalf("got %d bytes, %v; want a %d-byte key", len(key), err, tt.wantLen)
				}
				return
			}
			if err == nil || key != nil || !strings.Contains(err.Error(), filepath.Join(state, KeyFile)+" is damaged: delete it") {
				t.Fatalf("got %x, %v; want an error naming the damaged file", key, err)
			}
		})
	}
}

// A damaged approval key makes every approved tool changed, saying the key
// is damaged and what to do, not that its entry was signed by someone else.
func TestDamagedKeyIsNamed(t *testing.T) {
	_, r := lockedRegistry(t)
	if _, err := r.Approve(nil, "tester via test"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(r.opts.StateDir, KeyFile), "not a key\n", 0o600)
	tool := alpha(t, r)
	if tool.Ready || tool.Approval != ApprovalChanged || !strings.Contains(tool.NotReady, KeyFile+" is damaged: delete it") {
		t.Fatalf("with a damaged key: ready %v, %s: %s", tool.Ready, tool.Approval, tool.NotReady)
	}
}
