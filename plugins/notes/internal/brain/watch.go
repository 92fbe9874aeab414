package brain

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/fsnotify/fsnotify"

	"github.com/toolhost/toolhost/plugins/notes/internal/note"
	"github.com/toolhost/toolhost/sdk"
)

// watchDir holds the barrier files a read writes to learn that the watcher
// has handled every change made before it (state folder, not in git).
const watchDir = StateDir + "/watch"

// uncommitted is what the brain knows of notes changed by hand and not
// committed: path → true for a new (untracked) note, false for a tracked
// note edited or deleted. Search shows these notes, marked uncommitted.
type uncommitted struct {
	mu    sync.Mutex
	paths map[string]bool
}

func (u *uncommitted) set(p string, isNew bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.paths == nil {
		u.paths = map[string]bool{}
	}
	u.paths[p] = isNew
}

func (u *uncommitted) drop(paths ...string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, p := range paths {
		delete(u.paths, p)
	}
}

func (u *uncommitted) reset(m map[string]bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.paths = m
}

func (u *uncommitted) get(p string) (isNew, ok bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	isNew, ok = u.paths[p]
	return isNew, ok
}

func (u *uncommitted) any() bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.paths) > 0
}

// isUncommitted reports whether the note at p differs from HEAD by a
// person's uncommitted edit.
func (b *Brain) isUncommitted(p string) bool {
	_, ok := b.unc.get(p)
	return ok
}

// isUncommittedNew reports whether p is a note a person created and has
// not committed.
func (b *Brain) isUncommittedNew(p string) bool {
	isNew, ok := b.unc.get(p)
	return ok && isNew
}

// gitStatus returns the porcelain status of paths (all when none): path →
// its two-letter code. Only notes the index would hold are kept.
func (b *Brain) gitStatus(ctx context.Context, paths ...string) (map[string]string, error) {
	args := []string{"status", "--porcelain", "-z", "--untracked-files=all", "--no-renames"}
	if len(paths) > 0 {
		args = append(append(args, "--"), paths...)
	}
	out, err := gitRunner{dir: b.Root}.run(ctx, args...)
	if err != nil {
		return nil, fail(CodeGitFailed, "Check the brain folder with git status.", "%v", err)
	}
	st := map[string]string{}
	for _, rec := range strings.Split(out, "\x00") {
		if len(rec) < 4 {
			continue
		}
		p := rec[3:]
		if indexable(p) {
			st[p] = rec[:2]
		}
	}
	return st, nil
}

// scanUncommitted learns every uncommitted note from git status and
// returns the new (untracked) ones, which a rebuild from git's file list
// would miss.
func (b *Brain) scanUncommitted(ctx context.Context) ([]string, error) {
	st, err := b.gitStatus(ctx)
	if err != nil {
		return nil, err
	}
	m := map[string]bool{}
	var fresh []string
	for p, code := range st {
		m[p] = code == "??"
		if code == "??" {
			fresh = append(fresh, p)
		}
	}
	b.unc.reset(m)
	return fresh, nil
}

// watcher follows hand edits in a brain while the plugin is resident and
// brings them into the index.
type watcher struct {
	b    *Brain
	fw   *fsnotify.Watcher
	done chan struct{}

	mu      sync.Mutex
	seq     uint64
	waiting map[string]chan struct{}
}

// Watch starts following the brain's files until ctx ends or the brain
// closes: a note a person writes, edits or deletes reaches the index (and
// search, marked uncommitted) without a restart. Paths an open write
// journal holds are left to their write. It returns once the watches are
// in place.
func (b *Brain) Watch(ctx context.Context) error {
	if err := b.startWatch(ctx); err != nil {
		return err
	}
	// What changed by hand while no watcher ran: an index holding hand
	// edits of an earlier process is rebuilt, and uncommitted notes are
	// taken in.
	if b.ix.Meta(ctx, handEditsMeta) != "" {
		b.forceRescan.Store(true)
		return nil
	}
	st, err := b.gitStatus(ctx)
	if err != nil {
		return err
	}
	for p := range st {
		b.indexHandEdit(ctx, p)
	}
	return nil
}

// startWatch puts the watches in place and starts the watcher's loop,
// once.
func (b *Brain) startWatch(ctx context.Context) error {
	b.watchMu.Lock()
	defer b.watchMu.Unlock()
	if b.watch != nil {
		return nil
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("brain: watch: %w", err)
	}
	w := &watcher{b: b, fw: fw, done: make(chan struct{}), waiting: map[string]chan struct{}{}}
	bar := filepath.Join(b.Root, filepath.FromSlash(watchDir))
	if err := os.MkdirAll(bar, 0o700); err != nil {
		fw.Close()
		return fmt.Errorf("brain: watch: %w", err)
	}
	if err := fw.Add(bar); err != nil {
		fw.Close()
		return fmt.Errorf("brain: watch %s: %w", bar, err)
	}
	if err := w.addTree(b.Root); err != nil {
		fw.Close()
		return err
	}
	b.watch = w
	go w.loop(ctx)
	return nil
}

// handEditsMeta is set in the index while it holds working-tree content
// that is not at HEAD, so a later process rebuilds rather than trust it.
const handEditsMeta = "hand_edits"

// stopWatch ends the watcher, if any, and waits for it.
func (b *Brain) stopWatch() {
	b.watchMu.Lock()
	w := b.watch
	b.watch = nil
	b.watchMu.Unlock()
	if w != nil {
		w.fw.Close()
		<-w.done
	}
}

// OnIndexed, when set before Watch, is called by the watcher after it
// brought a hand-edited path into the index: the explicit signal tests
// wait on.
func (b *Brain) OnIndexed(fn func(path string)) {
	b.watchMu.Lock()
	defer b.watchMu.Unlock()
	b.onIndexed = fn
}

// addTree watches dir and its folders, git's and the state folder left
// out.
func (w *watcher) addTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(w.b.Root, p)
		rel = filepath.ToSlash(rel)
		if rel == ".git" || rel == StateDir {
			return filepath.SkipDir
		}
		if err := w.fw.Add(p); err != nil {
			return fmt.Errorf("brain: watch %s: %w", rel, err)
		}
		return nil
	})
}

func (w *watcher) loop(ctx context.Context) {
	defer close(w.done)
	defer w.releaseAll()
	for {
		select {
		case <-ctx.Done():
			w.fw.Close()
			return
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			w.handle(ctx, ev)
		case err, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			// An overflow loses events: the next read catches up through
			// a full scan.
			sdk.Logger().Warn("notes: watcher", "err", err)
			w.b.forceRescan.Store(true)
		}
	}
}

// releaseAll wakes every read waiting on a barrier when the watcher stops.
func (w *watcher) releaseAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for name, ch := range w.waiting {
		close(ch)
		delete(w.waiting, name)
	}
}

func (w *watcher) handle(ctx context.Context, ev fsnotify.Event) {
	rel, err := filepath.Rel(w.b.Root, ev.Name)
	if err != nil {
		return
	}
	rel = filepath.ToSlash(rel)
	if dir, name := filepath.Split(rel); strings.TrimSuffix(dir, "/") == watchDir {
		w.mu.Lock()
		ch := w.waiting[name]
		delete(w.waiting, name)
		w.mu.Unlock()
		if ch != nil {
			close(ch)
			_ = os.Remove(ev.Name)
		}
		return
	}
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			// A new folder: watch it, and take in what was written to it
			// before its watch was in place.
			if err := w.addTree(ev.Name); err != nil {
				sdk.Logger().Warn("notes: watcher", "err", err)
			}
			_ = filepath.WalkDir(ev.Name, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					if r, err := filepath.Rel(w.b.Root, p); err == nil {
						w.b.indexHandEdit(ctx, filepath.ToSlash(r))
					}
				}
				return nil
			})
			return
		}
	}
	w.b.indexHandEdit(ctx, rel)
}

// indexHandEdit brings one path's working-tree state into the index unless
// a write in flight holds it, and signals OnIndexed.
func (b *Brain) indexHandEdit(ctx context.Context, rel string) {
	if !indexable(rel) || b.journalHolds(rel) {
		return
	}
	b.ixMu.Lock()
	err := b.indexWorkingFile(ctx, rel)
	b.ixMu.Unlock()
	if err != nil {
		sdk.Logger().Warn("notes: watcher: index a hand edit", "path", rel, "err", err)
		return
	}
	b.watchMu.Lock()
	fn := b.onIndexed
	b.watchMu.Unlock()
	if fn != nil {
		fn(rel)
	}
}

// indexWorkingFile puts rel as it is in the working tree into the index
// (or removes it when gone) and records whether it is uncommitted; the
// caller holds ixMu.
func (b *Brain) indexWorkingFile(ctx context.Context, rel string) error {
	st, err := b.gitStatus(ctx, rel)
	if err != nil {
		return err
	}
	code, changed := st[rel]
	raw, rerr := readBrainFile(b.Root, rel)
	if isUnsafeFile(rerr) {
		// A link or special file is never read; lint lists it.
		rerr = fs.ErrNotExist
	}
	batch, err := b.ix.Begin(ctx)
	if err != nil {
		return fmt.Errorf("brain: watcher: %w", err)
	}
	defer batch.Rollback()
	switch {
	case rerr == nil:
		if err := batch.Put(ctx, note.Parse(rel, raw)); err != nil {
			return fmt.Errorf("brain: watcher: %w", err)
		}
	case errors.Is(rerr, fs.ErrNotExist):
		if err := batch.Delete(ctx, rel); err != nil {
			return fmt.Errorf("brain: watcher: %w", err)
		}
	default:
		return fmt.Errorf("brain: watcher: read %s: %w", rel, rerr)
	}
	if changed {
		if err := batch.SetMeta(ctx, handEditsMeta, "1"); err != nil {
			return fmt.Errorf("brain: watcher: %w", err)
		}
	}
	if err := batch.Commit(); err != nil {
		return fmt.Errorf("brain: watcher: %w", err)
	}
	switch {
	case !changed:
		b.unc.drop(rel)
	case code == "??" && rerr == nil:
		b.unc.set(rel, true)
	case code == "??":
		b.unc.drop(rel)
	default:
		b.unc.set(rel, false)
	}
	return nil
}

// journalHolds reports whether an open write journal (this process's or
// another's) holds rel: that write indexes it when it ends.
func (b *Brain) journalHolds(rel string) bool {
	if !b.hasJournals() {
		return false
	}
	js, err := b.pendingJournals()
	if err != nil {
		return true
	}
	for _, j := range js {
		for _, f := range j.Files {
			if f.Path == rel {
				return true
			}
		}
	}
	return false
}

// catchUp waits until the watcher, when one runs, has handled every change
// made to the brain before the call: it writes a barrier file and waits
// for the watcher to see it (one queue of events, in order).
func (b *Brain) catchUp(ctx context.Context) error {
	b.watchMu.Lock()
	w := b.watch
	b.watchMu.Unlock()
	if w == nil {
		return nil
	}
	w.mu.Lock()
	w.seq++
	name := fmt.Sprintf("barrier-%d-%d", os.Getpid(), w.seq)
	ch := make(chan struct{})
	w.waiting[name] = ch
	w.mu.Unlock()
	if err := os.WriteFile(filepath.Join(b.Root, filepath.FromSlash(watchDir), name), nil, 0o600); err != nil {
		w.mu.Lock()
		delete(w.waiting, name)
		w.mu.Unlock()
		return fmt.Errorf("brain: watcher barrier: %w", err)
	}
	select {
	case <-ch:
		return nil
	case <-w.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
