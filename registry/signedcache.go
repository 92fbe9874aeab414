package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
)

// signedCache is what the persisted caches (HashCache, ManifestCache)
// share: entries by file path, kept in a file signed with the user's
// approval key. Without a path it lives in memory only; without a key its
// file is neither read nor written, so nothing unsigned is ever trusted or
// left behind. Each cache keeps its own file format and its own check of
// what it reads.
type signedCache[E any] struct {
	path string
	key  []byte

	mu      sync.Mutex
	entries map[string]E
	dirty   bool
}

// init sets the cache's file and key and empties it.
func (c *signedCache[E]) init(path string, key []byte) {
	c.path, c.key, c.entries = path, key, map[string]E{}
}

// file returns the cache file's bytes, or nil when there is no file to
// trust: no path, no key, or nothing readable there.
func (c *signedCache[E]) file() []byte {
	if c.path == "" || len(c.key) == 0 {
		return nil
	}
	raw, err := os.ReadFile(c.path)
	if err != nil {
		return nil
	}
	return raw
}

// lookup returns the entry for path.
func (c *signedCache[E]) lookup(path string) (E, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[path]
	return e, ok
}

// set keeps e for path, to be saved.
func (c *signedCache[E]) set(path string, e E) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[path] = e
	c.dirty = true
}

// useKey gives a cache that has a file but no key the user's approval key
// (made by the approval that is filling it), so what it holds is saved.
func (c *signedCache[E]) useKey(key []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.key) == 0 && len(key) > 0 {
		c.key = key
		c.dirty = len(c.entries) > 0
	}
}

// save writes the cache file, as encode renders and signs the entries
// under the key, when they changed since the last save; entries of files
// that no longer exist are dropped first. what names the cache in errors.
func (c *signedCache[E]) save(what string, encode func(entries map[string]E, key []byte) ([]byte, error)) error {
	if c.path == "" || len(c.key) == 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty {
		return nil
	}
	pruneMissing(c.entries)
	raw, err := encode(c.entries, c.key)
	if err == nil {
		err = writeAtomic(c.path, raw, 0o600)
	}
	if err != nil {
		return fmt.Errorf("registry: save %s: %w", what, err)
	}
	c.dirty = false
	return nil
}

// pruneMissing drops a persisted cache's entries of files that no longer
// exist.
func pruneMissing[V any](entries map[string]V) {
	for p := range entries {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			delete(entries, p)
		}
	}
}
