package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// tarball packs files under package/ as npm publishes a package, keeps it
// in a cacache layout under cache, and returns its sha512 integrity.
func tarball(t *testing.T, cache string, files map[string]string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: "package/" + name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	zw.Close()
	sum := sha512.Sum512(buf.Bytes())
	h := hex.EncodeToString(sum[:])
	testplugin.WriteFile(t, filepath.Join(cache, "_cacache", "content-v2", "sha512", h[:2], h[2:4], h[4:]), buf.String())
	return "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
}

// TestNPMLockedAcceptsNestedPackages: a package's own node_modules (the
// versions it needs besides the top-level ones, as npm installs an MCP
// server's tree) is checked against the nested package's tarball, not the
// outer one's.
func TestNPMLockedAcceptsNestedPackages(t *testing.T) {
	gitBin := testplugin.NeedGit(t)
	top, cache := t.TempDir(), t.TempDir()
	t.Setenv("npm_config_cache", cache)
	packages := map[string]any{"": map[string]any{"name": "p"}}
	for i := range 8 {
		outer := fmt.Sprintf("a%d", i)
		for _, pkg := range []string{outer, outer + "/node_modules/b"} {
			body := "module.exports = " + pkg + "\n"
			packages["node_modules/"+pkg] = map[string]any{"version": "1.0.0", "integrity": tarball(t, cache, map[string]string{"index.js": body, "package.json": "{}"})}
			testplugin.WriteFile(t, filepath.Join(top, "plug", "node_modules", pkg, "index.js"), body)
			testplugin.WriteFile(t, filepath.Join(top, "plug", "node_modules", pkg, "package.json"), "{}")
		}
	}
	lock, _ := json.Marshal(map[string]any{"lockfileVersion": 3, "packages": packages})
	testplugin.WriteFile(t, filepath.Join(top, "plug", "package-lock.json"), string(lock))
	testplugin.WriteFile(t, filepath.Join(top, ".gitignore"), "node_modules/\n")
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "x"}} {
		if out, err := exec.Command(gitBin, append([]string{"-C", top}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if ok, why := newNPMLocked(top).accepts("plug/node_modules/"); !ok {
		t.Fatalf("the tree npm installed is refused: %s", why)
	}
	testplugin.WriteFile(t, filepath.Join(top, "plug", "node_modules", "a3", "node_modules", "b", "index.js"), "tampered\n")
	if ok, _ := newNPMLocked(top).accepts("plug/node_modules/"); ok {
		t.Fatal("a changed file in a nested package is accepted")
	}
}
