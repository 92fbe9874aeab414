package registry

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhost/toolhost/manifests"
)

// lockedRegistry is a plugins folder with one tool, alpha, and a registry
// with the approval lock on.
func lockedRegistry(t *testing.T) (root string, r *Registry) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "plugins")
	addTool(t, root, "alpha", "", true)
	writeFile(t, filepath.Join(root, "alpha", "lib", "helper.py"), "print('hi')\n", 0o644)
	r = New(Options{PluginDirs: []string{root}, RequireApproval: true, StateDir: filepath.Join(base, "state"),
		RunDir: filepath.Join(base, "run"), Getenv: func(string) string { return "" }})
	return root, r
}

func alpha(t *testing.T, r *Registry) *Tool {
	t.Helper()
	tool, _ := r.Scan().Tool("alpha")
	if tool == nil {
		t.Fatal("alpha not loaded")
	}
	return tool
}

// restoreMtime rewrites path with content and sets its modification time
// back, as an attacker covering their tracks would; the change time moves
// on regardless. It moves by the file system's clock, which may tick
// coarsely (a jiffy, 4 ms, for ext4 before Linux 6.13 and for ramfs): a
// rewrite within the tick of the write it replaces keeps the old ctime, and
// a same-size one then looks unchanged. So the file is touched again until
// its ctime differs: these tests are of a moved ctime, not of the clock's
// resolution (without this, TestHashCacheNeedsCtime failed every run on
// ramfs).
func restoreMtime(t *testing.T, path, content string) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	before, timed := ctimeOf(st)
	os.Chmod(filepath.Dir(path), 0o700)
	os.Chmod(path, 0o600)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, st.Mode().Perm())
	for guard := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		if err := os.Chtimes(path, st.ModTime(), st.ModTime()); err != nil {
			t.Fatal(err)
		}
		after, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if c, _ := ctimeOf(after); !timed || c != before {
			return
		}
		if time.Now().After(guard) {
			t.Fatalf("%s: its change time never moved on rewriting it", path)
		}
	}
}

func TestApprovalStates(t *testing.T) {
	root, r := lockedRegistry(t)
	if tool := alpha(t, r); tool.Ready || tool.Approval != ApprovalNew || !strings.HasPrefix(tool.NotReady, "new — needs approval") ||
		!strings.Contains(tool.NextStep, "host approve alpha") {
		t.Fatalf("unapproved tool: ready %v, %s: %s (next: %s)", tool.Ready, tool.Approval, tool.NotReady, tool.NextStep)
	}
	changes, err := r.Approve([]string{"alpha"}, "tester via test")
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].Was != ApprovalNew || !strings.Contains(strings.Join(changes[0].What, "\n"), "list-credentials (read-only)") {
		t.Fatalf("approve reported %+v", changes)
	}
	if tool := alpha(t, r); !tool.Ready || tool.Approval != ApprovalOK {
		t.Fatalf("approved tool not ready: %s: %s", tool.Approval, tool.NotReady)
	}
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(root), "plugins.lock"))
	if err != nil {
		t.Fatalf("no plugins.lock beside the plugins folder: %v", err)
	}
	var lock Lock
	if err := json.Unmarshal(raw, &lock); err != nil {
		t.Fatal(err)
	}
	if a := lock.Tools["alpha"]; a == nil || a.ApprovedBy != "tester via test" || a.ApprovedAt.IsZero() || a.Files["lib/helper.py"] == "" {
		t.Fatalf("lock entry: %s", raw)
	}

	tests := []struct {
		name   string
		change func()
		want   string // in NotReady
	}{
		{"side file changed", func() { restoreMtime(t, filepath.Join(root, "alpha", "lib", "helper.py"), "import os\n") }, "changed files: ~lib/helper.py"},
		{"binary replaced", func() { restoreMtime(t, filepath.Join(root, "alpha", "bin"), "#!/bin/sh\necho evil\n") }, "changed files: ~bin"},
		{"file added", func() { writeFile(t, filepath.Join(root, "alpha", "extra.so"), "x", 0o644) }, "changed files: +extra.so"},
		{"manifest made irreversible", func() {
			m := strings.Replace(strings.ReplaceAll(validManifest, "%s", "alpha"), "    read_only: true\n", "    reversible: false\n", 1)
			restoreMtime(t, filepath.Join(root, "alpha", "tool.yaml"), m)
		}, "action list-credentials was read-only, is now irreversible"},
		{"secret added", func() {
			m := strings.Replace(strings.ReplaceAll(validManifest, "%s", "alpha"), "entrypoint: bin", "entrypoint: bin\nsecrets:\n  - {name: api-token, env: ALPHA_TOKEN}", 1)
			restoreMtime(t, filepath.Join(root, "alpha", "tool.yaml"), m)
		}, "new secret: api-token"},
		{"action renamed", func() {
			m := strings.Replace(strings.ReplaceAll(validManifest, "%s", "alpha"), "name: read-sheet", "name: open-sheet", 1)
			restoreMtime(t, filepath.Join(root, "alpha", "tool.yaml"), m)
		}, "new action: open-sheet (read-only); removed action: read-sheet"},
		{"lock entry forged", func() {
			// Whoever can write the lock but not read the user's key
			// cannot approve: a changed binary with its digest written in.
			restoreMtime(t, filepath.Join(root, "alpha", "bin"), "#!/bin/sh\necho forged\n")
			d, _ := DigestFolder(filepath.Join(root, "alpha"), nil)
			l, _ := ReadLock(root)
			l.Tools["alpha"].Digest, l.Tools["alpha"].Files = d.Sum, d.Files
			if err := l.write(root); err != nil {
				t.Fatal(err)
			}
		}, "not signed with this user's approval key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := r.Approve(nil, "tester via test"); err != nil {
				t.Fatal(err)
			}
			if tool := alpha(t, r); !tool.Ready {
				t.Fatalf("not ready after approve: %s", tool.NotReady)
			}
			tt.change()
			tool := alpha(t, r)
			if tool.Ready || tool.Approval != ApprovalChanged || !strings.HasPrefix(tool.NotReady, "changed — needs approval") ||
				!strings.Contains(tool.NotReady, tt.want) {
				t.Fatalf("after %s: ready %v, %s: %s; want it to say %q", tt.name, tool.Ready, tool.Approval, tool.NotReady, tt.want)
			}
		})
	}
}

func TestApproveWithoutKeyIsNew(t *testing.T) {
	_, r := lockedRegistry(t)
	if _, err := r.Approve(nil, "x"); err != nil {
		t.Fatal(err)
	}
	// Another user (another key) sees the entry as not theirs.
	if err := os.Remove(filepath.Join(r.opts.StateDir, KeyFile)); err != nil {
		t.Fatal(err)
	}
	if tool := alpha(t, r); tool.Ready || tool.Approval != ApprovalChanged {
		t.Fatalf("approved without the key: %s %s", tool.Approval, tool.NotReady)
	}
}

func TestApproveUnknownNameSuggests(t *testing.T) {
	_, r := lockedRegistry(t)
	_, err := r.Approve([]string{"alpah"}, "x")
	if err == nil || !strings.Contains(err.Error(), `"alpah"`) || !strings.Contains(err.Error(), "alpha") {
		t.Fatalf("got %v", err)
	}
}

func TestRunCopy(t *testing.T) {
	root, r := lockedRegistry(t)
	if _, err := r.Approve(nil, "x"); err != nil {
		t.Fatal(err)
	}
	tool := alpha(t, r)
	hc := NewHashCache("", nil)
	bin, err := RunCopy(tool, r.opts.RunDir, hc)
	if err != nil {
		t.Fatal(err)
	}
	copyDir := filepath.Dir(bin)
	if copyDir == filepath.Join(root, "alpha") || filepath.Base(bin) != "bin" {
		t.Fatalf("run copy %s", bin)
	}
	for path, want := range map[string]os.FileMode{copyDir: 0o500 | os.ModeDir, bin: 0o500,
		filepath.Join(copyDir, "tool.yaml"): 0o400, filepath.Join(copyDir, "lib"): 0o500 | os.ModeDir,
		filepath.Join(copyDir, "lib", "helper.py"): 0o400} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode() != want {
			t.Errorf("%s has mode %v, want %v", path, st.Mode(), want)
		}
	}
	// Each launch checks the copy; an unchanged one is not read again.
	before := hc.hashed
	again, err := RunCopy(tool, r.opts.RunDir, hc)
	if err != nil || again != bin {
		t.Fatalf("second launch: %s, %v", again, err)
	}
	if n := hc.hashed - before; n != 0 {
		t.Fatalf("an unchanged run copy was re-read (%d files): the stat cache should have matched", n)
	}

	restoreMtime(t, bin, "#!/bin/sh\necho replaced\n")
	if _, err := RunCopy(tool, r.opts.RunDir, hc); !errors.Is(err, ErrRunCopyChanged) || !strings.Contains(err.Error(), "~bin") {
		t.Fatalf("a replaced run copy (mtime restored) was not refused: %v", err)
	}
	if tool := alpha(t, r); tool.Ready || tool.Approval != ApprovalChanged || !strings.Contains(tool.NotReady, "run copy") {
		t.Fatalf("registry lists a replaced run copy as %s: %s", tool.Approval, tool.NotReady)
	}
	changes, err := r.Approve([]string{"alpha"}, "x")
	if err != nil || !strings.Contains(strings.Join(changes[0].What, " "), "run copy") {
		t.Fatalf("approve after a replaced run copy: %+v %v", changes, err)
	}
	if _, err := RunCopy(alpha(t, r), r.opts.RunDir, hc); err != nil {
		t.Fatalf("run copy not made again after approval: %v", err)
	}
}

func TestDigestFolder(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "tool.yaml"), "name: x\n", 0o644)
	writeFile(t, filepath.Join(dir, "run"), "#!/bin/sh\n", 0o755)
	base, err := DigestFolder(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Interpreter caches do not count.
	writeFile(t, filepath.Join(dir, "__pycache__", "m.cpython-312.pyc"), "cache", 0o644)
	writeFile(t, filepath.Join(dir, "lib", "m.pyc"), "cache", 0o644)
	os.Remove(filepath.Join(dir, "lib", "m.pyc"))
	os.Remove(filepath.Join(dir, "lib"))
	if d, err := DigestFolder(dir, nil); err != nil || d.Sum != base.Sum {
		t.Fatalf("a __pycache__ changed the digest: %v %v", d, err)
	}
	// The executable bit counts.
	os.Chmod(filepath.Join(dir, "tool.yaml"), 0o755)
	if d, _ := DigestFolder(dir, nil); d.Sum == base.Sum {
		t.Fatal("making a file executable did not change the digest")
	}
	os.Chmod(filepath.Join(dir, "tool.yaml"), 0o644)
	// A link out of the folder is refused.
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "data")); err != nil {
		t.Fatal(err)
	}
	if _, err := DigestFolder(dir, nil); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("a symlink was accepted: %v", err)
	}
}

func TestHashCacheNeedsCtime(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bin")
	writeFile(t, path, "one", 0o755)
	key := []byte("0123456789abcdef0123456789abcdef")
	cacheFile := filepath.Join(dir, "cache", "hashes.json")
	hc := NewHashCache(cacheFile, key)
	first, _, err := hc.Sum(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := hc.Save(); err != nil {
		t.Fatal(err)
	}
	// A new process trusts the saved entry while the file is unchanged.
	hc2 := NewHashCache(cacheFile, key)
	if s, _, _ := hc2.Sum(path); s != first || hc2.hashed != 0 {
		t.Fatalf("persisted cache not used: %s, %d files read", s, hc2.hashed)
	}
	// Same size, mtime set back: only the ctime moved, and that is enough.
	restoreMtime(t, path, "two")
	if s, _, _ := hc2.Sum(path); s == first {
		t.Fatal("a rewritten file with its mtime restored kept its cached hash")
	}
	// A cache file edited to vouch for the new content is not trusted.
	raw, _ := os.ReadFile(cacheFile)
	var f hashFile
	json.Unmarshal(raw, &f)
	if st, err := os.Stat(path); err == nil {
		k, _ := statKeyOf(st)
		f.Entries[path] = hashEntry{Key: k, Sum: first}
	}
	raw, _ = json.Marshal(f)
	os.WriteFile(cacheFile, raw, 0o600)
	if s, _, _ := NewHashCache(cacheFile, key).Sum(path); s == first {
		t.Fatal("an edited cache file made a changed file pass")
	}
}

func TestLockWatchedLive(t *testing.T) {
	_, r := lockedRegistry(t)
	r.opts.Debounce = 20 * time.Millisecond
	changes := r.Changes()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Watch(ctx) }()
	defer func() { cancel(); <-done }()
	waitTool := func(ready bool) {
		deadline := time.After(20 * time.Second)
		for {
			if tool, _ := r.Snapshot().Tool("alpha"); tool != nil && tool.Ready == ready {
				return
			}
			select {
			case <-changes:
			case <-deadline:
				t.Fatalf("alpha never became ready=%v", ready)
			}
		}
	}
	waitTool(false)
	// Another process approves: the lock file changes, the watcher sees it.
	other := New(r.opts)
	if _, err := other.Approve(nil, "x"); err != nil {
		t.Fatal(err)
	}
	waitTool(true)
}

// TestApprovalRecordsTheManifestsIrreversibleRule checks that what a lock
// records as irreversible is manifests' rule: a verb in the tool or the
// action name, or an action not declared reversible.
func TestApprovalRecordsTheManifestsIrreversibleRule(t *testing.T) {
	for _, tc := range []struct {
		tool, action string
		reversible   bool
		want         bool
	}{
		{"sheets", "list", true, false},
		{"sheets", "list", false, true},
		{"sheets", "delete", true, true},
		{"purge", "list", true, true},
	} {
		m := &manifests.Manifest{Name: tc.tool, Actions: []manifests.Action{{Name: tc.action, Reversible: tc.reversible}}}
		a := approvalOf(&Tool{Manifest: m, Dir: "/p/" + tc.tool}, &FolderDigest{}, "test", time.Time{})
		if len(a.Actions) != 1 || a.Actions[0].Irreversible != tc.want {
			t.Errorf("%s %s (reversible: %v): approval %+v, want irreversible %v", tc.tool, tc.action, tc.reversible, a.Actions, tc.want)
		}
	}
}

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
