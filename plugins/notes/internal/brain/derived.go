package brain

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

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
	return newCatSet(entries).render()
}

// catKey names one subsection of the catalogue: a type ("" for untyped)
// and a scope.
type catKey struct{ typ, scope string }

// catLine is one note's line of a subsection, with what it sorts by.
type catLine struct {
	lower, path, text string
}

func compareCatLines(a, b catLine) int {
	if c := strings.Compare(a.lower, b.lower); c != 0 {
		return c
	}
	return strings.Compare(a.path, b.path)
}

// catSet is the catalogue as sorted subsections, so a write changes only
// its own lines (set, remove) and renders without sorting the brain.
type catSet struct {
	byPath   map[string]catEntry
	sections map[catKey][]catLine
}

func newCatSet(entries []catEntry) *catSet {
	s := &catSet{byPath: make(map[string]catEntry, len(entries)), sections: map[catKey][]catLine{}}
	for _, e := range entries {
		if _, dup := s.byPath[e.Path]; dup {
			s.remove(e.Path)
		}
		s.byPath[e.Path] = e
		k, l := catLineOf(e)
		s.sections[k] = append(s.sections[k], l)
	}
	for _, ls := range s.sections {
		slices.SortFunc(ls, compareCatLines)
	}
	return s
}

func catLineOf(e catEntry) (catKey, catLine) {
	t := e.Type
	if _, ok := note.Folders[t]; !ok {
		t = ""
	}
	return catKey{t, e.Scope}, catLine{lower: strings.ToLower(e.Title), path: e.Path,
		text: "- [" + linkText(e.Title) + "](" + linkTarget(e.Path) + ")\n"}
}

// set puts e in the catalogue in place of any line of its path.
func (s *catSet) set(e catEntry) {
	s.remove(e.Path)
	s.byPath[e.Path] = e
	k, l := catLineOf(e)
	ls := s.sections[k]
	i, _ := slices.BinarySearchFunc(ls, l, compareCatLines)
	s.sections[k] = slices.Insert(ls, i, l)
}

// remove takes path's line out of the catalogue, if it has one.
func (s *catSet) remove(path string) {
	e, ok := s.byPath[path]
	if !ok {
		return
	}
	delete(s.byPath, path)
	k, l := catLineOf(e)
	ls := s.sections[k]
	if i, found := slices.BinarySearchFunc(ls, l, compareCatLines); found {
		ls = slices.Delete(ls, i, i+1)
	}
	if len(ls) == 0 {
		delete(s.sections, k)
		return
	}
	s.sections[k] = ls
}

// apply brings the catalogue to a write's changes: a note set, archived
// or removed.
func (s *catSet) apply(pending []change) {
	for _, ch := range pending {
		if !indexable(ch.Path) {
			continue
		}
		if ch.Data == nil || note.Archived(ch.Path) {
			s.remove(ch.Path)
			continue
		}
		n := note.Parse(ch.Path, ch.Data)
		s.set(catEntry{Path: ch.Path, Type: n.FM.Type, Title: n.Title(), Scope: n.Scope()})
	}
}

func (s *catSet) render() []byte {
	byType := map[string][]string{}
	for k := range s.sections {
		byType[k.typ] = append(byType[k.typ], k.scope)
	}
	var out strings.Builder
	out.Grow(len(indexHeader) + 64*len(s.byPath))
	out.WriteString(indexHeader)
	fmt.Fprintf(&out, "\n%d notes.\n", len(s.byPath))
	for _, t := range append(note.Types(), "") {
		scopes := byType[t]
		if len(scopes) == 0 {
			continue
		}
		sort.Strings(scopes)
		name := t
		if name == "" {
			name = "untyped"
		}
		n := 0
		for _, sc := range scopes {
			n += len(s.sections[catKey{t, sc}])
		}
		fmt.Fprintf(&out, "\n## %s (%d)\n", name, n)
		for _, sc := range scopes {
			fmt.Fprintf(&out, "\n### %s\n\n", sc)
			for _, l := range s.sections[catKey{t, sc}] {
				out.WriteString(l.text)
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
// that is committed (a person's uncommitted new note waits for its commit)
// and not archived.
func (b *Brain) catalogueEntries(ctx context.Context) ([]catEntry, error) {
	rows, err := b.ix.Catalogue(ctx)
	if err != nil {
		return nil, fail(CodeIndexFailed, "Delete .notes/index.db to rebuild the index.", "list the notes for index.md: %v", err)
	}
	out := make([]catEntry, 0, len(rows))
	for _, r := range rows {
		if b.isUncommittedNew(r.Path) {
			continue
		}
		out = append(out, catEntry{Path: r.Path, Type: r.Type, Title: r.Title, Scope: r.Scope})
	}
	return out, nil
}

// catCache keeps the catalogue between writes: valid while the index is
// at head and holds no hand edit, so a write re-renders its own lines
// instead of listing and sorting every note. A write takes it (head ""
// until its commit and index update are in) and hands it back with the
// new HEAD; anything else finds it stale and builds it from the index.
type catCache struct {
	mu   sync.Mutex
	head string
	set  *catSet
}

// catalogueSet returns the catalogue as the index holds it, from the cache
// when that is at the index's head, for the caller to change.
func (b *Brain) catalogueSet(ctx context.Context) (*catSet, error) {
	b.cat.mu.Lock()
	defer b.cat.mu.Unlock()
	if s := b.cat.set; s != nil && b.cat.head != "" && b.cat.head == b.ix.Meta(ctx, "head") && b.ix.Meta(ctx, handEditsMeta) == "" {
		b.cat.head = ""
		return s, nil
	}
	b.cat.set, b.cat.head = nil, ""
	entries, err := b.catalogueEntries(ctx)
	if err != nil {
		return nil, err
	}
	b.cat.set = newCatSet(entries)
	return b.cat.set, nil
}

// keepCatalogue records that the catalogue last taken is the index's at
// head: the write that changed it is committed and indexed.
func (b *Brain) keepCatalogue(head string) {
	b.cat.mu.Lock()
	defer b.cat.mu.Unlock()
	if b.cat.set != nil {
		b.cat.head = head
	}
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
	set, err := b.catalogueSet(ctx)
	if err != nil {
		return nil, err
	}
	set.apply(pending)
	var out []change
	if cat := set.render(); !bytes.Equal(cat, b.readRel(IndexFile)) {
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
