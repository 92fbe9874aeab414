package journal

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestClearStaleGitLocks: the locks a killed git child leaves inside the
// interrupted operation's time are removed — index.lock, the branch's ref
// lock, `git commit -- PATHS`'s temporary index (next-index-<pid>.lock) and
// the message a killed revert was writing (MERGE_MSG.lock) — and a lock older than the operation is left to whoever made it.
func TestClearStaleGitLocks(t *testing.T) {
	root := t.TempDir()
	git := filepath.Join(root, ".git")
	if err := os.MkdirAll(filepath.Join(git, "refs", "heads"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(git, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	old := started.Add(-time.Hour)
	tests := []struct {
		name    string
		mtime   time.Time
		removed bool
	}{
		{"index.lock", started, true},
		{"next-index-20025.lock", started, true},
		{"refs/heads/main.lock", started, true},
		{"MERGE_MSG.lock", started, true},
		{"config.lock", started, true},
		{"next-index-11.lock", old, false},
		{"HEAD.lock", old, false},
	}
	for _, tt := range tests {
		p := filepath.Join(git, filepath.FromSlash(tt.name))
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, tt.mtime, tt.mtime); err != nil {
			t.Fatal(err)
		}
	}
	Store{Root: root}.ClearStaleGitLocks(&Journal{Started: started.UTC().Format(time.RFC3339Nano)})
	for _, tt := range tests {
		_, err := os.Stat(filepath.Join(git, filepath.FromSlash(tt.name)))
		if gone := os.IsNotExist(err); gone != tt.removed {
			t.Errorf("%s: removed %v, want %v", tt.name, gone, tt.removed)
		}
	}
}
