package registry

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A folder that changes between the scan and the copy is refused with what
// changed, and no run copy is left to be launched later.
func TestFolderChangedWhileCopiedLeavesNoCopy(t *testing.T) {
	root := t.TempDir()
	addTool(t, root, "alpha", "", true)
	runDir := filepath.Join(t.TempDir(), "run")
	tool, _ := New(Options{PluginDirs: []string{root}, RunDir: runDir}).Scan().Tool("alpha")
	if tool == nil || !tool.Ready {
		t.Fatalf("alpha: %+v", tool)
	}
	writeFile(t, filepath.Join(root, "alpha", "extra.txt"), "x", 0o644)
	_, err := RunCopy(tool, runDir, NewHashCache("", nil))
	if err == nil || !strings.Contains(err.Error(), "changed while it was copied (+extra.txt)") {
		t.Fatalf("run copy of a folder changed since the scan: %v", err)
	}
	entries, _ := os.ReadDir(runDir)
	if len(entries) != 0 {
		t.Fatalf("left in the run folder: %v", entries)
	}
}

// An approved tool whose folder changed after the scan is refused at its
// launch as an approval error (what a person does: approve it again), even
// when the scan read every file (no VerifyAtLaunch).
func TestApprovedFolderChangedAfterTheScan(t *testing.T) {
	root, r := lockedRegistry(t)
	if _, err := r.Approve(nil, "tester via test"); err != nil {
		t.Fatal(err)
	}
	tool := alpha(t, r)
	if !tool.Ready || tool.Unverified {
		t.Fatalf("alpha: ready %v, unverified %v: %s", tool.Ready, tool.Unverified, tool.NotReady)
	}
	writeFile(t, filepath.Join(root, "alpha", "lib", "helper.py"), "import os\n", 0o644)
	_, err := RunCopy(tool, r.opts.RunDir, NewHashCache("", nil))
	var ae *ApprovalError
	if !errors.As(err, &ae) || !strings.HasPrefix(ae.Reason, "changed — needs approval") ||
		!strings.Contains(ae.Reason, "~lib/helper.py") || !strings.Contains(ae.NextStep, "host approve alpha") {
		t.Fatalf("launch of an approved tool changed since the scan: %v, want an ApprovalError", err)
	}
}

// Removing a run copy that is already gone is not an error.
func TestRemoveRunCopyOfAMissingFolder(t *testing.T) {
	if err := RemoveRunCopy(filepath.Join(t.TempDir(), "gone")); err != nil {
		t.Fatal(err)
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
