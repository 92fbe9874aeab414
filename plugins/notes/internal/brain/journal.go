package brain

import (
	"context"
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

// journalDir holds one write-ahead record per operation in flight, under
// the brain's state folder (not in git).
const journalDir = StateDir + "/journal"

// journal is the write-ahead record of one operation: the paths it is about
// to touch and what each held before, written (and synced) before the first
// of them changes and removed once the commit and the index are done. A
// journal found by a writer holding the lock belongs to an operation whose
// process died; recovery completes it when its commit reached HEAD and
// otherwise puts back exactly these paths — nothing else in the brain.
type journal struct {
	Op      string         `json:"op"`
	Action  string         `json:"action"`
	PID     int            `json:"pid"`
	Started string         `json:"started"`
	OldHead string         `json:"old_head"`
	Files   []journalEntry `json:"files"`
}

// journalEntry is one path of a journal with its content before the
// operation (Had false: the path did not exist) and, when known, the digest
// of what the operation writes there (New; "-" for a removal).
type journalEntry struct {
	Path string `json:"path"`
	Had  bool   `json:"had"`
	Data []byte `json:"data,omitempty"`
	New  string `json:"new,omitempty"`
}

func (b *Brain) journalPath(op string) string {
	return filepath.Join(b.Root, filepath.FromSlash(journalDir), op+".json")
}

// beginJournal records what paths held before op touches them and, from
// changes when given (nil for an undo, whose result git computes), what it
// will write. It must be called with the lock held.
func (b *Brain) beginJournal(op, action, oldHead string, paths []string, changes []change) (*journal, error) {
	j := &journal{Op: op, Action: action, PID: os.Getpid(), Started: time.Now().UTC().Format(time.RFC3339Nano), OldHead: oldHead}
	newDigest := map[string]string{}
	for _, ch := range changes {
		newDigest[ch.Path] = "-"
		if ch.Data != nil {
			newDigest[ch.Path] = digest(ch.Data)
		}
	}
	for _, p := range paths {
		raw, err := readBrainFile(b.Root, p)
		switch {
		case err == nil:
			j.Files = append(j.Files, journalEntry{Path: p, Had: true, Data: raw, New: newDigest[p]})
		case errors.Is(err, fs.ErrNotExist):
			j.Files = append(j.Files, journalEntry{Path: p, New: newDigest[p]})
		default:
			return nil, fmt.Errorf("brain: journal %s: %w", p, err)
		}
	}
	raw, err := json.Marshal(j)
	if err != nil {
		return nil, fmt.Errorf("brain: journal: %w", err)
	}
	dir := filepath.Join(b.Root, filepath.FromSlash(journalDir))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("brain: journal: %w", err)
	}
	if err := writeSynced(b.journalPath(op), raw); err != nil {
		return nil, fmt.Errorf("brain: journal: %w", err)
	}
	return j, nil
}

// endJournal removes a finished operation's journal.
func (b *Brain) endJournal(j *journal) {
	_ = os.Remove(b.journalPath(j.Op))
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

// pendingJournals lists the journals left in the brain, oldest first.
func (b *Brain) pendingJournals() ([]*journal, error) {
	dir := filepath.Join(b.Root, filepath.FromSlash(journalDir))
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("brain: read journals: %w", err)
	}
	var out []*journal
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
		var j journal
		if err := json.Unmarshal(raw, &j); err != nil || j.Op == "" {
			return nil, fail(CodeInternal, "Move "+journalDir+"/"+name+" aside and check the brain with git status.",
				"the journal %s is unreadable", name)
		}
		out = append(out, &j)
	}
	sort.Slice(out, func(i, k int) bool { return out[i].Op < out[k].Op })
	return out, nil
}

// Recovered says what recovery did with one interrupted operation.
type Recovered struct {
	Op     string   `json:"op"`
	Action string   `json:"action"`
	Result string   `json:"result"` // completed | rolled_back
	Paths  []string `json:"paths"`
	// Skipped are paths changed by someone else after the crash: left
	// as they are.
	Skipped []string `json:"skipped,omitempty"`
}

// recoverLocked finishes or rolls back every operation whose process died
// mid-write. It must be called with the lock held: then no live writer owns
// a journal.
func (b *Brain) recoverLocked(ctx context.Context) ([]Recovered, error) {
	js, err := b.pendingJournals()
	if err != nil || len(js) == 0 {
		return nil, err
	}
	var out []Recovered
	for _, j := range js {
		r, err := b.recoverOne(ctx, j)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (b *Brain) recoverOne(ctx context.Context, j *journal) (Recovered, error) {
	ctx = context.WithoutCancel(ctx)
	g := gitRunner{dir: b.Root}
	b.clearStaleGitLocks(j)
	r := Recovered{Op: j.Op, Action: j.Action, Paths: []string{}}
	var paths []string
	for _, f := range j.Files {
		paths = append(paths, f.Path)
	}
	r.Paths = append(r.Paths, paths...)
	head, err := g.head(ctx)
	if err != nil {
		return r, fail(CodeGitFailed, "Check the brain with git status.", "recover operation %s: %v", j.Op, err)
	}
	committed := false
	if head != j.OldHead {
		// The op's commit may be HEAD, or below a commit a person made
		// by hand before anyone recovered.
		entries, err := g.log(ctx, j.OldHead+"..HEAD")
		if err != nil {
			return r, fail(CodeGitFailed, "Check the brain with git status.", "recover operation %s: %v", j.Op, err)
		}
		for _, e := range entries {
			committed = committed || e.Trailer.Op == j.Op
		}
	}
	if committed {
		// The commit is in: only the index may lag, and fresh rebuilds it
		// when its head is not HEAD.
		r.Result = "completed"
		if err := b.freshLocked(ctx); err != nil {
			return r, err
		}
		b.endJournal(j)
		return r, nil
	}
	r.Result = "rolled_back"
	if j.Action == "undo" {
		// A revert --no-commit leaves sequencer state; drop it (it never
		// touches the working tree).
		_, _ = g.run(ctx, "revert", "--quit")
	}
	var paths2 []string
	for _, f := range j.Files {
		abs := filepath.Join(b.Root, filepath.FromSlash(f.Path))
		if f.New != "" {
			cur := "-"
			if raw, err := readBrainFile(b.Root, f.Path); err == nil {
				cur = digest(raw)
			}
			old := "-"
			if f.Had {
				old = digest(f.Data)
			}
			if cur == old {
				paths2 = append(paths2, f.Path)
				continue
			}
			if cur != f.New {
				// Changed since by someone else: theirs now, left as
				// it is.
				r.Skipped = append(r.Skipped, f.Path)
				continue
			}
		}
		paths2 = append(paths2, f.Path)
		if f.Had {
			if err := writeAtomic(abs, f.Data); err != nil {
				return r, fmt.Errorf("brain: recover %s: %w", f.Path, err)
			}
			continue
		}
		if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return r, fmt.Errorf("brain: recover %s: %w", f.Path, err)
		}
	}
	paths = paths2
	if len(paths) > 0 {
		// Unstage what the operation staged: the index entries of these
		// paths go back to HEAD's.
		if _, err := g.run(ctx, append([]string{"reset", "-q", "--"}, paths...)...); err != nil {
			return r, fail(CodeGitFailed, "Check the brain with git status.", "recover operation %s: %v", j.Op, err)
		}
	}
	removeTempFiles(b.Root, paths)
	b.endJournal(j)
	return r, nil
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

// clearStaleGitLocks removes git's lock files that the interrupted operation
// left: its git child dies with it (see git_linux.go) and never removes
// them. Only locks made after the operation started are removed; an older
// one is not this operation's.
func (b *Brain) clearStaleGitLocks(j *journal) {
	started, err := time.Parse(time.RFC3339Nano, j.Started)
	if err != nil {
		return
	}
	// Every lock in .git itself: index.lock, HEAD.lock, the temporary
	// index of `git commit -- PATHS` (next-index-<pid>.lock), the message
	// a revert writes (MERGE_MSG.lock) and any other git takes there.
	var names []string
	if locks, err := filepath.Glob(filepath.Join(b.Root, ".git", "*.lock")); err == nil {
		for _, p := range locks {
			names = append(names, filepath.Base(p))
		}
	}
	if raw, err := os.ReadFile(filepath.Join(b.Root, ".git", "HEAD")); err == nil {
		if ref, ok := strings.CutPrefix(strings.TrimSpace(string(raw)), "ref: "); ok && !strings.Contains(ref, "..") {
			names = append(names, ref+".lock")
		}
	}
	for _, name := range names {
		p := filepath.Join(b.Root, ".git", filepath.FromSlash(name))
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		if !st.ModTime().Before(started.Add(-time.Second)) {
			_ = os.Remove(p)
		}
	}
}

// crashPoint kills the process when NOTES_CRASH_AT names point: the
// recovery test's way of stopping a writer at a chosen step, as kill -9
// would. Unset in normal use.
func crashPoint(point string) {
	if v := os.Getenv("NOTES_CRASH_AT"); v != "" && v == point {
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			_ = p.Kill()
			select {}
		}
	}
}
