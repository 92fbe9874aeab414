package registry

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"

	sjson "github.com/segmentio/encoding/json"

	"github.com/toolhost/toolhost/manifests"
)

// ManifestCachePath is the persisted manifest cache in a cache folder (such
// as DefaultCacheDir()), beside the hash cache.
func ManifestCachePath(cacheDir string) string { return filepath.Join(cacheDir, "manifests.json") }

// ManifestCache keeps manifests parsed in an earlier run, so a start reads
// each tool.yaml but parses only one whose bytes it has not parsed before:
// parsing the YAML was most of the time a start spends per installed
// plugin. An entry is found by the manifest's path and the sha256 of its
// bytes, read at each scan, so a changed manifest is always parsed again.
//
// The file carries an HMAC under the user's approval key, like the hash
// cache, and names the executable that wrote it (its device, inode, size,
// modification and change time): a file that does not verify, or that
// another build of the host wrote (whose parser may differ), is ignored.
// Only manifests that parse without error are kept. A nil *ManifestCache
// parses every time.
type ManifestCache struct {
	signedCache[manifestEntry]
	// host identifies the running executable; "" keeps nothing.
	host string
	// decoded counts manifests taken from the cache (for tests).
	decoded int
}

// manifestEntry is one cached manifest: the sha256 of the tool.yaml bytes
// and the manifest as manifests.Marshal encodes it.
type manifestEntry struct {
	Sum      string          `json:"sha256"`
	Manifest json.RawMessage `json:"manifest"`
}

// manifestFile is the signed body of the persisted cache.
type manifestFile struct {
	Host    string                   `json:"host"`
	Entries map[string]manifestEntry `json:"manifests"`
}

// NewManifestCache returns a cache persisted at path (empty: in memory
// only), signed with key (empty: the file is neither read nor written). A
// missing, unverifiable or another executable's file starts it empty.
func NewManifestCache(path string, key []byte) *ManifestCache {
	mc := &ManifestCache{host: executableIdentity()}
	mc.init(path, key)
	if mc.host == "" {
		return mc
	}
	mac, body, ok := bytes.Cut(mc.file(), []byte("\n"))
	if !ok || !hmac.Equal(mac, []byte(macHex(key, body))) {
		return mc
	}
	var f manifestFile
	if _, err := sjson.Parse(body, &f, sjson.DontCopyRawMessage); err != nil || f.Host != mc.host || f.Entries == nil {
		return mc
	}
	mc.entries = f.Entries
	return mc
}

// executableIdentity names the running executable by its path and stat,
// so a rebuilt host (a new file) never reads what another build cached;
// "" when the system does not say.
func executableIdentity() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	st, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	k, ok := statKeyOf(st)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s %+v", exe, k)
}

// get returns the manifest cached for path parsed from bytes whose sha256
// is sum, or nil.
func (mc *ManifestCache) get(path string, sum [sha256.Size]byte) *manifests.Manifest {
	if mc == nil || mc.host == "" {
		return nil
	}
	e, ok := mc.lookup(path)
	if !ok || e.Sum != hex.EncodeToString(sum[:]) {
		return nil
	}
	m, err := decodeCached(path, e.Manifest)
	if err != nil {
		return nil
	}
	mc.mu.Lock()
	mc.decoded++
	mc.mu.Unlock()
	return m
}

// cachedFlags decode as encoding/json with UseNumber and
// DisallowUnknownFields would, field names matched exactly as
// manifests.Marshal writes them.
const cachedFlags = sjson.UseNumber | sjson.DisallowUnknownFields | sjson.DontMatchCaseInsensitiveStructFields

// decodeCached decodes a manifest manifests.Marshal encoded and finishes it
// with manifests.Restore: the one decoder of the cache form. It uses
// segmentio's decoder, not encoding/json, because a start decodes every
// cached manifest and the standard decoder put a start with 50 plugins
// over its goal (docs/design.md, "What a start costs per plugin"). put
// keeps only what it decodes equal.
func decodeCached(path string, data []byte) (*manifests.Manifest, error) {
	var m manifests.Manifest
	rest, err := sjson.Parse(data, &m, cachedFlags)
	if err != nil {
		return nil, fmt.Errorf("registry: cached manifest %s: %w", path, err)
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		return nil, fmt.Errorf("registry: cached manifest %s: data after the manifest", path)
	}
	if err := manifests.Restore(path, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// put keeps m, parsed without error from bytes whose sha256 is sum, when
// it decodes back equal.
func (mc *ManifestCache) put(path string, sum [sha256.Size]byte, m *manifests.Manifest) {
	if mc == nil || mc.host == "" {
		return
	}
	enc, err := manifests.Marshal(m)
	if err != nil {
		return
	}
	if back, err := decodeCached(path, enc); err != nil || !reflect.DeepEqual(back, m) {
		return
	}
	mc.set(path, manifestEntry{Sum: hex.EncodeToString(sum[:]), Manifest: enc})
}

// useKey gives a cache that has a file but no key the user's approval key,
// so what it parsed is saved.
func (mc *ManifestCache) useKey(key []byte) {
	if mc != nil {
		mc.signedCache.useKey(key)
	}
}

// Save writes the cache file when entries changed since the last save.
// Entries of manifests that no longer exist are dropped.
func (mc *ManifestCache) Save() error {
	if mc == nil || mc.host == "" {
		return nil
	}
	return mc.save("manifest cache", func(entries map[string]manifestEntry, key []byte) ([]byte, error) {
		body, err := json.Marshal(manifestFile{Host: mc.host, Entries: entries})
		if err != nil {
			return nil, err
		}
		return append([]byte(macHex(key, body)+"\n"), body...), nil
	})
}
