package tests

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// TestTrackedAcceptsNodeModulesFromTheTrackedLockfile is `make test` then
// `make run`: make notes-model fills plugins/notes/model/node_modules with
// npm ci from the tracked package-lock.json, and the next `host approve
// --tracked` still approves notes, because every file there equals its
// package's tarball in npm's cache (found by the lockfile's integrity). A
// file dropped into node_modules by hand, or a package the lockfile does
// not pin, leaves the folder for a person to approve.
func TestTrackedAcceptsNodeModulesFromTheTrackedLockfile(t *testing.T) {
	repo := t.TempDir()
	gitIn := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitIn("init", "-q")
	ignore, err := os.ReadFile(filepath.Join(repoRoot, ".gitignore"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(repo, ".gitignore"), ignore, 0o644))

	// The package as the registry ships it, in npm's content-addressed cache.
	files := map[string]string{"package.json": `{"name":"@t/model","version":"1.0.0"}`, "dist/model.json": `{"weights":[1,2,3]}`}
	var tgz bytes.Buffer
	zw := gzip.NewWriter(&tgz)
	tw := tar.NewWriter(zw)
	for name, body := range files {
		must(t, tw.WriteHeader(&tar.Header{Name: "package/" + name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}))
		_, err := tw.Write([]byte(body))
		must(t, err)
	}
	must(t, tw.Close())
	must(t, zw.Close())
	sum := sha512.Sum512(tgz.Bytes())
	h := hex.EncodeToString(sum[:])
	cache := t.TempDir()
	content := filepath.Join(cache, "_cacache", "content-v2", "sha512", h[:2], h[2:4], h[4:])
	must(t, os.MkdirAll(filepath.Dir(content), 0o755))
	must(t, os.WriteFile(content, tgz.Bytes(), 0o644))

	plugins := filepath.Join(repo, "plugins")
	dir := filepath.Join(plugins, "notes")
	must(t, os.MkdirAll(filepath.Join(dir, "model"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "tool.yaml"), []byte(strings.Replace(testplugin.Manifest, "name: testtool", "name: notes", 1)), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "model", "package-lock.json"), []byte(`{"lockfileVersion":3,"packages":{"":{},
"node_modules/@t/model":{"version":"1.0.0","integrity":"sha512-`+base64.StdEncoding.EncodeToString(sum[:])+`"}}}`), 0o644))
	gitIn("add", ".")
	gitIn("commit", "-q", "-m", "shipped plugin")
	testplugin.CopyBinary(t, testplugin.Build(t, "1"), filepath.Join(dir, "testtool"))
	nm := filepath.Join(dir, "model", "node_modules")
	for name, body := range files { // what npm ci unpacks
		p := filepath.Join(nm, "@t", "model", filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(body), 0o644))
	}
	must(t, os.WriteFile(filepath.Join(nm, ".package-lock.json"), []byte(`{}`), 0o644))
	must(t, os.WriteFile(filepath.Join(nm, ".installed"), nil, 0o644))

	e := &env{plugins: plugins, vars: append(filteredEnviron(), "HOST_PLUGIN_PATH="+plugins, "HOST_SKILL_PATH="+t.TempDir(),
		"XDG_CACHE_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir(), "npm_config_cache="+cache)}
	approve := func(want string) {
		t.Helper()
		code, out, errOut := e.host(t, "approve", "--tracked")
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("host approve --tracked: exit %d, want it to say %q:\n%s%s", code, want, out, errOut)
		}
	}
	approve("notes: approved (it was new)")
	defer func() {
		if t.Failed() {
			return
		}
		// What a person is told to do: the command as it was run.
		drop := filepath.Join(nm, "stray.js")
		must(t, os.WriteFile(drop, nil, 0o644))
		approve("(check the folder, then `" + hostBin + " approve notes`)")
		if tool := e.listed(t, "notes"); tool == nil || !strings.Contains(fmt.Sprint(tool["next_step"]), "`"+hostBin+" approve notes`") {
			t.Errorf("host list's next step for the changed notes: %v, want the approve command as the host was run", tool)
		}
	}()
	if tool := e.listed(t, "notes"); tool == nil || tool["ready"] != true {
		t.Fatalf("notes after npm ci and approve --tracked: %v, want ready", tool)
	}

	for _, tc := range []struct{ drop, why string }{
		{"@t/model/dist/extra.js", "node_modules/@t/model/dist/extra.js is not in @t/model's tarball"},
		{"@evil/pkg/index.js", "node_modules/@evil/pkg/index.js belongs to no package"},
		{"@t/model/dist/model.json", "node_modules/@t/model/dist/model.json is not in @t/model's tarball"},
	} {
		p := filepath.Join(nm, filepath.FromSlash(tc.drop))
		old, _ := os.ReadFile(p)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte("process.exit(1)\n"), 0o644))
		approve(tc.why)
		if tool := e.listed(t, "notes"); tool == nil || tool["ready"] == true {
			t.Errorf("after dropping %s by hand approve --tracked approved notes: %v", tc.drop, tool)
		}
		if old != nil {
			must(t, os.WriteFile(p, old, 0o644))
		} else {
			must(t, os.Remove(p))
		}
	}
}
