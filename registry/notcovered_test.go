package registry

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Tests for branches no registry test reached when gremlins v0.6.0 ran the
// package at 5eb82f7 (its "not covered" mutants; testdata/mutate.md).

// The files an approval message names ("changed files: -a +b ~c") are in
// path order, whatever their mark, each once.
func TestChangedFilesInPathOrder(t *testing.T) {
	tests := []struct {
		name     string
		old, cur map[string]string
		want     []string
	}{
		{"nothing changed", map[string]string{"bin": "1"}, map[string]string{"bin": "1"}, nil},
		{"one of each", map[string]string{"a": "1", "c": "1", "d": "1"}, map[string]string{"b": "1", "c": "2", "d": "1"},
			[]string{"-a", "+b", "~c"}},
		{"the mark does not order", map[string]string{"z/old": "1", "m": "1"}, map[string]string{"a/new": "1", "m": "2"},
			[]string{"+a/new", "~m", "-z/old"}},
		{"executable bit", map[string]string{"run": "1"}, map[string]string{"run": "1" + executableMark}, []string{"~run"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ChangedFiles(tt.old, tt.cur)); diff != "" {
				t.Fatalf("ChangedFiles (-want +got):\n%s", diff)
			}
		})
	}
}

// A tool whose folder could not be read (its binary not built) cannot be
// approved: `host approve NAME` fails saying why, and `host approve --all`
// goes on, listing it as skipped with the reason. Neither writes an entry.
func TestApproveToolNotReady(t *testing.T) {
	tests := []struct {
		name    string
		names   []string
		wantErr bool
	}{
		{"by name", []string{"alpha"}, true},
		{"all", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, r := lockedRegistry(t)
			bin := filepath.Join(root, "alpha", "bin")
			if err := os.Remove(bin); err != nil {
				t.Fatal(err)
			}
			reason := bin + " not found — run make"
			changes, err := r.Approve(tt.names, "tester via test")
			if tt.wantErr {
				if err == nil || !strings.HasPrefix(err.Error(), "registry: approve alpha: "+reason) {
					t.Fatalf("approve alpha without its binary: %+v, %v; want an error saying %q", changes, err, reason)
				}
			} else if err != nil || len(changes) != 1 || changes[0].Tool != "alpha" || !strings.HasPrefix(changes[0].Skipped, reason) {
				t.Fatalf("approve --all without alpha's binary: %+v, %v; want alpha skipped, saying %q", changes, err, reason)
			}
			if l, err := ReadLock(root); err != nil || l.Tools["alpha"] != nil {
				t.Fatalf("lock after approving a tool that is not ready: %+v, %v", l, err)
			}
		})
	}
}

// A tool.yaml that cannot be read is listed broken with the read error,
// and the other plugins load.
func TestUnreadableManifestIsBroken(t *testing.T) {
	root := t.TempDir()
	addTool(t, root, "alpha", "", true)
	path := filepath.Join(root, "beta", "tool.yaml")
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	snap := New(Options{PluginDirs: []string{root}, Getenv: func(string) string { return "" }}).Scan()
	if len(snap.Broken) != 1 || snap.Broken[0].Path != path || !strings.Contains(snap.Broken[0].Error, "is a directory") {
		t.Fatalf("broken %+v, want %s with its read error", snap.Broken, path)
	}
	if tool, _ := snap.Tool("alpha"); tool == nil || !tool.Ready {
		t.Fatalf("alpha beside an unreadable manifest: %+v", tool)
	}
}

// Two host processes launching one tool at once both make its run copy;
// the second's rename finds the first's copy in place, and it launches
// from that one (checked), leaving no temporary copy behind. A rename that
// fails with no copy there is reported as such.
func TestAnotherHostsRunCopyIsUsed(t *testing.T) {
	tests := []struct {
		name       string
		otherFirst bool // another process made the copy before the rename
		wantErr    string
	}{
		{"another host made it first", true, ""},
		{"rename failed, nothing there", false, "registry: run copy of alpha: rename "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			addTool(t, root, "alpha", "", true)
			writeFile(t, filepath.Join(root, "alpha", "lib", "helper.py"), "print('hi')\n", 0o644)
			runDir := filepath.Join(t.TempDir(), "run")
			tool, _ := New(Options{PluginDirs: []string{root}, RunDir: runDir}).Scan().Tool("alpha")
			if tool == nil || !tool.Ready {
				t.Fatalf("alpha: %+v", tool)
			}
			hc := NewHashCache("", nil)
			dst := runCopyDir(runDir, tool.Digest)
			if tt.otherFirst {
				if _, err := RunCopy(tool, runDir, hc); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.MkdirAll(runDir, 0o700); err != nil {
				t.Fatal(err)
			}
			tmp, err := os.MkdirTemp(runDir, ".copy-")
			if err != nil {
				t.Fatal(err)
			}
			if err := copyFolder(tool.Dir, tmp); err != nil {
				t.Fatal(err)
			}
			if !tt.otherFirst {
				// The rename fails as it would on a full or read-only disk.
				if err := RemoveRunCopy(tmp); err != nil {
					t.Fatal(err)
				}
			}
			err = placeRunCopy(tool, tmp, dst, hc)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("placing a copy where another host's is: %v", err)
				}
			} else if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) || errors.Is(err, ErrRunCopyChanged) {
				t.Fatalf("a failed rename with no copy there: %v, want %q...", err, tt.wantErr)
			}
			var left []string
			entries, _ := os.ReadDir(runDir)
			for _, e := range entries {
				left = append(left, e.Name())
			}
			var want []string
			if tt.otherFirst {
				want = []string{filepath.Base(dst)}
			}
			if diff := cmp.Diff(want, left); diff != "" {
				t.Fatalf("left in the run folder (-want +got):\n%s", diff)
			}
		})
	}
}
