package brain

import (
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/plugins/notes/internal/index"
	"github.com/toolhost/toolhost/plugins/notes/internal/note"
)

// restoreTagPrefix starts the tag of every consolidation's restore point.
const restoreTagPrefix = "notes/restore/"

// consolidateGroupMax bounds how many notes of one type and scope start
// compares pairwise (the rest are left out, and material says so).
const consolidateGroupMax = 150

// ConsolidateArgs are consolidate's args.
type ConsolidateArgs struct {
	Action          string `json:"action"`
	Scope           string `json:"scope"`
	ConsolidationID string `json:"consolidation-id"`
	Title           string `json:"title"`
}

// RestorePoint is the tag a consolidation starts from.
type RestorePoint struct {
	Tag    string `json:"tag"`
	Commit string `json:"commit"`
}

// EpisodeRef is an episode start lists.
type EpisodeRef struct {
	Path    string `json:"path"`
	Title   string `json:"title"`
	Scope   string `json:"scope"`
	Updated string `json:"updated"`
}

// Pair is two notes the duplicate rule finds alike.
type Pair struct {
	A          string  `json:"a"`
	B          string  `json:"b"`
	Type       string  `json:"type"`
	Verdict    string  `json:"verdict"`
	Similarity float64 `json:"similarity"`
	Reason     string  `json:"reason"`
}

// Material is what start hands the agent to work on.
type Material struct {
	RepeatedEpisodes []Pair       `json:"repeated_episodes"`
	Episodes         []EpisodeRef `json:"episodes"`
	Duplicates       []Pair       `json:"duplicates"`
	Lint             []Finding    `json:"lint"`
	Expired          []EpisodeRef `json:"expired"`
	// Truncated says a group of notes was too large to compare whole.
	Truncated bool `json:"truncated"`
}

// ConsolidateResult is consolidate's answer.
type ConsolidateResult struct {
	DataNotice      string       `json:"data_notice"`
	Action          string       `json:"action"`
	ConsolidationID string       `json:"consolidation_id"`
	RestorePoint    RestorePoint `json:"restore_point"`
	Material        *Material    `json:"material"`
	Instructions    []string     `json:"instructions"`
	Op              *string      `json:"op"`
	Commit          *string      `json:"commit"`
	Squashed        bool         `json:"squashed"`
	Changes         []string     `json:"changes"`
	Warnings        []Warning    `json:"warnings"`
	NextStep        string       `json:"next_step"`
}

// consolidationLintRules are the lint findings a consolidation can resolve.
var consolidationLintRules = []string{"broken_link", "expired_note", "fact_contradiction", "unlinked_mention", "orphan_note", "conflict_copy"}

var consolidationIDRe = regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{26}$`)

// Consolidate runs the two steps of a maintenance pass: start tags a
// restore point and returns the material; finish closes the pass in one
// commit (the pass's commits squashed when nothing else happened in
// between) that undo {session: id} reverts whole.
func (b *Brain) Consolidate(ctx context.Context, c Call, a ConsolidateArgs) (*ConsolidateResult, error) {
	switch a.Action {
	case "start":
		return b.consolidateStart(ctx, c, a)
	case "finish":
		return b.consolidateFinish(ctx, c, a)
	}
	return nil, fail(CodeInvalidArgument, "Pass action start, then finish with the consolidation_id start returned.", "action %q is not start or finish", a.Action)
}

// consolidateStart tags the restore point and gathers the material.
func (b *Brain) consolidateStart(ctx context.Context, c Call, a ConsolidateArgs) (*ConsolidateResult, error) {
	if a.Scope != "" {
		if err := validateScope(a.Scope); err != nil {
			return nil, err
		}
	}
	if err := b.fresh(ctx); err != nil {
		return nil, err
	}
	g := gitRunner{dir: b.Root}
	head, err := g.headFast(ctx)
	if err != nil {
		return nil, fail(CodeGitFailed, "Check the brain with status.", "%v", err)
	}
	id := newID()
	tag := restoreTagPrefix + b.Now().Format("2006-01-02-150405") + "-" + id
	if _, err := g.run(ctx, "tag", tag, head); err != nil {
		return nil, fail(CodeGitFailed, "Nothing was changed. Check the brain with status.", "%v", err)
	}
	m, err := b.consolidationMaterial(ctx, c, a.Scope)
	if err != nil {
		return nil, err
	}
	return &ConsolidateResult{DataNotice: DataNotice, Action: "start", ConsolidationID: id, RestorePoint: RestorePoint{Tag: tag, Commit: head},
		Material: m, Changes: []string{}, Warnings: []Warning{},
		Instructions: []string{
			"Merge repeated episodes into one note (a procedure, gotcha or synthesis) with remember or write-page, then forget the episodes it replaces.",
			"For each duplicate pair, keep the better note, move what only the other says into it (patch-page), and forget the other.",
			"Fix the lint findings you can: broken links, unlinked mentions, orphans; archive expired notes nothing supersedes with forget.",
			"Pass " + id + " as session-handle to every write of this pass. A rule may only be proposed in a note under wiki/syntheses/.",
			"Then call consolidate with action finish, consolidation-id " + id + " and a title for the commit.",
		},
		NextStep: fmt.Sprintf("Work through the material with the normal writes, each with session-handle %q; then consolidate({action: \"finish\", consolidation-id: %q, title: \"...\"}). undo({session: %q}) reverts the whole pass; the restore point %s stays on this machine.", id, id, id, tag),
	}, nil
}

// consolidationMaterial gathers episodes (and the ones that repeat),
// near-duplicate pairs, expired notes and the lint findings a pass can
// resolve, in scope.
func (b *Brain) consolidationMaterial(ctx context.Context, c Call, scope string) (*Material, error) {
	rows, err := b.ix.List(ctx, index.Filter{Scope: scope})
	if err != nil {
		return nil, fail(CodeIndexFailed, "Try again.", "%v", err)
	}
	m := &Material{RepeatedEpisodes: []Pair{}, Episodes: []EpisodeRef{}, Duplicates: []Pair{}, Lint: []Finding{}, Expired: []EpisodeRef{}}
	today := b.today()
	groups := map[string][]index.Row{}
	for _, r := range rows {
		ref := EpisodeRef{Path: r.Path, Title: r.Title, Scope: r.Scope, Updated: r.Updated}
		if r.Type == "episode" {
			m.Episodes = append(m.Episodes, ref)
		}
		if r.Validity(today) == note.Expired && len(r.SupersededBy) == 0 {
			m.Expired = append(m.Expired, ref)
		}
		if _, ok := note.Folders[r.Type]; ok && r.Type != "handoff" {
			groups[r.Type+"\x00"+r.Scope] = append(groups[r.Type+"\x00"+r.Scope], r)
		}
	}
	keys := slices.Sorted(maps.Keys(groups))
	for _, k := range keys {
		g := groups[k]
		if len(g) > consolidateGroupMax {
			g, m.Truncated = g[:consolidateGroupMax], true
		}
		pairs := b.alikePairs(g)
		if strings.HasPrefix(k, "episode\x00") {
			m.RepeatedEpisodes = append(m.RepeatedEpisodes, pairs...)
		} else {
			m.Duplicates = append(m.Duplicates, pairs...)
		}
	}
	lint, err := b.Lint(ctx, c, LintArgs{Rules: consolidationLintRules, Scope: scope, Limit: 200})
	if err != nil {
		return nil, err
	}
	m.Lint = append(m.Lint, lint.Findings...)
	return m, nil
}

// alikePairs compares the bodies of rows (one type and scope) pairwise by
// remember's duplicate rule.
func (b *Brain) alikePairs(rows []index.Row) []Pair {
	bodies := make([]string, len(rows))
	for i, r := range rows {
		if n, _, err := b.readNote(r.Path); err == nil {
			bodies[i] = n.Body
		}
	}
	var out []Pair
	for i := range rows {
		for j := i + 1; j < len(rows); j++ {
			if bodies[i] == "" || bodies[j] == "" {
				continue
			}
			verdict, sim, reason := compareMemories(bodies[i], bodies[j])
			if verdict == verdictDifferent {
				continue
			}
			out = append(out, Pair{A: rows[i].Path, B: rows[j].Path, Type: rows[i].Type, Verdict: verdict, Similarity: math.Round(sim*1000) / 1000, Reason: reason})
		}
	}
	return out
}

// restorePoint finds the tag start made for id.
func (b *Brain) restorePoint(ctx context.Context, id string) (RestorePoint, error) {
	if !consolidationIDRe.MatchString(id) {
		return RestorePoint{}, fail(CodeInvalidArgument, "Pass the consolidation_id start returned.", "consolidation-id %q is not an id start returned", id)
	}
	g := gitRunner{dir: b.Root}
	out, err := g.run(ctx, "for-each-ref", "--format=%(refname:short) %(objectname)", "refs/tags/"+restoreTagPrefix)
	if err != nil {
		return RestorePoint{}, fail(CodeGitFailed, "Check the brain with status.", "%v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		name, commit, ok := strings.Cut(line, " ")
		if ok && strings.HasSuffix(name, "-"+id) {
			return RestorePoint{Tag: name, Commit: commit}, nil
		}
	}
	return RestorePoint{}, fail(CodeNotFound, "Start a consolidation with action start; its restore point is on the machine that started it.", "no consolidation %s on this machine", id)
}

// consolidateFinish closes the pass: one commit, squashed when every
// commit since the restore point is this pass's and none was pushed, else a
// journal commit after them.
func (b *Brain) consolidateFinish(ctx context.Context, c Call, a ConsolidateArgs) (*ConsolidateResult, error) {
	if strings.TrimSpace(a.Title) == "" {
		return nil, fail(CodeInvalidArgument, "Pass a title: the label of the consolidation's commit.", "title is empty")
	}
	if err := validateTitle(a.Title); err != nil {
		return nil, err
	}
	rp, err := b.restorePoint(ctx, a.ConsolidationID)
	if err != nil {
		return nil, err
	}
	unlock, err := b.lockFresh(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	g := gitRunner{dir: b.Root}
	head, err := g.headFast(ctx)
	if err != nil {
		return nil, fail(CodeGitFailed, "Check the brain with status.", "%v", err)
	}
	entries, err := g.log(ctx, rp.Commit+"..HEAD")
	if err != nil {
		return nil, fail(CodeGitFailed, "Check the brain with status.", "%v", err)
	}
	ours := len(entries) > 0
	for _, e := range entries {
		if e.Trailer.Action == "consolidate" && e.Trailer.Session == a.ConsolidationID {
			return nil, fail(CodeAlreadyExists, "Nothing to do; undo({session}) reverts the pass.", "consolidation %s is already finished (commit %s)", a.ConsolidationID, e.Commit)
		}
		ours = ours && e.Trailer.Session == a.ConsolidationID
	}
	lines, err := b.diffLines(ctx, rp.Commit, head)
	if err != nil {
		return nil, err
	}
	pushed, err := b.pushedSince(ctx, entries)
	if err != nil {
		return nil, err
	}
	cc := c
	cc.Session = a.ConsolidationID
	op := newID()
	subject := "consolidate: " + a.Title
	var commit string
	squashed := ours && !pushed
	if squashed {
		commit, err = b.squashLocked(ctx, cc, op, subject, rp.Commit, head, lines)
	} else {
		commit, err = b.commitLocked(ctx, cc, write{Op: op, Action: "consolidate", Subject: subject, Lines: lines})
	}
	if err != nil {
		return nil, err
	}
	res := &ConsolidateResult{DataNotice: DataNotice, Action: "finish", ConsolidationID: a.ConsolidationID, RestorePoint: rp,
		Instructions: []string{}, Op: strp(op), Commit: strp(commit), Squashed: squashed, Changes: nonNil(lines), Warnings: []Warning{}}
	how := "closed in one commit"
	if !squashed {
		how = "closed with a journal commit after its writes (something else was written or pushed in between)"
	}
	res.NextStep = fmt.Sprintf("Consolidation %s. undo({session: %q}) reverts it whole; the restore point %s stays on this machine.", how, a.ConsolidationID, rp.Tag)
	return res, nil
}

// pushedSince reports whether any of entries (commits since a restore
// point, newest first) is on a remote-tracking branch.
func (b *Brain) pushedSince(ctx context.Context, entries []logEntry) (bool, error) {
	if len(entries) == 0 {
		return false, nil
	}
	g := gitRunner{dir: b.Root}
	// A remote ref holding any of them holds the oldest.
	out, err := g.run(ctx, "for-each-ref", "--contains", entries[len(entries)-1].Commit, "--format=%(refname)", "refs/remotes/")
	if err != nil {
		return false, fail(CodeGitFailed, "Check the brain with status.", "%v", err)
	}
	return strings.TrimSpace(out) != "", nil
}

// diffLines describes, one line per note, what changed between two
// commits: from git's diff, never from an agent's text.
func (b *Brain) diffLines(ctx context.Context, from, to string) ([]string, error) {
	g := gitRunner{dir: b.Root}
	out, err := g.run(ctx, "diff", "--name-status", "--no-renames", "-z", from, to)
	if err != nil {
		return nil, fail(CodeGitFailed, "Check the brain with status.", "%v", err)
	}
	f := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	var lines []string
	for i := 0; i+1 < len(f); i += 2 {
		status, p := f[i], f[i+1]
		if !indexable(p) {
			continue
		}
		rev, verb := to, "update"
		switch status {
		case "A":
			verb = "add"
		case "D":
			rev, verb = from, "remove"
		}
		raw, err := g.run(ctx, "show", rev+":"+p)
		if err != nil {
			raw = ""
		}
		n := note.Parse(p, []byte(raw))
		lines = append(lines, fmt.Sprintf("%s %s: %s", verb, typeOr(n.FM.Type), n.Title()))
	}
	return lines, nil
}

// squashLocked replaces the commits from restore to head with one commit
// of the same notes (plus the pass's log.md lines) whose parent is
// restore; the caller holds the lock. The new commit is built in a private
// git index and HEAD moves only if it is still head, so a person's staged
// changes and the working tree are left as they are.
func (b *Brain) squashLocked(ctx context.Context, c Call, op, subject, restore, head string, lines []string) (string, error) {
	chs, err := b.derivedChanges(ctx, op, "consolidate", lines, nil)
	if err != nil {
		return "", err
	}
	var paths []string
	for _, ch := range chs {
		paths = append(paths, ch.Path)
	}
	j, err := b.beginJournal(op, "consolidate", head, paths, chs)
	if err != nil {
		return "", err
	}
	defer b.endJournal(j)
	rollback := func() {
		// The journal holds what the derived files had: put them back.
		if _, err := b.recoverOne(ctx, j); err != nil {
			sdkLogError("notes: put back a failed consolidation", op, err)
		}
	}
	for _, ch := range chs {
		if err := writeAtomic(filepath.Join(b.Root, filepath.FromSlash(ch.Path)), ch.Data); err != nil {
			rollback()
			return "", err
		}
	}
	tmpIndex := filepath.Join(b.Root, StateDir, "consolidate-"+op+".index")
	defer os.Remove(tmpIndex)
	gi := gitRunner{dir: b.Root, env: []string{"GIT_INDEX_FILE=" + tmpIndex}}
	g := gitRunner{dir: b.Root}
	msg, err := commitMessage(subject, prefixLines(lines), trailers{Op: op, Action: "consolidate", Session: c.session(), Client: c.Client(),
		Request: c.Caller.RequestID, Channel: c.Caller.Channel})
	if err != nil {
		return "", err
	}
	var commit string
	steps := []func() error{
		func() error { _, err := gi.run(ctx, "read-tree", head); return err },
		func() error { _, err := gi.run(ctx, append([]string{"add", "--"}, paths...)...); return err },
		func() error {
			tree, err := gi.run(ctx, "write-tree")
			if err != nil {
				return err
			}
			out, err := g.run(ctx, "commit-tree", strings.TrimSpace(tree), "-p", restore, "-m", msg)
			commit = strings.TrimSpace(out)
			return err
		},
		func() error { _, err := g.run(ctx, "update-ref", "-m", subject, "HEAD", commit, head); return err },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			rollback()
			return "", fail(CodeGitFailed, "Nothing was changed. Check the brain with status.", "%v", err)
		}
	}
	crashPoint("commit")
	// The real git index still holds the old derived files: stage what
	// the commit has.
	if _, err := g.run(ctx, append([]string{"add", "--"}, paths...)...); err != nil {
		return commit, fail(CodeGitFailed, "The consolidation is committed; run git add index.md log.md.", "%v", err)
	}
	b.unc.drop(paths...)
	if err := b.reindex(ctx, head, commit, paths); err != nil {
		return commit, err
	}
	return commit, nil
}
