package brain

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/toolhost/toolhost/plugins/notes/internal/journal"
)

// journalDir holds one write-ahead record per operation in flight, under
// the brain's state folder (not in git): package journal.
const journalDir = StateDir + "/journal"

// brainFiles is how the journal reads and writes the brain's files: never
// through a link, and atomically.
type brainFiles struct{ root string }

func (f brainFiles) Read(rel string) ([]byte, error) { return readBrainFile(f.root, rel) }

func (f brainFiles) Write(rel string, data []byte) error {
	return writeAtomic(filepath.Join(f.root, filepath.FromSlash(rel)), data)
}

// journals is the brain's journal folder.
func (b *Brain) journals() journal.Store {
	return journal.Store{Root: b.Root, Dir: journalDir, Files: brainFiles{b.Root}}
}

// beginJournal records what paths held before op touches them and, from
// changes when given (nil for an undo), what it will write. It must be
// called with the lock held.
func (b *Brain) beginJournal(op, action, oldHead string, paths []string, changes []change) (*journal.Journal, error) {
	var want map[string][]byte
	if changes != nil {
		want = make(map[string][]byte, len(changes))
		for _, ch := range changes {
			want[ch.Path] = ch.Data
		}
	}
	return b.journals().Begin(op, action, oldHead, paths, want)
}

// endJournal removes a finished operation's journal.
func (b *Brain) endJournal(j *journal.Journal) { b.journals().End(j) }

// pendingJournals lists the journals left in the brain, oldest first.
func (b *Brain) pendingJournals() ([]*journal.Journal, error) {
	js, err := b.journals().Pending()
	var ue *journal.UnreadableError
	if errors.As(err, &ue) {
		return nil, fail(CodeInternal, "Move "+journalDir+"/"+ue.Name+" aside and check the brain with git status.", "%v", err)
	}
	return js, err
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

func (b *Brain) recoverOne(ctx context.Context, j *journal.Journal) (Recovered, error) {
	ctx = context.WithoutCancel(ctx)
	g := gitRunner{dir: b.Root}
	b.journals().ClearStaleGitLocks(j)
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
	paths, r.Skipped, err = b.journals().Restore(j)
	if err != nil {
		return r, err
	}
	if len(paths) > 0 {
		// Unstage what the operation staged: the index entries of these
		// paths go back to HEAD's.
		if _, err := g.run(ctx, append([]string{"reset", "-q", "--"}, paths...)...); err != nil {
			return r, fail(CodeGitFailed, "Check the brain with git status.", "recover operation %s: %v", j.Op, err)
		}
	}
	b.endJournal(j)
	return r, nil
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
