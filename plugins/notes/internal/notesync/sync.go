// Package notesync syncs a brain with its git remote: it commits what a
// person edited outside the notes tool, fetches, merges keeping both
// versions of a conflicting note, refuses links and submodules from either
// side, scans what it is about to send for secrets, and pushes. It reaches
// the brain only through Brain.
package notesync

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/toolhost/toolhost/plugins/notes/internal/gitstore"
	"github.com/toolhost/toolhost/plugins/notes/internal/secrets"
	"github.com/toolhost/toolhost/sdk"
)

// Sync statuses.
const (
	OK      = "ok"
	Busy    = "busy"
	Blocked = "blocked"
	Offline = "offline"
	Failed  = "error"
)

// CodeGitFailed is the error code of a git command that failed during sync
// (the brain's own git_failed).
const CodeGitFailed sdk.Code = "git_failed"

func fail(code sdk.Code, next, format string, a ...any) *sdk.Error {
	return &sdk.Error{Code: code, Message: fmt.Sprintf(format, a...), NextStep: next}
}

// Brain is what sync needs from the brain it syncs: its locks, its safe
// file reader and tree check, the commit message of a call, and the upkeep
// of its search index and derived files.
type Brain interface {
	// Root is the brain's folder, the git work tree.
	Root() string
	// StateDir is the brain's local state folder (absolute), ignored by git.
	StateDir() string
	// Machine is this machine's name in conflict copies.
	Machine() string
	// Now is the brain's clock.
	Now() time.Time
	// CheckConfig refuses a git configuration that would make git run a
	// program.
	CheckConfig(ctx context.Context) error
	// Lock takes the brain's write lock.
	Lock(ctx context.Context) (unlock func(), err error)
	// TrySyncLock takes the lock only one sync holds; nil unlock when
	// another sync holds it.
	TrySyncLock() (unlock func(), err error)
	// ReadFile reads a brain file as every reader does; why says what the
	// file is when it was refused (a link, a special file).
	ReadFile(rel string) (data []byte, why string, err error)
	// TreeUnsafe lists the links and submodules in rev's tree.
	TreeUnsafe(ctx context.Context, rev string) ([]UnsafeFile, error)
	// WriteFile replaces the file at abs atomically.
	WriteFile(abs string, data []byte) error
	// NewOp is a new operation id.
	NewOp() string
	// CommitMessage is the message of a sync commit under op, with the
	// call's trailers.
	CommitMessage(subject string, lines []string, op string) (string, error)
	// Catalogue is the derived catalogue's path (index.md).
	Catalogue() string
	// DerivedFiles are the files the brain regenerates (index.md, log.md);
	// IsDerived reports one.
	DerivedFiles() []string
	IsDerived(rel string) bool
	// ReadDerived is a derived file's text, nil when missing.
	ReadDerived(rel string) []byte
	// RegenerateDerived rewrites the derived files and journals lines
	// under op; it returns the paths it wrote.
	RegenerateDerived(ctx context.Context, op, action string, lines []string) ([]string, error)
	// Reindex brings the search index from oldHead to head (paths: what
	// changed, nil for a diff of the two).
	Reindex(ctx context.Context, oldHead, head string, paths []string) error
	// Refresh brings the search index to HEAD, the lock held.
	Refresh(ctx context.Context) error
	// ConflictCopies lists the conflict copies in the brain's folder.
	ConflictCopies() []string
}

// UnsafeFile is a file of the brain no reader opens: a symbolic link, a
// submodule, a FIFO or device, or a file over the brain's size bound.
type UnsafeFile struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

// syncAttempts bounds the fetch-merge-push rounds when the remote moves
// while sync runs.
const syncAttempts = 3

// emptyTree is git's empty tree: the base of a first push.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// Conflict is a note both sides changed: the remote's version stays at
// Path, this machine's goes to Copy, nothing is lost.
type Conflict struct {
	Path string `json:"path"`
	Copy string `json:"copy"`
	Kind string `json:"kind"`
}

// SecretFinding is a possible secret in what sync was about to push or
// commit: where it is and which rule, never the value.
type SecretFinding struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Rule   string `json:"rule"`
}

// Result is sync's answer.
type Result struct {
	Status        string          `json:"status"`
	Message       string          `json:"message"`
	Machine       string          `json:"machine"`
	Pulled        int             `json:"pulled"`
	Pushed        int             `json:"pushed"`
	Committed     *string         `json:"committed"`
	Conflicts     []Conflict      `json:"conflicts"`
	ChangedPaths  []string        `json:"changed_paths"`
	Secrets       []SecretFinding `json:"secrets"`
	UnsafeFiles   []UnsafeFile    `json:"unsafe_files"`
	Attempts      int             `json:"attempts"`
	Ms            int64           `json:"ms"`
	Branch        string          `json:"branch"`
	Remote        string          `json:"remote"`
	Integration   string          `json:"integration"`
	Reason        string          `json:"reason"`
	RemoteError   string          `json:"remote_error"`
	Recovered     []string        `json:"recovered"`
	ConfigProblem string          `json:"config_problem"`
	Index         any             `json:"index"`
	NextStep      string          `json:"next_step"`
}

// syncer is one sync of a brain.
type syncer struct {
	b    Brain
	root string
}

// mergeMarker is the file sync keeps while its merge is in the tree; a
// merge found with it after a crash is sync's own and is aborted.
// It is MergeMarker in the brain's state folder.
const MergeMarker = "sync-merge"

// Run commits edits made outside the notes tool, fetches, merges (both
// versions of a conflicting note kept), scans what it is about to push for
// secrets, pushes and brings the index up to date.
func Run(ctx context.Context, b Brain) (*Result, error) {
	s := &syncer{b: b, root: b.Root()}
	start := time.Now()
	res := &Result{Machine: b.Machine(), Conflicts: []Conflict{}, ChangedPaths: []string{}, Secrets: []SecretFinding{}, UnsafeFiles: []UnsafeFile{},
		Recovered: []string{}, Integration: "none"}
	done := func(status, msg, next string) (*Result, error) {
		res.Status, res.Message, res.NextStep = status, msg, next
		res.Ms = time.Since(start).Milliseconds()
		return res, nil
	}
	unlockSync, err := b.TrySyncLock()
	if err != nil {
		return nil, fmt.Errorf("sync: lock: %w", err)
	}
	if unlockSync == nil {
		return done(Busy, "another sync of this brain is running", "Wait for it to finish, then run sync again if needed.")
	}
	defer unlockSync()
	// The configuration may have changed since the brain was opened.
	if err := b.CheckConfig(ctx); err != nil {
		return nil, err
	}
	g := gitstore.Runner{Dir: s.root}
	branch, err := g.Run(ctx, "symbolic-ref", "--short", "-q", "HEAD")
	res.Branch = strings.TrimSpace(branch)
	if err != nil || res.Branch == "" {
		res.ConfigProblem = "HEAD is not on a branch"
		return done(Blocked, "the brain's git repository is not on a branch", "Check out the brain's branch (git -C "+s.root+" switch main), then sync again.")
	}

	// 1. Commit what a person edited outside the tool, after a secret scan.
	if blocked, err := s.commitOutside(ctx, res); err != nil {
		return nil, err
	} else if blocked && len(res.UnsafeFiles) > 0 {
		return done(Blocked, fmt.Sprintf("%s is a symbolic link or special file; nothing was committed or sent", res.UnsafeFiles[0].Path),
			"A note is a regular file: replace the link with the file's text (or delete it), then run sync again.")
	} else if blocked {
		return done(Blocked, fmt.Sprintf("possible secret in %s; nothing was committed or sent", res.Secrets[0].File),
			"Remove the credential from the file (keep a reference to where it is stored), then run sync again.")
	}

	remotes, _ := g.Run(ctx, "remote")
	for _, r := range strings.Split(strings.TrimSpace(remotes), "\n") {
		if r != "" && (res.Remote == "" || r == "origin") {
			res.Remote = r
		}
	}
	if strings.HasPrefix(res.Remote, "-") {
		res.ConfigProblem = fmt.Sprintf("the remote's name %q is not a plain name: it starts with -", res.Remote)
		return done(Blocked, "the brain's remote has a name git could read as an option or a path; nothing was fetched or sent",
			"Rename it (git -C "+s.root+" remote rename <old> origin), then sync again.")
	}
	if res.Remote == "" {
		res.ConfigProblem = "no git remote is configured"
		return done(Blocked, "the brain has no remote to sync with; local edits are committed",
			"Add one: git -C "+s.root+" remote add origin <url of an empty repository>, then run sync again.")
	}
	remoteRef := "refs/remotes/" + res.Remote + "/" + res.Branch

	synced := false
	for res.Attempts < syncAttempts {
		res.Attempts++
		if _, err := g.Run(ctx, "fetch", "--quiet", "--no-tags", "--", res.Remote, "+refs/heads/"+res.Branch+":"+remoteRef); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if missingRemoteBranch(err) {
				_, _ = g.Run(ctx, "update-ref", "-d", remoteRef)
			} else {
				return s.remoteFailed(ctx, g, res, remoteRef, "fetch", err, done)
			}
		}
		base := emptyTree
		if _, err := g.Run(ctx, "rev-parse", "--verify", "-q", remoteRef); err == nil {
			base = remoteRef
			// A link (mode 120000) or submodule from the remote would
			// be read through by whatever opens it: never merged.
			if bad, err := b.TreeUnsafe(ctx, remoteRef); err != nil {
				return nil, fail(CodeGitFailed, "Check the brain with git status.", "%v", err)
			} else if len(bad) > 0 {
				res.UnsafeFiles = bad
				return done(Blocked, fmt.Sprintf("the remote's %s holds %s, a symbolic link or submodule (%s); nothing was merged or sent",
					res.Branch, bad[0].Path, bad[0].Why),
					"Remove the link from the remote (on the machine that added it: git rm the file, commit, push), then run sync again. Nothing here changed.")
			}
			if err := s.integrate(ctx, g, res, remoteRef); err != nil {
				return nil, err
			}
		}
		ahead := 0
		if out, err := g.Run(ctx, "rev-list", "--count", "HEAD", "--not", base); err == nil && base != emptyTree {
			ahead, _ = strconv.Atoi(strings.TrimSpace(out))
		} else {
			out, _ := g.Run(ctx, "rev-list", "--count", "HEAD")
			ahead, _ = strconv.Atoi(strings.TrimSpace(out))
		}
		if ahead == 0 {
			synced = true
			break
		}
		// 2. No link leaves the machine either (one committed by hand).
		if bad, err := b.TreeUnsafe(ctx, "HEAD"); err != nil {
			return nil, fail(CodeGitFailed, "Check the brain with git status.", "%v", err)
		} else if len(bad) > 0 {
			res.UnsafeFiles = bad
			return done(Blocked, fmt.Sprintf("%s is %s in the brain's committed tree; nothing was sent", bad[0].Path, bad[0].Why),
				"A note is a regular file: git rm the link (or replace it with the file's text), commit, then run sync again.")
		}
		// 3. Nothing leaves the machine without a secret scan.
		found, err := s.scanOutgoing(ctx, g, base)
		if err != nil {
			return nil, err
		}
		if len(found) > 0 {
			res.Secrets = found
			return done(Blocked, fmt.Sprintf("possible secret in %s, line %d (%s); nothing was sent", found[0].File, found[0].Line, found[0].Rule),
				"Remove the credential from the note (with the notes tool or by hand), then run sync again; if a commit that is not yet sent holds it, undo that operation first.")
		}
		if _, err := g.Run(ctx, "push", "--quiet", "--", res.Remote, "HEAD:refs/heads/"+res.Branch); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if pushRaced(err) {
				continue
			}
			return s.remoteFailed(ctx, g, res, remoteRef, "push", err, done)
		}
		res.Pushed += ahead
		_, _ = g.Run(ctx, "update-ref", remoteRef, "HEAD")
		synced = true
		break
	}
	if !synced {
		res.Reason = "the remote kept changing while sync ran"
		return done(Busy, fmt.Sprintf("the remote changed %d times while syncing; local notes are committed", res.Attempts),
			"Run sync again in a moment.")
	}
	msg := fmt.Sprintf("in sync with %s/%s: %d commit(s) received, %d sent", res.Remote, res.Branch, res.Pulled, res.Pushed)
	next := "Nothing to do."
	if waiting := b.ConflictCopies(); len(waiting) > 0 && len(res.Conflicts) == 0 {
		next = fmt.Sprintf("%d conflict cop(ies) wait to be merged by a person: %s. Merge what each adds into its note, then delete it (lint lists them as conflict_copy).",
			len(waiting), strings.Join(waiting, ", "))
	}
	if len(res.Conflicts) > 0 {
		var copies []string
		for _, cf := range res.Conflicts {
			copies = append(copies, cf.Copy)
		}
		msg += fmt.Sprintf("; %d conflict(s), both versions kept", len(res.Conflicts))
		next = "Both versions are kept: the remote's at the note's path, this machine's in " + strings.Join(copies, ", ") +
			". Merge what each copy adds into its note, then delete the copy (lint lists the copies as conflict_copy)."
	}
	return done(OK, msg, next)
}

// missingRemoteBranch reports a fetch of a branch the remote does not have
// yet (an empty remote): not a failure, the first push creates it.
func missingRemoteBranch(err error) bool {
	return strings.Contains(err.Error(), "couldn't find remote ref")
}

// pushRaced reports a push refused because the remote moved since the
// fetch: fetch and merge again.
func pushRaced(err error) bool {
	s := err.Error()
	return strings.Contains(s, "[rejected]") || strings.Contains(s, "non-fast-forward") || strings.Contains(s, "fetch first") ||
		strings.Contains(s, "cannot lock ref")
}

// offlinePatterns are git's words for a remote it cannot reach.
var offlinePatterns = regexp.MustCompile(`(?i)could not read from remote repository|does not appear to be a git repository|could not resolve host|` +
	`connection (refused|timed out|reset)|network is unreachable|unable to access|operation timed out|no route to host|` +
	`temporary failure in name resolution|failed to connect|could not connect`)

// remoteFailed answers a failed fetch or push: offline when the remote
// cannot be reached (everything stays committed here), else error.
func (s *syncer) remoteFailed(ctx context.Context, g gitstore.Runner, res *Result, remoteRef, step string, err error,
	done func(status, msg, next string) (*Result, error)) (*Result, error) {
	var ge *gitstore.Error
	detail := err.Error()
	if errors.As(err, &ge) {
		detail = ge.Stderr
	}
	res.RemoteError = firstLines(detail, 4)
	unpushed := "all"
	if out, err := g.Run(ctx, "rev-list", "--count", remoteRef+"..HEAD"); err == nil {
		unpushed = strings.TrimSpace(out)
	}
	if offlinePatterns.MatchString(detail) {
		res.Reason = "the remote cannot be reached"
		return done(Offline, fmt.Sprintf("%s %s: the remote cannot be reached; every note is committed here (%s commit(s) not sent yet)", step, res.Remote, unpushed),
			"Nothing is lost. Run sync again when the remote is reachable.")
	}
	res.Reason = step + " failed"
	return done(Failed, fmt.Sprintf("%s %s failed; every note is committed here (%s commit(s) not sent yet)", step, res.Remote, unpushed),
		"Read remote_error; fix the remote's address or access (git -C "+s.root+" remote -v), then run sync again.")
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// commitOutside commits, under the brain's lock, what was changed in the
// brain without the notes tool. A possible secret in it blocks (nothing is
// committed) and fills res.Secrets.
func (s *syncer) commitOutside(ctx context.Context, res *Result) (blocked bool, err error) {
	unlock, err := s.b.Lock(ctx)
	if err != nil {
		return false, err
	}
	defer unlock()
	g := gitstore.Runner{Dir: s.root}
	if rec := s.recoverSyncMerge(ctx, g); rec != "" {
		res.Recovered = append(res.Recovered, rec)
	}
	out, err := g.Run(ctx, "status", "--porcelain", "-z", "--no-renames", "--untracked-files=all")
	if err != nil {
		return false, fail(CodeGitFailed, "Check the brain with git status.", "%v", err)
	}
	var paths []string
	for _, rec := range strings.Split(out, "\x00") {
		if len(rec) > 3 {
			paths = append(paths, rec[3:])
		}
	}
	if len(paths) == 0 {
		return false, nil
	}
	sort.Strings(paths)
	var found []SecretFinding
	for _, p := range paths {
		raw, why, err := s.b.ReadFile(p)
		if why != "" {
			res.UnsafeFiles = append(res.UnsafeFiles, UnsafeFile{Path: p, Why: why})
			continue
		}
		if err != nil {
			continue // deleted
		}
		found = append(found, scanHuman(p, string(raw), nil)...)
	}
	if len(res.UnsafeFiles) > 0 {
		return true, nil
	}
	if len(found) > 0 {
		res.Secrets = found
		return true, nil
	}
	oldHead, err := g.HeadFast(ctx)
	if err != nil {
		return false, fail(CodeGitFailed, "Check the brain with status.", "%v", err)
	}
	if _, err := g.Run(ctx, "add", "-A", "--", "."); err != nil {
		return false, fail(CodeGitFailed, "Check the brain with git status.", "%v", err)
	}
	var lines []string
	for _, p := range paths {
		if !s.b.IsDerived(p) {
			lines = append(lines, "edit "+p)
		}
	}
	op := s.b.NewOp()
	saved := s.saveDerived()
	if err := s.stageDerived(ctx, g, oldHead, op, lines); err != nil {
		s.unstageDerived(ctx, g, saved)
		return false, err
	}
	msg, err := s.b.CommitMessage(fmt.Sprintf("sync: commit %d file(s) edited outside the notes tool", len(paths)), lines, op)
	if err != nil {
		s.unstageDerived(ctx, g, saved)
		return false, err
	}
	if _, err := g.Run(ctx, "commit", "-q", "-m", msg); err != nil {
		s.unstageDerived(ctx, g, saved)
		return false, fail(CodeGitFailed, "Check the brain with git status; nothing was lost, the files are as they were.", "%v", err)
	}
	head, err := g.HeadFast(ctx)
	if err != nil {
		return false, fail(CodeGitFailed, "Check the brain with status.", "%v", err)
	}
	res.Committed = &head
	res.ChangedPaths = append(res.ChangedPaths, paths...)
	if err := s.b.Reindex(ctx, pendingHead, head, nil); err != nil {
		return false, err
	}
	return false, nil
}

// recoverSyncMerge aborts a merge a sync left in the tree when it died
// (its marker is there); a merge a person started by hand is left alone.
func (s *syncer) recoverSyncMerge(ctx context.Context, g gitstore.Runner) string {
	marker := filepath.Join(s.b.StateDir(), MergeMarker)
	if _, err := os.Stat(marker); err != nil {
		return ""
	}
	defer os.Remove(marker)
	if _, err := os.Stat(filepath.Join(s.root, ".git", "MERGE_HEAD")); err != nil {
		return ""
	}
	if _, err := g.Run(ctx, "merge", "--abort"); err != nil {
		sdk.Logger().Error("notes: abort an interrupted sync merge", "err", err)
		return ""
	}
	return "aborted the merge an interrupted sync left; this sync merges again"
}

// integrate brings remoteRef into HEAD under the brain's lock: a
// fast-forward when HEAD has nothing of its own, else a merge that keeps
// both versions of every conflicting note. Derived files are regenerated
// after.
func (s *syncer) integrate(ctx context.Context, g gitstore.Runner, res *Result, remoteRef string) error {
	unlock, err := s.b.Lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	oldHead, err := g.HeadFast(ctx)
	if err != nil {
		return fail(CodeGitFailed, "Check the brain with status.", "%v", err)
	}
	out, err := g.Run(ctx, "rev-list", "--left-right", "--count", "HEAD..."+remoteRef)
	if err != nil {
		return fail(CodeGitFailed, "Check the brain with git status.", "%v", err)
	}
	var ahead, behind int
	fmt.Sscanf(out, "%d %d", &ahead, &behind)
	if behind == 0 {
		return nil
	}
	if ahead == 0 {
		if _, err := g.Run(ctx, "merge", "--ff-only", "-q", remoteRef); err != nil {
			return fail(CodeGitFailed, "Check the brain with git status; nothing was lost.", "%v", err)
		}
		res.Integration = "fast-forward"
	} else {
		if err := s.mergeKeepingBoth(ctx, g, res, remoteRef); err != nil {
			return err
		}
		res.Integration = "merge"
	}
	res.Pulled += behind
	changed, _ := g.ChangedPaths(ctx, oldHead, "HEAD")
	res.ChangedPaths = mergeSorted(res.ChangedPaths, changed)
	// A fast-forward takes the other machine's index.md and log.md, made
	// for this very tree; a merge rewrote them in its commit. The search
	// index follows HEAD.
	return s.b.Refresh(ctx)
}

func mergeSorted(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range append(append([]string{}, a...), b...) {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Strings(out)
	if out == nil {
		out = []string{}
	}
	return out
}

// mergeKeepingBoth merges remoteRef and resolves every conflict before
// committing, so no conflict marker or half-done merge stays in the tree:
// a note both sides changed keeps the remote's version at its path and
// this machine's in <note>.conflict-<machine>-<time>.md; a note one side
// deleted and the other changed is kept; log.md merges as a union of both
// journals; index.md (derived) takes this side's and is regenerated. Any
// failure aborts the merge, leaving HEAD and the files as they were.
func (s *syncer) mergeKeepingBoth(ctx context.Context, g gitstore.Runner, res *Result, remoteRef string) (err error) {
	marker := filepath.Join(s.b.StateDir(), MergeMarker)
	if err := os.WriteFile(marker, []byte(remoteRef+"\n"), 0o600); err != nil {
		return fmt.Errorf("sync: write merge marker: %w", err)
	}
	defer func() {
		if err != nil {
			if _, aerr := g.Run(context.WithoutCancel(ctx), "merge", "--abort"); aerr != nil {
				sdk.Logger().Error("notes: abort a failed sync merge", "err", aerr)
			}
		}
		os.Remove(marker)
	}()
	oldHead, err := g.HeadFast(ctx)
	if err != nil {
		return fail(CodeGitFailed, "Check the brain with status.", "%v", err)
	}
	_, mergeErr := g.Run(ctx, "merge", "--no-ff", "--no-commit", "--allow-unrelated-histories", "-q", remoteRef)
	if mergeErr != nil {
		if _, err := os.Stat(filepath.Join(s.root, ".git", "MERGE_HEAD")); err != nil {
			return fail(CodeGitFailed, "Check the brain with git status; nothing was lost.", "%v", mergeErr)
		}
	}
	out, err := g.Run(ctx, "ls-files", "-u", "-z")
	if err != nil {
		return fail(CodeGitFailed, "Check the brain with git status.", "%v", err)
	}
	stages := map[string]map[int]string{}
	var paths []string
	for _, rec := range strings.Split(out, "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		if len(f) != 3 {
			continue
		}
		n, _ := strconv.Atoi(f[2])
		if stages[path] == nil {
			stages[path] = map[int]string{}
			paths = append(paths, path)
		}
		stages[path][n] = f[1]
	}
	sort.Strings(paths)
	blob := func(sha string) ([]byte, error) {
		if sha == "" {
			return nil, nil
		}
		s, err := g.Run(ctx, "cat-file", "blob", sha)
		return []byte(s), err
	}
	var lines []string
	stamp := s.b.Now().UTC().Format("20060102-150405")
	for _, p := range paths {
		st := stages[p]
		base, err := blob(st[1])
		if err != nil {
			return fail(CodeGitFailed, "Check the brain with git status.", "%v", err)
		}
		ours, err := blob(st[2])
		if err != nil {
			return fail(CodeGitFailed, "Check the brain with git status.", "%v", err)
		}
		theirs, err := blob(st[3])
		if err != nil {
			return fail(CodeGitFailed, "Check the brain with git status.", "%v", err)
		}
		abs := filepath.Join(s.root, filepath.FromSlash(p))
		switch {
		case p == s.b.Catalogue():
			keep := ours
			if st[2] == "" {
				keep = theirs
			}
			if err := s.b.WriteFile(abs, keep); err != nil {
				return err
			}
			lines = append(lines, "derived "+p+": regenerated, never conflict-copied")
		case filepath.Base(p) == "log.md" && st[2] != "" && st[3] != "":
			merged, err := s.unionMerge(ctx, g, base, ours, theirs)
			if err != nil {
				return err
			}
			if err := s.b.WriteFile(abs, merged); err != nil {
				return err
			}
			lines = append(lines, "union "+p+": both journals kept")
		case st[2] != "" && st[3] != "":
			cp := s.conflictCopyPath(p, stamp)
			if err := s.b.WriteFile(abs, theirs); err != nil {
				return err
			}
			if err := s.b.WriteFile(filepath.Join(s.root, filepath.FromSlash(cp)), ours); err != nil {
				return err
			}
			if _, err := g.Run(ctx, "add", "--", cp); err != nil {
				return fail(CodeGitFailed, "Check the brain with git status.", "%v", err)
			}
			res.Conflicts = append(res.Conflicts, Conflict{Path: p, Copy: cp, Kind: "both_changed"})
			lines = append(lines, "conflict "+p+": this machine's version kept in "+cp)
		default:
			// One side deleted it, the other changed it: keep the change.
			keep := ours
			if st[2] == "" {
				keep = theirs
			}
			if err := s.b.WriteFile(abs, keep); err != nil {
				return err
			}
			res.Conflicts = append(res.Conflicts, Conflict{Path: p, Copy: "", Kind: "deleted_and_changed"})
			lines = append(lines, "conflict "+p+": deleted on one side, changed on the other; the changed version is kept")
		}
		if _, err := g.Run(ctx, "add", "--", p); err != nil {
			return fail(CodeGitFailed, "Check the brain with git status.", "%v", err)
		}
	}
	if left, _ := g.Run(ctx, "ls-files", "-u"); strings.TrimSpace(left) != "" {
		return fail(CodeGitFailed, "Check the brain with git status; the merge was aborted and nothing was lost.", "unresolved paths after the merge: %s", firstLines(left, 3))
	}
	op := s.b.NewOp()
	merged := "merge " + strings.TrimPrefix(remoteRef, "refs/remotes/")
	if err := s.stageDerived(ctx, g, oldHead, op, append([]string{merged}, lines...)); err != nil {
		return err
	}
	msg, err := s.b.CommitMessage("sync: "+merged, lines, op)
	if err != nil {
		return err
	}
	if _, err := g.Run(ctx, "commit", "-q", "--no-verify", "-m", msg); err != nil {
		return fail(CodeGitFailed, "Check the brain with git status; the merge was aborted and nothing was lost.", "%v", err)
	}
	head, err := g.HeadFast(ctx)
	if err != nil {
		return fail(CodeGitFailed, "Check the brain with status.", "%v", err)
	}
	return s.b.Reindex(ctx, pendingHead, head, nil)
}

// pendingHead is the index's head while a sync commit is being made: the
// index holds the staged tree, not yet a commit.
const pendingHead = "sync-pending"

// stageDerived brings the search index to the staged tree (the paths
// staged since oldHead), rewrites index.md from it, journals lines in
// log.md under op, and stages both, so the sync commit carries its own
// catalogue and journal like every write. The index's head is pendingHead
// until the caller reindexes to the commit.
func (s *syncer) stageDerived(ctx context.Context, g gitstore.Runner, oldHead, op string, lines []string) error {
	out, err := g.Run(ctx, "diff", "--cached", "--name-only", "--no-renames", "-z", "HEAD")
	if err != nil {
		return fail(CodeGitFailed, "Check the brain with git status.", "%v", err)
	}
	var paths []string
	for _, p := range strings.Split(out, "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	if err := s.b.Reindex(ctx, oldHead, pendingHead, paths); err != nil {
		return err
	}
	derived, err := s.b.RegenerateDerived(ctx, op, "sync", lines)
	if err != nil {
		return err
	}
	if len(derived) > 0 {
		if _, err := g.Run(ctx, append([]string{"add", "--"}, derived...)...); err != nil {
			return fail(CodeGitFailed, "Check the brain with git status.", "%v", err)
		}
	}
	return nil
}

// saveDerived keeps what the derived files hold now (nil: missing), for
// unstageDerived.
func (s *syncer) saveDerived() map[string][]byte {
	out := map[string][]byte{}
	for _, p := range s.b.DerivedFiles() {
		out[p] = s.b.ReadDerived(p)
	}
	return out
}

// unstageDerived puts the derived files back as saved and unstages
// everything, after a sync commit of outside edits failed: the person's
// files stay as they were.
func (s *syncer) unstageDerived(ctx context.Context, g gitstore.Runner, saved map[string][]byte) {
	for p, data := range saved {
		abs := filepath.Join(s.root, filepath.FromSlash(p))
		if data == nil {
			_ = os.Remove(abs)
			continue
		}
		if err := s.b.WriteFile(abs, data); err != nil {
			sdk.Logger().Error("notes: put back a derived file", "path", p, "err", err)
		}
	}
	_, _ = g.Run(context.WithoutCancel(ctx), "reset", "-q")
}

// unionMerge merges two versions of a journal keeping every line of both
// (git merge-file --union).
func (s *syncer) unionMerge(ctx context.Context, g gitstore.Runner, base, ours, theirs []byte) ([]byte, error) {
	dir, err := os.MkdirTemp(s.b.StateDir(), "union-")
	if err != nil {
		return nil, fmt.Errorf("sync: union merge: %w", err)
	}
	defer os.RemoveAll(dir)
	names := []string{"ours", "base", "theirs"}
	for i, data := range [][]byte{ours, base, theirs} {
		if err := os.WriteFile(filepath.Join(dir, names[i]), data, 0o600); err != nil {
			return nil, fmt.Errorf("sync: union merge: %w", err)
		}
	}
	out, err := gitstore.Runner{Dir: dir}.Run(ctx, "merge-file", "-p", "--union", "ours", "base", "theirs")
	var ge *gitstore.Error
	if err != nil && !(errors.As(err, &ge) && out != "") {
		return nil, fail(CodeGitFailed, "Check the brain with git status.", "%v", err)
	}
	return []byte(out), nil
}

// conflictCopyPath is <note>.conflict-<machine>-<time>.md next to the
// note, numbered when taken.
func (s *syncer) conflictCopyPath(p, stamp string) string {
	stem := strings.TrimSuffix(p, ".md")
	for i := 1; ; i++ {
		cp := fmt.Sprintf("%s.conflict-%s-%s.md", stem, s.b.Machine(), stamp)
		if i > 1 {
			cp = fmt.Sprintf("%s.conflict-%s-%s-%d.md", stem, s.b.Machine(), stamp, i)
		}
		if _, err := os.Lstat(filepath.Join(s.root, filepath.FromSlash(cp))); errors.Is(err, fs.ErrNotExist) {
			return cp
		}
	}
}

var hunkHeader = regexp.MustCompile(`^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@`)

// scanOutgoing runs the secret scanner over the lines HEAD adds since base
// (what a push would send) and returns what it finds there.
func (s *syncer) scanOutgoing(ctx context.Context, g gitstore.Runner, base string) ([]SecretFinding, error) {
	out, err := g.Run(ctx, "diff", "-U0", "--no-renames", "--no-color", "--no-ext-diff", base, "HEAD")
	if err != nil {
		return nil, fail(CodeGitFailed, "Check the brain with git status.", "%v", err)
	}
	added := map[string]map[int]bool{}
	var files []string
	cur, line := "", 0
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "+++ "):
			cur = ""
			if p, ok := strings.CutPrefix(l, "+++ b/"); ok {
				cur = p
				if added[cur] == nil {
					added[cur] = map[int]bool{}
					files = append(files, cur)
				}
			}
		case strings.HasPrefix(l, "@@"):
			if m := hunkHeader.FindStringSubmatch(l); m != nil {
				line, _ = strconv.Atoi(m[1])
			}
		case strings.HasPrefix(l, "+") && cur != "":
			added[cur][line] = true
			line++
		}
	}
	var found []SecretFinding
	for _, p := range files {
		if len(added[p]) == 0 {
			continue
		}
		content, err := g.Run(ctx, "cat-file", "blob", "HEAD:"+p)
		if err != nil {
			continue
		}
		found = append(found, scanHuman(p, content, added[p])...)
	}
	return found, nil
}

// AllowSecretMarker on a line tells sync's scans that what looks like a
// secret there is not one (a person's word, for a false positive: agents'
// writes are scanned without it).
const AllowSecretMarker = "notes:allow-secret"

// scanHuman scans a file sync is about to commit or send; only the lines
// in onLines count when it is not nil, and a line carrying
// AllowSecretMarker is skipped.
func scanHuman(path, content string, onLines map[int]bool) []SecretFinding {
	var out []SecretFinding
	var lines []string
	for _, f := range secrets.Scan(content) {
		if onLines != nil && !onLines[f.Line] {
			continue
		}
		if lines == nil {
			lines = strings.Split(content, "\n")
		}
		if f.Line >= 1 && f.Line <= len(lines) && strings.Contains(lines[f.Line-1], AllowSecretMarker) {
			continue
		}
		out = append(out, SecretFinding{File: path, Line: f.Line, Column: f.Column, Rule: f.Rule})
	}
	return out
}
