//go:build linux || darwin

package registry

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/manifests"
)

// cachedStart approves alpha with a persisted manifest cache and returns
// the cache file, the approval key and a function that opens the folders
// as `host serve` starts: a fresh registry reading the cache file.
func cachedStart(t *testing.T) (root, cacheFile string, start func() (*Registry, *ManifestCache)) {
	t.Helper()
	root, approver := lockedRegistry(t)
	cacheFile = ManifestCachePath(filepath.Join(t.TempDir(), "cache"))
	approver.opts.Manifests = NewManifestCache(cacheFile, nil)
	if _, err := approver.Approve(nil, "tester via test"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cacheFile); err != nil {
		t.Fatalf("the approval kept no manifest cache: %v", err)
	}
	key, err := ReadKey(approver.opts.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	o := approver.opts
	o.VerifyAtLaunch = true
	return root, cacheFile, func() (*Registry, *ManifestCache) {
		o.Manifests = NewManifestCache(cacheFile, key)
		return New(o), o.Manifests
	}
}

// TestStartParsesNoCachedManifest: the start after an approval takes
// alpha's manifest from the cache, equal to what parsing gives, and lists
// it ready.
func TestStartParsesNoCachedManifest(t *testing.T) {
	root, _, start := cachedStart(t)
	r, mc := start()
	tool := alpha(t, r)
	if mc.decoded != 1 || !tool.Ready || tool.Approval != ApprovalOK {
		t.Fatalf("start: %d manifests from the cache, want 1; ready %v, %s: %s", mc.decoded, tool.Ready, tool.Approval, tool.NotReady)
	}
	want, err := manifests.Parse(filepath.Join(root, "alpha", manifests.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tool.Manifest, want) {
		t.Fatalf("cached manifest differs from the parsed one:\ngot  %+v\nwant %+v", tool.Manifest, want)
	}
}

// TestChangedManifestNotTakenFromCache: a tool.yaml changed after it was
// cached (mtime set back) is parsed again, and the approval catches it.
func TestChangedManifestNotTakenFromCache(t *testing.T) {
	root, _, start := cachedStart(t)
	path := filepath.Join(root, "alpha", manifests.FileName)
	changed := strings.Replace(strings.ReplaceAll(validManifest, "%s", "alpha"), "A tool for tests.", "Changed behind the cache.", 1)
	restoreMtime(t, path, changed)
	r, mc := start()
	tool := alpha(t, r)
	if mc.decoded != 0 || tool.Manifest.Description != "Changed behind the cache." {
		t.Fatalf("changed manifest: %d from the cache, description %q; want it parsed again", mc.decoded, tool.Manifest.Description)
	}
	if tool.Ready || tool.Approval != ApprovalChanged || !strings.Contains(tool.NotReady, "tool.yaml") {
		t.Fatalf("changed manifest: ready %v, %s (%s); want changed — needs approval, naming tool.yaml", tool.Ready, tool.Approval, tool.NotReady)
	}
}

// TestManifestCacheFileTrusted: the cache file is taken only when its MAC
// verifies under the user's key and this executable wrote it; then what it
// holds is what the start uses (shown by a description the YAML does not
// have), and never for bytes other than those it was parsed from.
func TestManifestCacheFileTrusted(t *testing.T) {
	root, cacheFile, start := cachedStart(t)
	path := filepath.Join(root, "alpha", manifests.FileName)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// forge writes a cache file for alpha's current bytes (or, with
	// otherBytes, for other ones) with description desc, written by host,
	// signed with key (nil: the real one).
	forge := func(desc, host string, key []byte, otherBytes bool) {
		t.Helper()
		_, mc := start()
		if key == nil {
			key = mc.key
		}
		m, err := manifests.ParseBytes(path, data)
		if err != nil {
			t.Fatal(err)
		}
		m.Description = desc
		sum := sha256.Sum256(data)
		if otherBytes {
			sum = sha256.Sum256(append(data, '\n'))
		}
		forged := &ManifestCache{host: host}
		forged.init(cacheFile, key)
		forged.put(path, sum, m)
		if err := forged.Save(); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, host string
		key        []byte
		otherBytes bool
		tamper     bool
		want       string
	}{
		{name: "signed by this host", host: executableIdentity(), want: "forged"},
		{name: "another key", host: executableIdentity(), key: bytes.Repeat([]byte("k"), 32), want: "A tool for tests."},
		{name: "another executable", host: "/usr/bin/other {}", want: "A tool for tests."},
		{name: "edited after signing", host: executableIdentity(), tamper: true, want: "A tool for tests."},
		{name: "cached for other bytes", host: executableIdentity(), otherBytes: true, want: "A tool for tests."},
	} {
		t.Run(c.name, func(t *testing.T) {
			forge("forged", c.host, c.key, c.otherBytes)
			if c.tamper {
				raw, err := os.ReadFile(cacheFile)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(cacheFile, bytes.Replace(raw, []byte(`"forged"`), []byte(`"edited"`), 1), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			r, _ := start()
			if got := alpha(t, r).Manifest.Description; got != c.want {
				t.Fatalf("description %q, want %q", got, c.want)
			}
		})
	}
}

// TestManifestCacheDropsRemoved: a manifest that is gone leaves the cache
// file at the next save.
func TestManifestCacheDropsRemoved(t *testing.T) {
	root, cacheFile, start := cachedStart(t)
	addTool(t, root, "beta", "", true)
	r, _ := start()
	r.Scan()
	raw, err := os.ReadFile(cacheFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte(filepath.Join(root, "beta"))) {
		t.Fatal("the scan that parsed beta did not keep it")
	}
	if err := os.RemoveAll(filepath.Join(root, "beta")); err != nil {
		t.Fatal(err)
	}
	addTool(t, root, "gamma", "", true)
	r, _ = start()
	r.Scan()
	if raw, err = os.ReadFile(cacheFile); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(filepath.Join(root, "beta"))) || !bytes.Contains(raw, []byte(filepath.Join(root, "gamma"))) {
		t.Fatalf("after beta went and gamma came, the cache holds:\n%s", raw)
	}
}

// TestCachedManifestsDecodeEqual: every manifest the project ships comes
// back from the cache (through the registry's own decoder) equal to what
// parsing gives.
func TestCachedManifestsDecodeEqual(t *testing.T) {
	files, _ := filepath.Glob("../plugins/*/tool.yaml")
	more, _ := filepath.Glob("../manifests/testdata/valid/*.yaml")
	files = append(files, more...)
	if len(files) < 7 {
		t.Fatalf("found %d manifests, want the shipped ones: %v", len(files), files)
	}
	mc := &ManifestCache{host: "test"}
	mc.init("", nil)
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			want, err := manifests.ParseBytes(f, data)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(data)
			mc.put(f, sum, want)
			got := mc.get(f, sum)
			if got == nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("from the cache:\ngot  %+v\nwant %+v", got, want)
			}
		})
	}
}

// TestCachedManifestRefused: cache data not in the form manifests.Marshal
// writes is an error of the decoder, never a manifest with a value of the
// wrong type.
func TestCachedManifestRefused(t *testing.T) {
	m, err := manifests.ParseBytes("x/tool.yaml", []byte(strings.ReplaceAll(validManifest, "%s", "x")))
	if err != nil {
		t.Fatal(err)
	}
	m.Actions[0].Args = []manifests.Arg{{Name: "n", Type: manifests.TypeInteger, Default: int64(1)}}
	good, err := manifests.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodeCached("x/tool.yaml", good); err != nil {
		t.Fatalf("the good form refused: %v", err)
	}
	for _, c := range []struct {
		name, bad, want string
	}{
		{"default of another type", strings.Replace(string(good), `"Default":1`, `"Default":"one"`, 1), "default: want integer"},
		{"unknown field", strings.Replace(string(good), `"Name":"x"`, `"Name":"x","Shell":"rm -rf"`, 1), "unknown field"},
		{"field of another case", strings.Replace(string(good), `"Name":"x"`, `"name":"x"`, 1), "unknown field"},
		{"two values", string(good) + "{}", "data after the manifest"},
		{"not JSON", "[" + string(good[1:]), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.bad == string(good) {
				t.Fatalf("the case changed nothing in %s", good)
			}
			_, err := decodeCached("x/tool.yaml", []byte(c.bad))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
		})
	}
}
