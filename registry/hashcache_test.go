package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDigestMarksExecutables: the approval digest records which files are
// executable, so making a data file executable (or the reverse) is a
// change the user must approve again.
func TestDigestMarksExecutables(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "bin"), "#!/bin/sh\n", 0o755)
	writeFile(t, filepath.Join(dir, "data.txt"), "x", 0o644)
	d, err := DigestFolder(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(d.Files["bin"], " (executable)") || strings.Contains(d.Files["data.txt"], "executable") {
		t.Fatalf("files %v: want bin marked executable and data.txt not", d.Files)
	}
	if err := os.Chmod(filepath.Join(dir, "data.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	d2, err := DigestFolder(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d2.Sum == d.Sum || !strings.HasSuffix(d2.Files["data.txt"], " (executable)") {
		t.Fatalf("chmod +x of a data file left the digest as it was: %v", d2.Files)
	}
}

// forgedCacheFile writes a hash cache file vouching sum for path at its
// current stat, signed with key.
func forgedCacheFile(t *testing.T, cacheFile, path, sum string, key []byte) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	k, ok := statKeyOf(st)
	if !ok {
		t.Skip("this system gives no change time: nothing is cached")
	}
	entries := map[string]hashEntry{path: {Key: k, Sum: sum}}
	body, _ := json.Marshal(entries)
	raw, _ := json.Marshal(hashFile{Entries: entries, MAC: macHex(key, body)})
	writeFile(t, cacheFile, string(raw), 0o600)
}

// TestHashCacheWithoutKey: with no approval key the cache file is neither
// trusted nor written, even one signed with the empty key.
func TestHashCacheWithoutKey(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bin")
	writeFile(t, path, "real", 0o755)
	real := sha256.Sum256([]byte("real"))
	cacheFile := filepath.Join(dir, "cache", "hashes.json")
	forgedCacheFile(t, cacheFile, path, strings.Repeat("0", 64), nil)

	hc := NewHashCache(cacheFile, nil)
	if s, _, err := hc.Sum(path); err != nil || s != hex.EncodeToString(real[:]) {
		t.Fatalf("got %s, %v: want the file's real sha256, the keyless cache file ignored", s, err)
	}
	os.Remove(cacheFile)
	if err := hc.Save(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cacheFile); !os.IsNotExist(err) {
		t.Fatalf("a cache with no key wrote its file (stat: %v)", err)
	}
}

// TestHashCacheFileWithoutEntries: a signed cache file whose entries are
// null starts an empty cache that still works.
func TestHashCacheFileWithoutEntries(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bin")
	writeFile(t, path, "real", 0o755)
	key := []byte("0123456789abcdef0123456789abcdef")
	cacheFile := filepath.Join(dir, "hashes.json")
	raw, _ := json.Marshal(hashFile{MAC: macHex(key, []byte("null"))})
	writeFile(t, cacheFile, string(raw), 0o600)
	hc := NewHashCache(cacheFile, key)
	real := sha256.Sum256([]byte("real"))
	if s, _, err := hc.Sum(path); err != nil || s != hex.EncodeToString(real[:]) {
		t.Fatalf("got %s, %v", s, err)
	}
	if err := hc.Save(); err != nil {
		t.Fatal(err)
	}
	if s, _, _ := NewHashCache(cacheFile, key).Sum(path); s != hex.EncodeToString(real[:]) {
		t.Fatalf("after save: got %s", s)
	}
}

// TestApprovalNeedsAKey: an approval signed with the empty key (anyone can
// compute that MAC) never counts, even when the host has no key either.
func TestApprovalNeedsAKey(t *testing.T) {
	a := &Approval{Digest: "sha256:00"}
	a.MAC = a.mac("/p.lock", "alpha", nil)
	if a.valid("/p.lock", "alpha", nil) {
		t.Fatal("an approval signed with the empty key was valid")
	}
	key := []byte("0123456789abcdef0123456789abcdef")
	a.MAC = a.mac("/p.lock", "alpha", key)
	if !a.valid("/p.lock", "alpha", key) || a.valid("/p.lock", "beta", key) || a.valid("/q.lock", "alpha", key) {
		t.Fatal("a keyed approval: want valid for its name in its lock file only")
	}
}
