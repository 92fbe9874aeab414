//go:build linux || darwin

package registry

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lazyRegistry approves alpha (as lockedRegistry makes it) and returns a
// second registry on the same folders, as `host serve` opens them
// (VerifyAtLaunch), with hc for its hash cache.
func lazyRegistry(t *testing.T, hc *HashCache) (root string, r *Registry) {
	t.Helper()
	root, approver := lockedRegistry(t)
	if _, err := approver.Approve(nil, "tester via test"); err != nil {
		t.Fatal(err)
	}
	o := approver.opts
	o.VerifyAtLaunch, o.Hashes = true, hc
	return root, New(o)
}

// TestStartReadsNoUnseenFile: with a hash cache that has seen nothing, the
// serving scan lists an approved tool ready without reading one of its
// files; the first launch reads them, and the next scan finds them seen.
func TestStartReadsNoUnseenFile(t *testing.T) {
	hc := NewHashCache("", nil)
	_, r := lazyRegistry(t, hc)
	tool := alpha(t, r)
	if !tool.Ready || tool.Approval != ApprovalOK || !tool.Unverified {
		t.Fatalf("approved tool at start: ready %v, %s, unverified %v: %s", tool.Ready, tool.Approval, tool.Unverified, tool.NotReady)
	}
	if hc.hashed != 0 {
		t.Fatalf("the start read %d files, want none", hc.hashed)
	}
	d, err := DigestFolder(tool.Dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tool.Digest != d.Sum || tool.SHA256 != strings.TrimSuffix(d.Files["bin"], executableMark) {
		t.Fatalf("digest taken on trust %s (binary %s), want the folder's %s (%s)", tool.Digest, tool.SHA256, d.Sum, d.Files["bin"])
	}
	if _, err := RunCopy(tool, r.opts.RunDir, hc); err != nil {
		t.Fatalf("first launch of an unchanged tool: %v", err)
	}
	if hc.hashed == 0 {
		t.Fatal("the first launch read no file: nothing checked the folder")
	}
	read := hc.hashed
	if tool := alpha(t, r); !tool.Ready || tool.Unverified {
		t.Fatalf("after the first launch: ready %v, unverified %v", tool.Ready, tool.Unverified)
	}
	if hc.hashed != read {
		t.Fatalf("the rescan read %d files again", hc.hashed-read)
	}
}

// TestChangedBeforeFirstLaunchRefused: a file changed after the approval
// where no hash was kept (mtime restored, so only the change time shows
// it) cannot be seen without reading it; the scan takes it on trust, and
// the first launch reads it and refuses, with what changed and the command
// that approves it, making no run copy; the rescan lists it changed.
func TestChangedBeforeFirstLaunchRefused(t *testing.T) {
	tests := []struct {
		name   string
		change func(root string)
		want   string
	}{
		{"binary replaced", func(root string) {
			restoreMtime(t, filepath.Join(root, "alpha", "bin"), "#!/bin/sh\necho evil\n")
		}, "changed files: ~bin"},
		{"side file replaced", func(root string) {
			restoreMtime(t, filepath.Join(root, "alpha", "lib", "helper.py"), "import os\n")
		}, "changed files: ~lib/helper.py"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc := NewHashCache("", nil)
			root, r := lazyRegistry(t, hc)
			tool := alpha(t, r) // the start
			tt.change(root)     // between the start and the first call
			_, err := RunCopy(tool, r.opts.RunDir, hc)
			var ae *ApprovalError
			if !errors.As(err, &ae) || !strings.HasPrefix(ae.Reason, "changed — needs approval: ") || !strings.Contains(ae.Reason, tt.want) ||
				!strings.Contains(ae.Reason, "since tester via test approved it") || !strings.Contains(ae.NextStep, "host approve alpha") {
				t.Fatalf("first launch of a changed folder: %v (%+v), want an ApprovalError saying %q", err, ae, tt.want)
			}
			if entries, _ := os.ReadDir(r.opts.RunDir); len(entries) != 0 {
				t.Fatalf("a run copy was made of a changed folder: %v", entries)
			}
			if tool := alpha(t, r); tool.Ready || tool.Approval != ApprovalChanged || !strings.Contains(tool.NotReady, tt.want) {
				t.Fatalf("rescan after the refused launch: ready %v, %s: %s", tool.Ready, tool.Approval, tool.NotReady)
			}
		})
	}
}

// TestStartSeesWhatItCan: what the serving scan can see without reading an
// unseen file it still refuses at once: a file added or removed, an edited
// manifest (the scan reads it anyway), a file the cache saw before with
// another stat, and a lock entry not signed with the user's key.
func TestStartSeesWhatItCan(t *testing.T) {
	tests := []struct {
		name   string
		warm   bool // the cache has seen the folder
		change func(t *testing.T, root string)
		want   string
	}{
		{"file added", false, func(t *testing.T, root string) {
			writeFile(t, filepath.Join(root, "alpha", "extra.so"), "x", 0o644)
		}, "changed files: +extra.so"},
		{"file removed", false, func(t *testing.T, root string) {
			os.Remove(filepath.Join(root, "alpha", "lib", "helper.py"))
		}, "changed files: -lib/helper.py"},
		{"made executable", false, func(t *testing.T, root string) {
			os.Chmod(filepath.Join(root, "alpha", "lib", "helper.py"), 0o755)
		}, "changed files: ~lib/helper.py"},
		{"manifest made irreversible", false, func(t *testing.T, root string) {
			m := strings.Replace(strings.ReplaceAll(validManifest, "%s", "alpha"), "    read_only: true\n", "    reversible: false\n", 1)
			restoreMtime(t, filepath.Join(root, "alpha", "tool.yaml"), m)
		}, "action list-credentials was read-only, is now irreversible"},
		{"binary replaced after it was seen", true, func(t *testing.T, root string) {
			restoreMtime(t, filepath.Join(root, "alpha", "bin"), "#!/bin/sh\necho evil\n")
		}, "changed files: ~bin"},
		{"lock entry forged", false, func(t *testing.T, root string) {
			l, _ := ReadLock(root)
			l.Tools["alpha"].ApprovedBy = "someone else"
			if err := l.write(root); err != nil {
				t.Fatal(err)
			}
		}, "not signed with this user's approval key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc := NewHashCache("", nil)
			root, r := lazyRegistry(t, hc)
			if tt.warm {
				if _, err := RunCopy(alpha(t, r), r.opts.RunDir, hc); err != nil {
					t.Fatal(err)
				}
			}
			tt.change(t, root)
			if tool := alpha(t, r); tool.Ready || tool.Approval != ApprovalChanged || !strings.Contains(tool.NotReady, tt.want) {
				t.Fatalf("serving scan after the change: ready %v, %s: %s; want changed, saying %q", tool.Ready, tool.Approval, tool.NotReady, tt.want)
			}
		})
	}
}

// TestRewrittenFileStaysApproved: a file the cache saw, written again with
// the bytes it was approved with (a rebuild that reproduces the binary, a
// checkout), has a new change time: the serving scan reads it again rather
// than trust or refuse it, and the tool stays approved.
func TestRewrittenFileStaysApproved(t *testing.T) {
	hc := NewHashCache("", nil)
	root, r := lazyRegistry(t, hc)
	if _, err := RunCopy(alpha(t, r), r.opts.RunDir, hc); err != nil {
		t.Fatal(err)
	}
	read := hc.hashed
	restoreMtime(t, filepath.Join(root, "alpha", "bin"), "#!/bin/sh\n")
	tool := alpha(t, r)
	if !tool.Ready || tool.Approval != ApprovalOK || tool.Unverified {
		t.Fatalf("after bin was written again unchanged: ready %v, %s, unverified %v: %s", tool.Ready, tool.Approval, tool.Unverified, tool.NotReady)
	}
	if hc.hashed != read+1 {
		t.Fatalf("the scan read %d files, want the rewritten one", hc.hashed-read)
	}
}

// TestApproveKeepsHashes: the approval that makes the user's key keeps the
// hashes it read in the persisted cache, so the next start reads nothing
// and takes nothing on trust; also when the approving process scanned
// before it (`host approve --tracked`, `host new-plugin`), reading the
// files while it had no key to save them under.
func TestApproveKeepsHashes(t *testing.T) {
	for _, scanFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("scan first %v", scanFirst), func(t *testing.T) {
			_, approver := lockedRegistry(t)
			cacheFile := filepath.Join(t.TempDir(), "hashes.json")
			o := approver.opts
			o.Hashes = NewHashCache(cacheFile, nil) // no key yet: the first approval makes it
			r := New(o)
			if scanFirst {
				if tool := alpha(t, r); tool.Ready || o.Hashes.hashed == 0 {
					t.Fatalf("before approval: ready %v, %d files read", tool.Ready, o.Hashes.hashed)
				}
			}
			if _, err := r.Approve(nil, "tester via test"); err != nil {
				t.Fatal(err)
			}
			key, err := ReadKey(o.StateDir)
			if err != nil || key == nil {
				t.Fatalf("approval key: %v", err)
			}
			hc := NewHashCache(cacheFile, key)
			o.Hashes, o.VerifyAtLaunch = hc, true
			if tool := alpha(t, New(o)); !tool.Ready || tool.Unverified || hc.hashed != 0 {
				t.Fatalf("start after approval: ready %v, unverified %v, %d files read: %s", tool.Ready, tool.Unverified, hc.hashed, tool.NotReady)
			}
		})
	}
}

// TestRescanParsesOnlyWhatChanged: an unchanged manifest is not parsed
// again (the snapshot shares it); a changed one is.
func TestRescanParsesOnlyWhatChanged(t *testing.T) {
	root := t.TempDir()
	addTool(t, root, "alpha", "", true)
	addTool(t, root, "beta", "", true)
	r := New(Options{PluginDirs: []string{root}, Getenv: func(string) string { return "" }})
	first := r.Scan()
	writeFile(t, filepath.Join(root, "beta", "tool.yaml"), strings.Replace(strings.ReplaceAll(validManifest, "%s", "beta"), "A tool for tests.", "Edited.", 1), 0o644)
	second := r.Scan()
	a1, _ := first.Tool("alpha")
	a2, _ := second.Tool("alpha")
	b1, _ := first.Tool("beta")
	b2, _ := second.Tool("beta")
	if a1.Manifest != a2.Manifest {
		t.Error("an unchanged manifest was parsed again")
	}
	if b1.Manifest == b2.Manifest || b2.Manifest.Description != "Edited." {
		t.Errorf("an edited manifest was not parsed again: %q", b2.Manifest.Description)
	}
}
