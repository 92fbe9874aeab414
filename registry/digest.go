package registry

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// cacheNames are folders and files a plugin folder's digest leaves out:
// caches an interpreter writes beside its sources while the plugin runs.
var cacheNames = map[string]bool{
	"__pycache__": true, ".pytest_cache": true, ".mypy_cache": true, ".ruff_cache": true, ".DS_Store": true,
}

// skipped reports whether a folder entry is a cache the digest leaves out.
func skipped(name string) bool {
	return cacheNames[name] || strings.HasSuffix(name, ".pyc")
}

// FolderDigest is what a plugin folder holds: every file's sha256 and mode,
// and one digest over all of it.
type FolderDigest struct {
	// Sum is "sha256:" and the hex sha256 over every entry's path, kind,
	// executable bit and content hash, in path order.
	Sum string
	// Files maps each file's slash-separated path inside the folder to its
	// hex sha256, with " (executable)" appended for executable files.
	Files map[string]string
}

// DigestFolder hashes every file of dir (caches left out), through hc when
// it is not nil. A symlink or any other special file is an error: the host
// runs a copy of the folder and never follows a link out of it.
func DigestFolder(dir string, hc *HashCache) (*FolderDigest, error) {
	d, _, err := digestFolder(dir, hc, nil, nil)
	return d, err
}

// digestFolder is DigestFolder that, given approved, reads no file it can
// vouch for another way. known maps a file's slash path to a sum the caller has just read
// (the manifest the scan parsed). approved, when not nil, is the folder's
// approved Files: a file the hash cache has never seen is taken at its
// approved sum unread, and unverified says one was, so the first launch
// must read them (RunCopy). A file the cache saw with another stat changed
// since it was hashed and is read again, as is one the approval does not
// list: a change the scan can see is never taken on trust.
func digestFolder(dir string, hc *HashCache, approved, known map[string]string) (d *FolderDigest, unverified bool, err error) {
	d = &FolderDigest{Files: map[string]string{}}
	h := sha256.New()
	err = walkFolder(dir, func(path, rel string, e fs.DirEntry) error {
		rel = filepath.ToSlash(rel)
		switch {
		case e.IsDir():
			fmt.Fprintf(h, "dir %s\n", rel)
			return nil
		case e.Type()&fs.ModeSymlink != 0:
			return fmt.Errorf("%s is a symlink: the host runs a copy of the plugin folder and follows no links, so put the file itself there", path)
		case !e.Type().IsRegular():
			return fmt.Errorf("%s is not a regular file (%s): a plugin folder holds only files and folders", path, e.Type())
		}
		var sum string
		var mode fs.FileMode
		var err error
		if approved == nil {
			sum, mode, err = hc.Sum(path)
		} else {
			var state cacheState
			sum, mode, state, err = hc.peek(path)
			switch a, listed := approved[rel]; {
			case err != nil:
			case known[rel] != "":
				sum = known[rel]
			case state == cacheUnseen && listed:
				sum, unverified = strings.TrimSuffix(a, executableMark), true
			case state != cacheHit:
				sum, mode, err = hc.Sum(path)
			}
		}
		if err != nil {
			return err
		}
		entry := sum
		if mode&0o111 != 0 {
			entry += executableMark
		}
		d.Files[rel] = entry
		fmt.Fprintf(h, "file %s %s\n", rel, entry)
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("registry: digest %s: %w", dir, err)
	}
	d.Sum = "sha256:" + hex.EncodeToString(h.Sum(nil))
	return d, unverified, nil
}

// executableMark follows an executable file's sum in FolderDigest.Files.
const executableMark = " (executable)"

// walkFolder calls fn for every file and folder under dir (dir itself and
// interpreter caches left out), with its path relative to dir: the one walk
// the digest and the run copy share, so both see the same files.
func walkFolder(dir string, fn func(path, rel string, e fs.DirEntry) error) error {
	return filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == dir {
			return nil
		}
		if skipped(e.Name()) {
			if e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		return fn(path, rel, e)
	})
}

// ChangedFiles lists, sorted, the files added, removed or changed from old
// to cur, each marked "+", "-" or "~".
func ChangedFiles(old, cur map[string]string) []string {
	var out []string
	for p, s := range cur {
		switch o, ok := old[p]; {
		case !ok:
			out = append(out, "+"+p)
		case o != s:
			out = append(out, "~"+p)
		}
	}
	for p := range old {
		if _, ok := cur[p]; !ok {
			out = append(out, "-"+p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][1:] < out[j][1:] })
	return out
}

// HashCache remembers files' sha256 by what stat says of them. An entry is
// used only when the device, inode, size, modification time and change
// time all match: a user can set a file's mtime back but not its ctime, so
// a rewritten file is always hashed again. On systems where the change time
// is not known, nothing is cached. A nil *HashCache hashes every time.
//
// A cache file, when set, persists the entries between runs; it carries an
// HMAC under the user's approval key, and a file that does not verify is
// ignored, so writing it cannot vouch for a changed file.
type HashCache struct {
	signedCache[hashEntry]
	// hashed counts files actually read (for tests).
	hashed int
}

// hashEntry is one cached sum and the stat it was taken under.
type hashEntry struct {
	Key statKey `json:"stat"`
	Sum string  `json:"sha256"`
}

// hashFile is the persisted form of a HashCache.
type hashFile struct {
	Entries map[string]hashEntry `json:"entries"`
	MAC     string               `json:"mac"`
}

// NewHashCache returns a cache persisted at path (empty: in memory only),
// its entries signed with key (empty: the file is neither read nor
// written). A missing or unverifiable file starts an empty cache.
func NewHashCache(path string, key []byte) *HashCache {
	hc := &HashCache{}
	hc.init(path, key)
	raw := hc.file()
	var f hashFile
	if raw == nil || json.Unmarshal(raw, &f) != nil || f.Entries == nil {
		return hc
	}
	if body, err := json.Marshal(f.Entries); err == nil && hmac.Equal([]byte(f.MAC), []byte(macHex(key, body))) {
		hc.entries = f.Entries
	}
	return hc
}

// Sum returns path's hex sha256 and mode, from the cache when its stat
// matches. A file that changes while it is read is not cached.
func (hc *HashCache) Sum(path string) (string, fs.FileMode, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return "", 0, err
	}
	if !st.Mode().IsRegular() {
		return "", 0, fmt.Errorf("%s is not a regular file", path)
	}
	key, keyed := statKeyOf(st)
	if hc != nil && keyed {
		if e, ok := hc.lookup(path); ok && e.Key == key {
			return e.Sum, st.Mode(), nil
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", 0, fmt.Errorf("read %s: %w", path, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if hc == nil {
		return sum, st.Mode(), nil
	}
	hc.mu.Lock()
	hc.hashed++
	hc.mu.Unlock()
	if after, err := f.Stat(); err == nil && keyed {
		if k2, ok := statKeyOf(after); ok && k2 == key {
			hc.set(path, hashEntry{Key: key, Sum: sum})
		}
	}
	return sum, st.Mode(), nil
}

// cacheState is what the hash cache knows of a file.
type cacheState int

const (
	// cacheUnseen: no entry for the path (or the system gives no stat key).
	cacheUnseen cacheState = iota
	// cacheStale: an entry taken under another stat: the file changed.
	cacheStale
	// cacheHit: an entry whose stat matches.
	cacheHit
)

// peek returns path's mode and what the cache knows of it, with the sum on
// a hit, reading nothing but the file's stat.
func (hc *HashCache) peek(path string) (string, fs.FileMode, cacheState, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return "", 0, cacheUnseen, err
	}
	if !st.Mode().IsRegular() {
		return "", 0, cacheUnseen, fmt.Errorf("%s is not a regular file", path)
	}
	key, keyed := statKeyOf(st)
	if hc == nil || !keyed {
		return "", st.Mode(), cacheUnseen, nil
	}
	e, ok := hc.lookup(path)
	switch {
	case !ok:
		return "", st.Mode(), cacheUnseen, nil
	case e.Key != key:
		return "", st.Mode(), cacheStale, nil
	}
	return e.Sum, st.Mode(), cacheHit, nil
}

// useKey gives a cache that has a file but no key the user's approval key,
// so what it hashed is saved.
func (hc *HashCache) useKey(key []byte) {
	if hc != nil {
		hc.signedCache.useKey(key)
	}
}

// Forget drops the entries of every file under dir.
func (hc *HashCache) Forget(dir string) {
	if hc == nil {
		return
	}
	hc.mu.Lock()
	defer hc.mu.Unlock()
	prefix := dir + string(filepath.Separator)
	for p := range hc.entries {
		if strings.HasPrefix(p, prefix) {
			delete(hc.entries, p)
			hc.dirty = true
		}
	}
}

// Save writes the cache file when entries changed since the last save.
// Entries of files that no longer exist are dropped.
func (hc *HashCache) Save() error {
	if hc == nil {
		return nil
	}
	return hc.save("hash cache", func(entries map[string]hashEntry, key []byte) ([]byte, error) {
		body, err := json.Marshal(entries)
		if err != nil {
			return nil, err
		}
		return json.Marshal(hashFile{Entries: entries, MAC: macHex(key, body)})
	})
}

// writeAtomic writes data to path through a temporary file and a rename,
// creating the folder (0700) when needed.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), mode)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// macHex is the hex HMAC-SHA256 of body under key.
func macHex(key, body []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}
