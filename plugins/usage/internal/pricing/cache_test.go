package pricing

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCacheWriteFollowsNoSymlink: a symlink planted where a fixed
// temporary name would be does not redirect the price cache's write.
func TestCacheWriteFollowsNoSymlink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache", "litellm.json")
	os.Mkdir(filepath.Dir(cache), 0o700)
	if err := os.Symlink(victim, cache+".tmp"); err != nil {
		t.Fatal(err)
	}
	writeCache(cache, []byte(`{"m":{}}`))
	if b, _ := os.ReadFile(victim); string(b) != "keep me" {
		t.Errorf("the write went through the symlink: victim holds %q", b)
	}
	if b, err := os.ReadFile(cache); err != nil || string(b) != `{"m":{}}` {
		t.Errorf("cache = %q, %v; want the new prices", b, err)
	}
}
