package brain

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/toolhost/toolhost/plugins/notes/internal/index"
	"github.com/toolhost/toolhost/plugins/notes/internal/markdown"
	"github.com/toolhost/toolhost/plugins/notes/internal/note"
)

// MoveArgs are move's args.
type MoveArgs struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// MoveResult is move's answer.
type MoveResult struct {
	WriteResult
	From         string   `json:"from"`
	To           string   `json:"to"`
	LinksUpdated []string `json:"links_updated"`
}

// Move renames a note and rewrites, in every note linking to it, the
// wikilinks that reached it, all in one commit (undoable as one op).
func (b *Brain) Move(ctx context.Context, c Call, a MoveArgs) (*MoveResult, error) {
	if err := b.fresh(ctx); err != nil {
		return nil, err
	}
	row, err := b.resolveOne(ctx, a.From)
	if err != nil {
		return nil, err
	}
	from, err := b.notePath(row.Path)
	if err != nil {
		return nil, err
	}
	to, err := b.notePath(a.To)
	if err != nil {
		return nil, err
	}
	if note.Archived(from) || note.Archived(to) {
		return nil, fail(CodeInvalidPath, "Use forget to archive a note and undo to bring one back.", "move does not go into or out of %s", note.ArchiveDir)
	}
	if from == to {
		return nil, fail(CodeInvalidArgument, "Pass a different path in to.", "%s is already at %s", a.From, to)
	}
	if b.fileDigest(to) != "" {
		return nil, fail(CodeAlreadyExists, "Pick a path no note has.", "%s already exists", to)
	}
	cur, curDigest, err := b.readNote(from)
	if err != nil {
		return nil, err
	}
	raw := b.readRel(from)
	if err := scanFields(map[string]string{"path": to}); err != nil {
		return nil, err
	}
	newTarget := b.moveTarget(ctx, from, to)
	chs := []change{{Path: from}, {Path: to, Data: raw}}
	expect := map[string]string{from: curDigest, to: ""}
	lines := []string{fmt.Sprintf("move %s: %s (%s → %s)", typeOr(cur.FM.Type), cur.Title(), from, to)}
	res := &MoveResult{From: from, To: to, LinksUpdated: []string{}}
	links, err := b.ix.Backlinks(ctx, from)
	if err != nil {
		return nil, fail(CodeIndexFailed, "Try again.", "%v", err)
	}
	targets := map[string][]string{} // source → link targets naming the moved note
	for _, l := range links {
		targets[l.From] = append(targets[l.From], l.Target)
	}
	sources := make([]string, 0, len(targets))
	for s := range targets {
		sources = append(sources, s)
	}
	sort.Strings(sources)
	for _, s := range sources {
		if s == from {
			continue
		}
		src := b.readRel(s)
		if src == nil {
			continue
		}
		out := rewriteLinks(string(src), targets[s], newTarget)
		if out == string(src) {
			continue
		}
		chs = append(chs, change{Path: s, Data: []byte(out)})
		expect[s] = digest(src)
		n := note.Parse(s, src)
		lines = append(lines, fmt.Sprintf("relink %s: %s", typeOr(n.FM.Type), n.Title()))
		res.LinksUpdated = append(res.LinksUpdated, s)
	}
	reasons := elevation(from, true, cur.FM.Type, cur.FM.Trust)
	for _, r := range elevation(to, false, cur.FM.Type, "") {
		if !slices.Contains(reasons, r) {
			reasons = append(reasons, r)
		}
	}
	conf, approved, err := b.confirm(c, "move", from+"\x00"+to, reasons, fmt.Sprintf("Move %s to %s and rewrite the links of %d note(s).", from, to, len(res.LinksUpdated)))
	if err != nil {
		return nil, err
	}
	res.DataNotice, res.Warnings = DataNotice, []Warning{}
	if conf != nil {
		res.Confirmation, res.NextStep = conf, conf.NextStep
		return res, nil
	}
	op := newID()
	commit, err := b.commit(ctx, c, write{Op: op, Action: "move", Subject: "move: " + cur.Title(), Lines: lines, Changes: chs, Expect: expect, Approved: approved})
	if err != nil {
		return nil, err
	}
	res.Op, res.Commit, res.Path, res.Action, res.Changed = strp(op), strp(commit), strp(to), strp("move"), true
	if cur.FM.ID != "" {
		res.ID = strp(cur.FM.ID)
	}
	res.NextStep = fmt.Sprintf("Moved in one commit with its links. To move it back, undo({ op: %q }).", op)
	return res, nil
}

// moveTarget is the wikilink target that names the note once it is at to:
// its file stem when no other note answers to that name, else its path
// without .md.
func (b *Brain) moveTarget(ctx context.Context, from, to string) string {
	stem := note.Stem(to)
	rows, _, err := b.ix.Resolve(ctx, stem)
	if err == nil {
		for _, r := range rows {
			if r.Path != from {
				return strings.TrimSuffix(to, ".md")
			}
		}
	}
	return stem
}

// rewriteLinks points every wikilink of raw whose target is one of targets
// at newTarget, keeping its #section and |label; links in code are left
// alone, and so is anything that is not a link.
func rewriteLinks(raw string, targets []string, newTarget string) string {
	keys := map[string]bool{}
	for _, t := range targets {
		keys[index.Key(t)] = true
	}
	_, body, hasFM := note.SplitFrontmatter(strings.TrimPrefix(raw, "\ufeff"))
	head := raw[:len(raw)-len(body)]
	if hasFM {
		// Frontmatter relations hold links as quoted strings.
		for _, t := range targets {
			for _, tail := range []string{"]]", "|", "#"} {
				head = strings.ReplaceAll(head, "[["+t+tail, "[["+newTarget+tail)
			}
		}
	}
	doc := markdown.Parse(body)
	var out strings.Builder
	last := 0
	for _, l := range doc.Links {
		if !keys[index.Key(l.Target)] {
			continue
		}
		end := strings.Index(body[l.Offset:], "]]")
		if end < 0 {
			continue
		}
		link := "[[" + newTarget
		if l.Section != "" {
			link += "#" + l.Section
		}
		if l.Label != "" {
			link += "|" + l.Label
		}
		out.WriteString(body[last:l.Offset])
		out.WriteString(link + "]]")
		last = l.Offset + end + 2
	}
	out.WriteString(body[last:])
	return head + out.String()
}
