//go:build linux

package registry

import (
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// What a failing disk write or a user without root's rights does to an
// approval and a run copy. Each test runs its body in a child test
// process: one with a file size limit, one as an ordinary user.

// childEnv names the body a re-executed test binary runs.
const childEnv = "REGISTRY_TEST_CHILD"

// inChild runs test's body (selected by name) in a copy of this test
// binary started with the given setup, and fails t with the child's output
// when the body failed. It reports false in the child itself, where the
// caller runs the body.
func inChild(t *testing.T, dir string, cred *syscall.Credential) bool {
	t.Helper()
	if os.Getenv(childEnv) == t.Name() {
		return false
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A copy the child's user can run (the go build folder is root's only).
	bin := filepath.Join(dir, "registry.test")
	copyExecutable(t, self, bin)
	cmd := exec.Command(bin, "-test.run", "^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), childEnv+"="+t.Name(), "HOME="+dir)
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("child test: %v\n%s", err, out)
	}
	return true
}

func copyExecutable(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// limitFileSize makes every write past n bytes of a file fail with "file
// too large" (EFBIG) in this process, instead of the kernel's SIGXFSZ,
// until the test ends: only the soft limit is lowered and it is put back,
// so what the test binary writes on its way out (a coverage profile, when
// run with -cover as make mutate does) is not cut short.
func limitFileSize(t *testing.T, n uint64) {
	t.Helper()
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	signal.Ignore(syscall.SIGXFSZ)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: old.Max}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
			t.Error(err)
		}
	})
}

// A lock file that cannot be written whole (a full disk, a quota) fails
// the approval with the write's own error and leaves the lock as it was:
// the approvals in it are not lost to a half-written file.
func TestApprovalThatCannotBeWrittenLosesNothing(t *testing.T) {
	if inChild(t, t.TempDir(), nil) {
		return
	}
	root, r := lockedRegistry(t)
	if _, err := r.Approve(nil, "tester via test"); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(LockPath(root))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"beta", "gamma", "delta"} {
		addTool(t, root, name, "", true)
	}
	limitFileSize(t, uint64(len(before))+64) // the old lock fits, the new one does not
	_, err = r.Approve(nil, "tester via test")
	if err == nil || !strings.Contains(err.Error(), "registry: write lock") || !strings.Contains(err.Error(), "file too large") {
		t.Fatalf("approve onto a full disk: %v, want the write's error", err)
	}
	if after, _ := os.ReadFile(LockPath(root)); string(after) != string(before) {
		t.Fatalf("the lock changed although the approval failed:\n%s", after)
	}
	if _, err := ReadLock(root); err != nil {
		t.Fatal(err)
	}
}

// A file that cannot be copied whole into the run copy fails the launch
// with the copy's own error, not as a folder that changed while copied.
func TestRunCopyThatCannotBeWrittenSaysWhy(t *testing.T) {
	if inChild(t, t.TempDir(), nil) {
		return
	}
	root := t.TempDir()
	addTool(t, root, "alpha", "", true)
	writeFile(t, filepath.Join(root, "alpha", "model.bin"), strings.Repeat("x", 64<<10), 0o644)
	tool, _ := New(Options{PluginDirs: []string{root}}).Scan().Tool("alpha")
	if tool == nil || !tool.Ready {
		t.Fatalf("alpha: %+v", tool)
	}
	limitFileSize(t, 32<<10)
	_, err := RunCopy(tool, filepath.Join(t.TempDir(), "run"), nil)
	if err == nil || !strings.Contains(err.Error(), "file too large") {
		t.Fatalf("run copy onto a full disk: %v, want the write's error", err)
	}
}

// `host approve` run by an ordinary user removes a run copy that was
// modified, although the copy is read-only: its folders are made writable
// first. (Root removes it regardless, so as root the body runs as nobody.)
func TestModifiedRunCopyRemovedByItsUser(t *testing.T) {
	if os.Getenv(childEnv) != t.Name() && os.Geteuid() == 0 {
		dir := t.TempDir()
		if err := os.Chmod(filepath.Dir(dir), 0o755); err != nil { // let nobody reach the binary's copy
			t.Fatal(err)
		}
		inChild(t, dir, &syscall.Credential{Uid: 65534, Gid: 65534})
		return
	}
	base := t.TempDir()
	t.Cleanup(func() { // a run copy left read-only must not outlive the test
		filepath.WalkDir(base, func(path string, e fs.DirEntry, err error) error {
			if err == nil && e.IsDir() {
				os.Chmod(path, 0o700)
			}
			return nil
		})
	})
	root := filepath.Join(base, "plugins")
	addTool(t, root, "alpha", "", true)
	writeFile(t, filepath.Join(root, "alpha", "lib", "helper.py"), "print('hi')\n", 0o644)
	r := New(Options{PluginDirs: []string{root}, RequireApproval: true, StateDir: filepath.Join(base, "state"),
		RunDir: filepath.Join(base, "run"), Getenv: func(string) string { return "" }})
	if _, err := r.Approve(nil, "tester via test"); err != nil {
		t.Fatal(err)
	}
	bin, err := RunCopy(alpha(t, r), r.opts.RunDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	copyDir := filepath.Dir(bin)
	os.Chmod(copyDir, 0o700)
	writeFile(t, filepath.Join(copyDir, "extra"), "x", 0o644)
	os.Chmod(copyDir, 0o500)
	changes, err := r.Approve([]string{"alpha"}, "tester via test")
	if err != nil {
		t.Fatalf("approve after the run copy was modified: %v", err)
	}
	if what := strings.Join(changes[0].What, " "); !strings.Contains(what, "had been modified: removed") {
		t.Fatalf("approve says %q", what)
	}
	if _, err := os.Lstat(copyDir); !os.IsNotExist(err) {
		t.Fatalf("the modified run copy is still there: %v", err)
	}
}
