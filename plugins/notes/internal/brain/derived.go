package brain

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/toolhost/toolhost/plugins/notes/internal/note"
)

// LogFile is the brain's journal of operations: append-only, one line per
// change, written in the same commit as the change.
const LogFile = "log.md"

// derivedFiles are the files the brain writes itself in every write's
// commit; nobody else writes them.
var derivedFiles = []string{IndexFile, LogFile}

// isDerived reports whether rel is index.md or log.md.
func isDerived(rel string) bool {
	for _, d := range derivedFiles {
		if strings.EqualFold(rel, d) {
			return true
		}
	}
	return false
}

const indexHeader = "# Index\n\nThe catalogue of this brain's notes by type and scope. Derived: every write of the notes tool\nrewrites it in its own commit; edit the notes, never this file.\n"

const logHeader = "# Log\n\nThe journal of this brain's operations, one line per change, oldest first. Append-only:\nevery write of the notes tool adds its lines in its own commit; an undo adds lines, it never removes any.\n\n"

// gitAttributes makes git merge the derived files line by line (a revert or
// a sync merge never stops on them); the brain rewrites index.md after any
// merge and keeps log.md append-only. It lives in .git/info, so it holds
// for every clone without being a tracked file.
const gitAttributes = "/index.md merge=union\n/log.md merge=union\n"

// ensureAttributes writes .git/info/attributes when it lacks the derived
// files' merge rule.
func ensureAttributes(root string) error {
	p := filepath.Join(root, ".git", "info", "attributes")
	raw, err := os.ReadFile(p)
	if err == nil && bytes.Contains(raw, []byte(gitAttributes)) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("brain: git attributes: %w", err)
	}
	if len(raw) > 0 && !bytes.HasSuffix(raw, []byte("\n")) {
		raw = append(raw, '\n')
	}
	if err := os.WriteFile(p, append(raw, gitAttributes...), 0o644); err != nil {
		return fmt.Errorf("brain: git attributes: %w", err)
	}
	return nil
}

// catEntry is one line of the catalogue.
type catEntry struct {
	Path, Type, Title, Scope string
}

// catalogue renders index.md from entries: a section per type (untyped
// files last), a subsection per scope, a line per note by title.
func catalogue(entries []catEntry) []byte {
	byType := map[string]map[string][]catEntry{}
	for _, e := range entries {
		t := e.Type
		if _, ok := note.Folders[t]; !ok {
			t = ""
		}
		if byType[t] == nil {
			byType[t] = map[string][]catEntry{}
		}
		byType[t][e.Scope] = append(byType[t][e.Scope], e)
	}
	var out strings.Builder
	out.WriteString(indexHeader)
	fmt.Fprintf(&out, "\n%d notes.\n", len(entries))
	types := append(note.Types(), "")
	for _, t := range types {
		scopes := byType[t]
		if len(scopes) == 0 {
			continue
		}
		name := t
		if name == "" {
			name = "untyped"
		}
		n := 0
		for _, es := range scopes {
			n += len(es)
		}
		fmt.Fprintf(&out, "\n## %s (%d)\n", name, n)
		var keys []string
		for s := range scopes {
			keys = append(keys, s)
		}
		sort.Strings(keys)
		for _, s := range keys {
			es := scopes[s]
			lower := make(map[string]string, len(es))
			for _, e := range es {
				lower[e.Path] = strings.ToLower(e.Title)
			}
			sort.Slice(es, func(i, j int) bool {
				if a, b := lower[es[i].Path], lower[es[j].Path]; a != b {
					return a < b
				}
				return es[i].Path < es[j].Path
			})
			fmt.Fprintf(&out, "\n### %s\n\n", s)
			for _, e := range es {
				fmt.Fprintf(&out, "- [%s](%s)\n", linkText(e.Title), linkTarget(e.Path))
			}
		}
	}
	return []byte(out.String())
}

// linkText escapes what would end a Markdown link's text.
func linkText(s string) string { return linkTextEscapes.Replace(s) }

var linkTextEscapes = strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`, "\n", " ")

// linkTarget writes a path as a link destination: in angle brackets when it
// has a space or parenthesis.
func linkTarget(p string) string {
	if strings.ContainsAny(p, " ()<>") {
		return "<" + strings.NewReplacer("<", "%3C", ">", "%3E").Replace(p) + ">"
	}
	return p
}

// catalogueEntries lists what the catalogue holds: every note of the index
// that is committed (a person's uncommitted new note waits for its commit),
// not archived, with pending (the write's own changes) applied on top.
func (b *Brain) catalogueEntries(ctx context.Context, pending []change) ([]catEntry, error) {
	rows, err := b.ix.Catalogue(ctx)
	if err != nil {
		return nil, fail(CodeIndexFailed, "Delete .notes/index.db to rebuild the index.", "list the notes for index.md: %v", err)
	}
	set := map[string]catEntry{}
	for _, r := range rows {
		if b.isUncommittedNew(r.Path) {
			continue
		}
		set[r.Path] = catEntry{Path: r.Path, Type: r.Type, Title: r.Title, Scope: r.Scope}
	}
	for _, ch := range pending {
		if !indexable(ch.Path) {
			continue
		}
		if ch.Data == nil || note.Archived(ch.Path) {
			delete(set, ch.Path)
			continue
		}
		n := note.Parse(ch.Path, ch.Data)
		set[ch.Path] = catEntry{Path: ch.Path, Type: n.FM.Type, Title: n.Title(), Scope: n.Scope()}
	}
	out := make([]catEntry, 0, len(set))
	for _, e := range set {
		out = append(out, e)
	}
	return out, nil
}

// logLines renders log.md entries for one operation: a line per change,
// or one naming the action when it has none.
func (b *Brain) logLines(op, action string, lines []string) string {
	var out strings.Builder
	stamp := b.stamp()
	if len(lines) == 0 {
		lines = []string{action}
	}
	for _, l := range lines {
		fmt.Fprintf(&out, "- %s %s %s: %s\n", stamp, action, op, strings.ReplaceAll(l, "\n", " "))
	}
	return out.String()
}

// appendLog returns log.md's current content (or its header when missing)
// with text appended.
func (b *Brain) appendLog(text string) []byte {
	raw, err := os.ReadFile(filepath.Join(b.Root, LogFile))
	if err != nil || len(raw) == 0 {
		raw = []byte(logHeader)
	}
	if !bytes.HasSuffix(raw, []byte("\n")) {
		raw = append(raw, '\n')
	}
	return append(raw, text...)
}

// derivedChanges returns the changes to index.md and log.md that go into
// the commit of a write making pending: the catalogue with pending applied
// and the write's log lines. index.md is left out when it does not change.
func (b *Brain) derivedChanges(ctx context.Context, op, action string, lines []string, pending []change) ([]change, error) {
	entries, err := b.catalogueEntries(ctx, pending)
	if err != nil {
		return nil, err
	}
	var out []change
	if cat := catalogue(entries); !bytes.Equal(cat, b.readRel(IndexFile)) {
		out = append(out, change{Path: IndexFile, Data: cat})
	}
	out = append(out, change{Path: LogFile, Data: b.appendLog(b.logLines(op, action, lines))})
	return out, nil
}

// readRel reads a brain file, nil when it is missing.
func (b *Brain) readRel(rel string) []byte {
	raw, _ := readBrainFile(b.Root, rel)
	return raw
}

// RegenerateDerived rewrites index.md from the index and appends lines to
// log.md under op and action, in the working tree, and returns the paths
// it changed for the caller to stage into its commit. It is what a merge
// (sync) runs after bringing the index to the merged tree: index.md is
// never merged, it is rebuilt. The caller holds the write lock and has
// brought the index to the tree being committed.
func (b *Brain) RegenerateDerived(ctx context.Context, op, action string, lines []string) ([]string, error) {
	chs, err := b.derivedChanges(ctx, op, action, lines, nil)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, ch := range chs {
		if err := writeAtomic(filepath.Join(b.Root, filepath.FromSlash(ch.Path)), ch.Data); err != nil {
			return nil, err
		}
		paths = append(paths, ch.Path)
	}
	return paths, nil
}
