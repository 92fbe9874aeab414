// Package journal is the notes brain's write-ahead record: before a write
// touches a file it records, synced, the paths it is about to touch and
// what each held (one file per operation in the journal folder), and it
// drops the record once its commit and index are done. A record found by
// a writer holding the brain's lock belongs to an operation whose process
// died: Restore puts back exactly its paths — nothing else in the brain —
// and ClearStaleGitLocks the lock files its git child left.
package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Journal is the write-ahead record of one operation.
type Journal struct {
	Op      string  `json:"op"`
	Action  string  `json:"action"`
	PID     int     `json:"pid"`
	Started string  `json:"started"`
	OldHead string  `json:"old_head"`
	Files   []Entry `json:"files"`
}

// Entry is one path of a journal with its content before the operation
// (Had false: the path did not exist) and, when known, the digest of what
// the operation writes there (New; "-" for a removal).
type Entry struct {
	Path string `json:"path"`
	Had  bool   `json:"had"`
	Data []byte `json:"data,omitempty"`
	New  string `json:"new,omitempty"`
}

// Files reads and writes the brain's files by their path in the brain;
// Read's error wraps fs.ErrNotExist for a path with no file.
type Files interface {
	Read(rel string) ([]byte, error)
	Write(rel string, data []byte) error
}

// Store is the journal folder of one brain, whose working tree is Root.
type Store struct {
	Root string
	// Dir is the journal folder, relative to Root.
	Dir   string
	Files Files
}

func (s Store) path(op string) string {
	return filepath.Join(s.Root, filepath.FromSlash(s.Dir), op+".json")
}

// Begin records what paths hold before op touches them and, from changes
// when given (nil for an undo, whose result git computes; a nil value is a
// removal), what it will write. It must be called with the lock held.
func (s Store) Begin(op, action, oldHead string, paths []string, changes map[string][]byte) (*Journal, error) {
	j := &Journal{Op: op, Action: action, PID: os.Getpid(), Started: time.Now().UTC().Format(time.RFC3339Nano), OldHead: oldHead}
	newDigest := map[string]string{}
	for p, data := range changes {
		newDigest[p] = "-"
		if data != nil {
			newDigest[p] = digest(data)
		}
	}
	for _, p := range paths {
		raw, err := s.Files.Read(p)
		switch {
		case err == nil:
			j.Files = append(j.Files, Entry{Path: p, Had: true, Data: raw, New: newDigest[p]})
		case errors.Is(err, fs.ErrNotExist):
			j.Files = append(j.Files, Entry{Path: p, New: newDigest[p]})
		default:
			return nil, fmt.Errorf("brain: journal %s: %w", p, err)
		}
	}
	raw, err := json.Marshal(j)
	if err != nil {
		return nil, fmt.Errorf("brain: journal: %w", err)
	}
	dir := filepath.Join(s.Root, filepath.FromSlash(s.Dir))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("brain: journal: %w", err)
	}
	if err := writeSynced(s.path(op), raw); err != nil {
		return nil, fmt.Errorf("brain: journal: %w", err)
	}
	return j, nil
}

// End removes a finished operation's journal.
func (s Store) End(j *Journal) {
	_ = os.Remove(s.path(j.Op))
}

// Any reports whether any operation's journal is present.
func (s Store) Any() bool {
	entries, err := os.ReadDir(filepath.Join(s.Root, filepath.FromSlash(s.Dir)))
	return err == nil && len(entries) > 0
}

// writeSynced writes data to path through a synced temporary file and a
// rename, then syncs the folder, so the file is whole after a crash.
func writeSynced(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-journal-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// UnreadableError says a journal file cannot be read back.
type UnreadableError struct {
	Name string
}

func (e *UnreadableError) Error() string { return "the journal " + e.Name + " is unreadable" }

// Pending lists the journals left in the brain, oldest first.
func (s Store) Pending() ([]*Journal, error) {
	dir := filepath.Join(s.Root, filepath.FromSlash(s.Dir))
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("brain: read journals: %w", err)
	}
	var out []*Journal
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".tmp-journal-") {
			// A journal whose writer died before the rename: the
			// operation touched nothing yet.
			_ = os.Remove(filepath.Join(dir, name))
			continue
		}
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("brain: read journal %s: %w", name, err)
		}
		var j Journal
		if err := json.Unmarshal(raw, &j); err != nil || j.Op == "" {
			return nil, &UnreadableError{Name: name}
		}
		out = append(out, &j)
	}
	sort.Slice(out, func(i, k int) bool { return out[i].Op < out[k].Op })
	return out, nil
}

// Restore puts back the paths of an operation that did not commit: each
// path that holds what the operation wrote gets what it held before (or
// goes, when it had no file); a path that already holds what it had is
// left as it is. Both are in paths, for the caller to unstage. A path
// changed by someone else since is neither touched nor listed, but
// skipped. Then writeAtomic's temporary files beside the paths go.
func (s Store) Restore(j *Journal) (paths, skipped []string, err error) {
	for _, f := range j.Files {
		abs := filepath.Join(s.Root, filepath.FromSlash(f.Path))
		if f.New != "" {
			cur := "-"
			if raw, err := s.Files.Read(f.Path); err == nil {
				cur = digest(raw)
			}
			old := "-"
			if f.Had {
				old = digest(f.Data)
			}
			if cur == old {
				paths = append(paths, f.Path)
				continue
			}
			if cur != f.New {
				// Changed since by someone else: theirs now, left as
				// it is.
				skipped = append(skipped, f.Path)
				continue
			}
		}
		paths = append(paths, f.Path)
		if f.Had {
			if err := s.Files.Write(f.Path, f.Data); err != nil {
				return paths, skipped, fmt.Errorf("brain: recover %s: %w", f.Path, err)
			}
			continue
		}
		if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return paths, skipped, fmt.Errorf("brain: recover %s: %w", f.Path, err)
		}
	}
	removeTempFiles(s.Root, paths)
	return paths, skipped, nil
}

// removeTempFiles removes writeAtomic's temporary files beside paths: a
// writer that died between creating one and renaming it leaves it behind.
func removeTempFiles(root string, paths []string) {
	dirs := map[string]bool{}
	for _, p := range paths {
		dirs[filepath.Dir(filepath.Join(root, filepath.FromSlash(p)))] = true
	}
	for d := range dirs {
		matches, _ := filepath.Glob(filepath.Join(d, ".tmp-notes-*"))
		for _, m := range matches {
			_ = os.Remove(m)
		}
	}
}

// ClearStaleGitLocks removes git's lock files that the interrupted
// operation left: its git child dies with it and never removes them. Only
// locks made after the operation started are removed; an older one is not
// this operation's.
func (s Store) ClearStaleGitLocks(j *Journal) {
	started, err := time.Parse(time.RFC3339Nano, j.Started)
	if err != nil {
		return
	}
	// Every lock in .git itself: index.lock, HEAD.lock, the temporary
	// index of `git commit -- PATHS` (next-index-<pid>.lock), the message
	// a revert writes (MERGE_MSG.lock) and any other git takes there.
	var names []string
	if locks, err := filepath.Glob(filepath.Join(s.Root, ".git", "*.lock")); err == nil {
		for _, p := range locks {
			names = append(names, filepath.Base(p))
		}
	}
	if raw, err := os.ReadFile(filepath.Join(s.Root, ".git", "HEAD")); err == nil {
		if ref, ok := strings.CutPrefix(strings.TrimSpace(string(raw)), "ref: "); ok && !strings.Contains(ref, "..") {
			names = append(names, ref+".lock")
		}
	}
	for _, name := range names {
		p := filepath.Join(s.Root, ".git", filepath.FromSlash(name))
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		if !st.ModTime().Before(started.Add(-time.Second)) {
			_ = os.Remove(p)
		}
	}
}

// digest is the brain's digest of a file's content (safety.go's).
func digest(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:16])
}
