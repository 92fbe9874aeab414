package brain

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/toolhost/toolhost/sdk"
)

// UndoArgs are undo's args.
type UndoArgs struct {
	Op      string `json:"op"`
	Session string `json:"session"`
}

// Undone is one operation an undo reverted.
type Undone struct {
	Op      string   `json:"op"`
	Commit  string   `json:"commit"`
	Changes []string `json:"changes"`
}

// UndoResult is undo's answer.
type UndoResult struct {
	DataNotice   string    `json:"data_notice"`
	Op           *string   `json:"op"`
	Commit       *string   `json:"commit"`
	Undone       []Undone  `json:"undone"`
	ChangedPaths []string  `json:"changed_paths"`
	Warnings     []Warning `json:"warnings"`
	NextStep     string    `json:"next_step"`
	*Confirmation
}

// legacyUserClients are the client names that marked a person's operation
// in commits written before the Notes-Channel trailer.
var legacyUserClients = []string{"cli", "host-cli"}

// isUserOp reports whether a person made the operation at the terminal:
// the host-set channel its commit records, never the client name an MCP
// client picks (a commit from before the trailer falls back to the name).
func isUserOp(e logEntry) bool {
	if e.Trailer.Channel != "" {
		return e.Trailer.Channel == sdk.ChannelTerminal
	}
	name, _, _ := strings.Cut(e.Trailer.Client, "/")
	for _, u := range legacyUserClients {
		if name == u {
			return true
		}
	}
	return false
}

// Undo reverts one operation, a whole session, or the last operation, as
// one new commit (itself undoable).
func (b *Brain) Undo(ctx context.Context, c Call, a UndoArgs) (*UndoResult, error) {
	if a.Op != "" && a.Session != "" {
		return nil, fail(CodeInvalidArgument, "Pass op or session, not both.", "op and session are both set")
	}
	g := gitRunner{dir: b.Root}
	entries, err := g.log(ctx)
	if err != nil {
		return nil, fail(CodeGitFailed, "Check the brain with status.", "%v", err)
	}
	undone := undoneOps(entries)
	targets, reasons, err := undoTargets(entries, undone, a)
	if err != nil {
		return nil, err
	}
	if reasons, err = undoReasons(targets, reasons); err != nil {
		return nil, err
	}
	res, lines, ops := undoSummary(targets)
	head, err := g.headFast(ctx)
	if err != nil {
		return nil, fail(CodeGitFailed, "Check the brain with status.", "%v", err)
	}
	summary := fmt.Sprintf("Undo %d operation(s): %s.", len(ops), strings.Join(ops, ", "))
	conf, approved, err := b.confirm(c, "undo", head, reasons, summary)
	if err != nil {
		return nil, err
	}
	if conf != nil {
		res.Confirmation, res.NextStep = conf, conf.NextStep
		return res, nil
	}
	op := newID()
	return b.revertOps(ctx, c, res, targets, op, ops, lines, head, approved)
}

// undoneOps walks the log newest to oldest and returns the ops an active
// undo reverted.
func undoneOps(entries []logEntry) map[string]bool {
	// Walk newest to oldest: an undo commit that is itself undone does not
	// count; one that is active marks the ops it reverted as undone.
	undone := map[string]bool{}
	for _, e := range entries {
		if e.Trailer.Op == "" || undone[e.Trailer.Op] {
			continue
		}
		for _, u := range e.Trailer.Undoes {
			undone[u] = true
		}
	}
	return undone
}

// undoTargets picks the commits to revert: the op named, every active op
// of the session, or the last agent op; reasons gets why it needs
// confirmation.
func undoTargets(entries []logEntry, undone map[string]bool, a UndoArgs) ([]logEntry, []string, error) {
	var targets []logEntry
	var reasons []string
	switch {
	case a.Op != "":
		matches := map[string]bool{}
		for _, e := range entries {
			if e.Trailer.Op == a.Op || (len(a.Op) >= 6 && len(a.Op) < 26 && strings.HasPrefix(e.Trailer.Op, strings.ToUpper(a.Op))) {
				matches[e.Trailer.Op] = true
				targets = append(targets, e)
			}
		}
		if len(targets) == 0 {
			return nil, nil, fail(CodeNotFound, "Use the op a write returned, or status to see recent operations.", "no operation %q", a.Op)
		}
		if len(matches) > 1 {
			return nil, nil, fail(CodeInvalidArgument, "Give more of the op id.", "%q matches %d operations", a.Op, len(matches))
		}
		if targets[0].Trailer.Op != a.Op {
			reasons = append(reasons, "the op was given by the start of its id only")
		}
		if undone[targets[0].Trailer.Op] {
			return nil, nil, fail(CodeAlreadyUndone, "Nothing to do; to redo it, undo the undo.", "operation %s was already undone", targets[0].Trailer.Op)
		}
	case a.Session != "":
		seen := false
		for _, e := range entries {
			if e.Trailer.Session == a.Session && e.Trailer.Op != "" {
				seen = true
				// The session's own undos are not reverted again: what
				// they undid stays undone, and reverting them would redo
				// it.
				if !undone[e.Trailer.Op] && e.Trailer.Action != "undo" {
					targets = append(targets, e)
				}
			}
		}
		if !seen {
			return nil, nil, fail(CodeNotFound, "Pass the full session_handle recall returned.", "no operation belongs to session %q", a.Session)
		}
		if len(targets) == 0 {
			return nil, nil, fail(CodeAlreadyUndone, "Nothing to do.", "every operation of session %s was already undone", a.Session)
		}
	default:
		for _, e := range entries {
			if e.Trailer.Op != "" && e.Trailer.Action != "init" && !undone[e.Trailer.Op] && !isUserOp(e) {
				targets = append(targets, e)
				break
			}
		}
		if len(targets) == 0 {
			return nil, nil, fail(CodeNothingToUndo, "There is no agent operation left to undo.", "nothing to undo")
		}
	}
	return targets, reasons, nil
}

// undoReasons refuses the brain's first commit and adds the reason a
// user's op needs confirmation.
func undoReasons(targets []logEntry, reasons []string) ([]string, error) {
	for _, t := range targets {
		if t.Trailer.Action == "init" {
			return nil, fail(CodeInvalidArgument, "The brain's first commit cannot be undone.", "operation %s created the brain", t.Trailer.Op)
		}
		if isUserOp(t) {
			reasons = append(reasons, "operation "+t.Trailer.Op+" was made by the user")
			break
		}
	}
	return reasons, nil
}

// undoSummary is the result's list of what is undone, the change lines
// and the distinct ops.
func undoSummary(targets []logEntry) (*UndoResult, []string, []string) {
	res := &UndoResult{DataNotice: DataNotice, Warnings: []Warning{}, Undone: []Undone{}, ChangedPaths: []string{}}
	var lines []string
	ops := []string{}
	seenOp := map[string]bool{}
	for _, t := range targets {
		res.Undone = append(res.Undone, Undone{Op: t.Trailer.Op, Commit: t.Commit, Changes: nonNil(t.Changes)})
		lines = append(lines, t.Changes...)
		if !seenOp[t.Trailer.Op] {
			seenOp[t.Trailer.Op] = true
			ops = append(ops, t.Trailer.Op)
		}
	}
	return res, lines, ops
}

// revertOps reverts targets as one commit under the lock, with index.md
// and log.md rederived, and updates the index.
func (b *Brain) revertOps(ctx context.Context, c Call, res *UndoResult, targets []logEntry, op string, ops, lines []string, head string, approved bool) (*UndoResult, error) {
	g := gitRunner{dir: b.Root}
	unlock, err := b.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if now, err := g.headFast(ctx); err != nil || now != head {
		return nil, fail(CodeConflict, "Call undo again.", "the brain changed while the undo was prepared; nothing was changed")
	}
	paths, err := b.undoPaths(ctx, targets)
	if err != nil {
		return nil, err
	}
	j, err := b.beginJournal(op, "undo", head, paths, nil)
	if err != nil {
		return nil, err
	}
	crashPoint("journal")
	abort := func() {
		bg := context.WithoutCancel(ctx)
		_, _ = g.run(bg, "revert", "--abort")
		// --merge resets what the revert touched and keeps unrelated local changes.
		_, _ = g.run(bg, "reset", "-q", "--merge", head)
		b.endJournal(j)
	}
	args := []string{"revert", "--no-commit", "--no-edit"}
	for _, t := range targets {
		args = append(args, t.Commit)
	}
	if _, err := g.run(ctx, args...); err != nil {
		abort()
		return nil, fail(CodeConflict, "Later operations changed the same lines; undo those first (or the whole session), then this one.",
			"the undo does not apply without conflict; nothing was changed")
	}
	crashPoint("revert")
	undoLines := make([]string, 0, len(lines))
	for _, l := range lines {
		undoLines = append(undoLines, "undo "+l)
	}
	if err := b.rederiveAfterRevert(ctx, op, undoLines); err != nil {
		abort()
		return nil, err
	}
	msg, err := commitMessage(fmt.Sprintf("undo: %s", strings.Join(ops, ", ")), prefixLines(undoLines),
		trailers{Op: op, Action: "undo", Session: c.session(), Client: c.Client(), Request: c.Caller.RequestID, Approved: approved, Undoes: ops, Channel: c.Caller.Channel})
	if err != nil {
		abort()
		return nil, err
	}
	if _, err := g.run(ctx, append([]string{"commit", "-q", "--allow-empty", "-m", msg, "--"}, paths...)...); err != nil {
		abort()
		return nil, fail(CodeGitFailed, "Nothing was changed. Check the brain with status.", "%v", err)
	}
	crashPoint("commit")
	newHead, err := g.headFast(ctx)
	if err != nil {
		return nil, fail(CodeGitFailed, "Check the brain with status.", "%v", err)
	}
	changed, err := g.changedPaths(ctx, head, newHead)
	if err != nil {
		return nil, fail(CodeGitFailed, "Check the brain with status.", "%v", err)
	}
	err = b.reindex(ctx, head, newHead, changed)
	crashPoint("index")
	b.endJournal(j)
	if err != nil {
		return nil, err
	}
	res.Op, res.Commit = strp(op), strp(newHead)
	res.ChangedPaths = nonNil(changed)
	res.NextStep = fmt.Sprintf("To redo, undo this undo: undo({ op: %q }).", op)
	return res, nil
}

// undoPaths lists the paths the reverted commits touched (index.md and
// log.md always): the notes among them must have no uncommitted changes,
// and the undo commits only them.
func (b *Brain) undoPaths(ctx context.Context, targets []logEntry) ([]string, error) {
	g := gitRunner{dir: b.Root}
	// The paths the reverted commits touched: they must have no uncommitted
	// changes, and the undo commits only them.
	touched := map[string]bool{}
	for _, t := range targets {
		out, err := g.run(ctx, "diff-tree", "--no-commit-id", "--name-only", "--no-renames", "-r", "-z", t.Commit)
		if err != nil {
			return nil, fail(CodeGitFailed, "Check the brain with status.", "%v", err)
		}
		for _, p := range strings.Split(out, "\x00") {
			if p != "" {
				touched[p] = true
			}
		}
	}
	var paths, notes []string
	for p := range touched {
		if !isDerived(p) {
			notes = append(notes, p)
		}
	}
	sort.Strings(notes)
	// The catalogue and the journal change with every undo; the person's
	// own edits to them do not block it.
	paths = append(append(paths, notes...), derivedFiles...)
	if len(notes) > 0 {
		st, err := g.run(ctx, append([]string{"status", "--porcelain", "--"}, notes...)...)
		if err != nil {
			return nil, fail(CodeGitFailed, "Check the brain with status.", "%v", err)
		}
		if strings.TrimSpace(st) != "" {
			return nil, fail(CodeConflict, "Commit or discard the uncommitted changes to those notes first.",
				"notes the undo would change have uncommitted changes; nothing was changed")
		}
	}
	return paths, nil
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// rederiveAfterRevert replaces what a revert made of index.md and log.md
// (git merges them line by line) with the catalogue of the reverted tree
// and HEAD's journal plus the undo's lines, and stages both. The caller
// holds the lock; the index is still at HEAD.
func (b *Brain) rederiveAfterRevert(ctx context.Context, op string, lines []string) error {
	g := gitRunner{dir: b.Root}
	out, err := g.run(ctx, "diff", "--cached", "--name-only", "--no-renames", "-z", "HEAD")
	if err != nil {
		return fail(CodeGitFailed, "Nothing was changed. Check the brain with status.", "%v", err)
	}
	var pending []change
	for _, p := range strings.Split(out, "\x00") {
		if p == "" || isDerived(p) {
			continue
		}
		pending = append(pending, change{Path: p, Data: b.readRel(p)})
	}
	headLog, err := g.run(ctx, "show", "HEAD:"+LogFile)
	if err != nil {
		headLog = ""
	}
	if err := writeAtomic(filepath.Join(b.Root, LogFile), []byte(headLog)); err != nil {
		return err
	}
	chs, err := b.derivedChanges(ctx, op, "undo", lines, pending)
	if err != nil {
		return err
	}
	for _, ch := range chs {
		if err := writeAtomic(filepath.Join(b.Root, filepath.FromSlash(ch.Path)), ch.Data); err != nil {
			return err
		}
	}
	if _, err := g.run(ctx, append([]string{"add", "--"}, derivedFiles...)...); err != nil {
		return fail(CodeGitFailed, "Nothing was changed. Check the brain with status.", "%v", err)
	}
	return nil
}
