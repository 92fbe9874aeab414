package registry

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

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

// Approving a new tool lists what it declares: its actions, its secrets
// when it has any (and no secrets line when it has none), its files.
func TestApprovingANewToolListsItsSecrets(t *testing.T) {
	tests := []struct {
		name, manifest string
		want           string // the secrets line
	}{
		{"two secrets", strings.Replace(strings.ReplaceAll(validManifest, "%s", "alpha"), "entrypoint: bin",
			"entrypoint: bin\nsecrets:\n  - {name: api-token, env: ALPHA_TOKEN}\n  - {name: db-password, env: ALPHA_DB}", 1), "secrets: api-token from $ALPHA_TOKEN, db-password from $ALPHA_DB"},
		{"no secrets", "", "secrets: none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, r := lockedRegistry(t)
			if tt.manifest != "" {
				writeFile(t, filepath.Join(root, "alpha", "tool.yaml"), tt.manifest, 0o644)
			}
			changes, err := r.Approve([]string{"alpha"}, "tester via test")
			if err != nil {
				t.Fatal(err)
			}
			what := changes[0].What
			var secrets []string
			for _, line := range what {
				if strings.HasPrefix(line, "secrets") {
					secrets = append(secrets, line)
				}
			}
			if strings.Join(secrets, "|") != tt.want {
				t.Fatalf("approval of a new tool says %q; want the secrets line %q", what, tt.want)
			}
		})
	}
}

// The lock file is readable beside the plugins (0644), the key and the
// hash cache by their owner only (0600), whatever the umask made of the
// temporary file they were written through.
func TestApprovalFilesModes(t *testing.T) {
	_, r := lockedRegistry(t)
	cacheFile := filepath.Join(t.TempDir(), "cache", "hashes.json")
	r.opts.Hashes = NewHashCache(cacheFile, nil)
	if _, err := r.Approve(nil, "tester via test"); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{
		LockPath(r.opts.PluginDirs[0]):          0o644,
		filepath.Join(r.opts.StateDir, KeyFile): 0o600,
		cacheFile:                               0o600,
	} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if runtime.GOOS != "windows" && st.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", path, st.Mode().Perm(), want)
		}
	}
}

// A hash cache that cannot be saved says so and leaves nothing behind: no
// temporary file beside it for each scan (every 30 s) that tried.
func TestFailedSaveLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "plugin.bin")
	writeFile(t, file, "#!/bin/sh\n", 0o755)
	cacheDir := t.TempDir()
	cacheFile := filepath.Join(cacheDir, "hashes.json")
	// A folder where the cache file goes: the rename onto it fails.
	writeFile(t, filepath.Join(cacheFile, "keep"), "x", 0o644)
	hc := NewHashCache(cacheFile, []byte("0123456789abcdef0123456789abcdef"))
	if _, _, err := hc.Sum(file); err != nil {
		t.Fatal(err)
	}
	if _, ok := hc.entries[file]; !ok {
		t.Skip("this system gives no change time: nothing is cached, nothing saved")
	}
	if err := hc.Save(); err == nil || !strings.Contains(err.Error(), "registry: save hash cache") {
		t.Fatalf("save onto a folder: %v, want an error", err)
	}
	entries, err := os.ReadDir(cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "hashes.json" {
			t.Errorf("left behind beside the hash cache: %s", e.Name())
		}
	}
}

// Approving with a damaged key file refuses, names the file and leaves it
// as it was: a new key made silently would unapprove every tool.
func TestApproveWithADamagedKeyRefuses(t *testing.T) {
	_, r := lockedRegistry(t)
	keyFile := filepath.Join(r.opts.StateDir, KeyFile)
	writeFile(t, keyFile, "not a key\n", 0o600)
	if _, err := r.Approve(nil, "tester via test"); err == nil || !strings.Contains(err.Error(), keyFile+" is damaged") {
		t.Fatalf("approve with a damaged key: %v, want an error naming it", err)
	}
	if raw, _ := os.ReadFile(keyFile); string(raw) != "not a key\n" {
		t.Fatalf("the damaged key file now holds %q", raw)
	}
}

// An unknown name with nothing near it is refused without an empty "did
// you mean".
func TestApproveUnknownNameWithNothingNear(t *testing.T) {
	_, r := lockedRegistry(t)
	_, err := r.Approve([]string{"zzzzzzzz"}, "x")
	if err == nil || err.Error() != `registry: approve: no tool or agent named "zzzzzzzz"` {
		t.Fatalf("got %v", err)
	}
}

// A folder added to (or removed from) an approved plugin, every file as it
// was, makes it changed, and the reason says so rather than nothing.
func TestAddedFolderIsNamedAsTheChange(t *testing.T) {
	root, r := lockedRegistry(t)
	if _, err := r.Approve(nil, "tester via test"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "alpha", "cache"), 0o755); err != nil {
		t.Fatal(err)
	}
	tool := alpha(t, r)
	if tool.Ready || !strings.HasPrefix(tool.NotReady, "changed — needs approval: folders added or removed (every file is as approved) since tester via test approved it") {
		t.Fatalf("after an empty folder was added: ready %v: %s", tool.Ready, tool.NotReady)
	}
	changes, err := r.Approve([]string{"alpha"}, "tester via test")
	if err != nil {
		t.Fatal(err)
	}
	if what := strings.Join(changes[0].What, "; "); what != "folders added or removed (every file is as approved)" {
		t.Fatalf("approve says %q", what)
	}
	// A changed file is named, and no folder is said to have changed.
	writeFile(t, filepath.Join(root, "alpha", "lib", "helper.py"), "import os\n", 0o644)
	if tool := alpha(t, r); !strings.HasPrefix(tool.NotReady, "changed — needs approval: changed files: ~lib/helper.py since") {
		t.Fatalf("after a file changed: %s", tool.NotReady)
	}
}

// ApproveDigests approves a folder only as the expected digest says it
// is: one changed after the caller's check stays unapproved, and its
// change says why.
func TestApproveDigestsSkipsAFolderWithAnotherDigest(t *testing.T) {
	root, r := lockedRegistry(t)
	d, err := DigestFolder(filepath.Join(root, "alpha"), nil)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "alpha", "extra.txt"), "written after the check\n", 0o644)
	changes, err := r.ApproveDigests([]string{"alpha"}, map[string]string{"alpha": d.Sum}, "tester via test")
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || !strings.Contains(changes[0].Skipped, "is not the expected "+d.Sum) {
		t.Fatalf("changes %+v: want alpha skipped for its digest", changes)
	}
	if tool := alpha(t, r); tool.Ready || tool.Approval != ApprovalNew {
		t.Fatalf("alpha after ApproveDigests with a stale digest: ready %v, approval %s", tool.Ready, tool.Approval)
	}
	d, err = DigestFolder(filepath.Join(root, "alpha"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if changes, err = r.ApproveDigests([]string{"alpha"}, map[string]string{"alpha": d.Sum}, "tester via test"); err != nil || changes[0].Skipped != "" {
		t.Fatalf("ApproveDigests with the folder's digest: %+v, %v", changes, err)
	}
	if tool := alpha(t, r); !tool.Ready {
		t.Fatalf("alpha after ApproveDigests with its digest: %s", tool.NotReady)
	}
}
