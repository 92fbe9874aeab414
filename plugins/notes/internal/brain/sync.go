package brain

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/toolhost/toolhost/plugins/notes/internal/note"
	"github.com/toolhost/toolhost/plugins/notes/internal/notesync"
)

// Sync commits edits made outside the notes tool, fetches, merges (both
// versions of a conflicting note kept), scans what it is about to push for
// secrets, pushes and brings the index up to date (package notesync).
func (b *Brain) Sync(ctx context.Context, c Call) (*notesync.Result, error) {
	return notesync.Run(ctx, syncBrain{b: b, c: c})
}

// syncBrain is the brain as sync sees it, for one call.
type syncBrain struct {
	b *Brain
	c Call
}

var _ notesync.Brain = syncBrain{}

func (s syncBrain) Root() string     { return s.b.Root }
func (s syncBrain) StateDir() string { return filepath.Join(s.b.Root, StateDir) }
func (s syncBrain) Machine() string  { return s.b.machineName() }
func (s syncBrain) Now() time.Time   { return s.b.Now() }

func (s syncBrain) CheckConfig(ctx context.Context) error { return checkGitConfig(ctx, s.b.Root) }

func (s syncBrain) Lock(ctx context.Context) (func(), error) { return s.b.lock(ctx) }

func (s syncBrain) TrySyncLock() (func(), error) {
	return tryLock(filepath.Join(s.b.Root, StateDir, "sync.lock"))
}

func (s syncBrain) ReadFile(rel string) ([]byte, string, error) {
	data, err := readBrainFile(s.b.Root, rel)
	var u *unsafeFileError
	if errors.As(err, &u) {
		return nil, u.Why, err
	}
	return data, "", err
}

func (s syncBrain) TreeUnsafe(ctx context.Context, rev string) ([]UnsafeFile, error) {
	return treeUnsafe(ctx, gitRunner{dir: s.b.Root}, rev)
}

func (s syncBrain) WriteFile(abs string, data []byte) error { return writeAtomic(abs, data) }

func (s syncBrain) NewOp() string { return newID() }

func (s syncBrain) CommitMessage(subject string, lines []string, op string) (string, error) {
	c := s.c
	return commitMessage(subject, prefixLines(lines),
		trailers{Op: op, Action: "sync", Session: c.session(), Client: c.Client(), Request: c.Caller.RequestID, Channel: c.Caller.Channel})
}

func (s syncBrain) Catalogue() string                 { return IndexFile }
func (s syncBrain) DerivedFiles() []string            { return derivedFiles }
func (s syncBrain) IsDerived(rel string) bool         { return isDerived(rel) }
func (s syncBrain) ReadDerived(rel string) []byte     { return s.b.readRel(rel) }
func (s syncBrain) ConflictCopies() []string          { return s.b.conflictCopies() }
func (s syncBrain) Refresh(ctx context.Context) error { return s.b.freshLocked(ctx) }

func (s syncBrain) RegenerateDerived(ctx context.Context, op, action string, lines []string) ([]string, error) {
	return s.b.RegenerateDerived(ctx, op, action, lines)
}

func (s syncBrain) Reindex(ctx context.Context, oldHead, head string, paths []string) error {
	return s.b.reindex(ctx, oldHead, head, paths)
}

// machineName is this machine's name in conflict copies: Brain.Machine,
// else NOTES_MACHINE, else the host name.
func (b *Brain) machineName() string {
	m := b.Machine
	if m == "" {
		m = os.Getenv("NOTES_MACHINE")
	}
	if m == "" {
		m, _ = os.Hostname()
	}
	if s := note.Slug(m, 40); s != "note" || m == "note" {
		return s
	}
	return "machine"
}

// conflictCopies lists the sync conflict copies in the brain's folder.
func (b *Brain) conflictCopies() []string {
	var out []string
	_ = filepath.WalkDir(b.Root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == StateDir) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(b.Root, p)
		if conflictCopy.MatchString(filepath.ToSlash(rel)) {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}
