package brain

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolhost/toolhost/plugins/notes/internal/catalogue"
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

// catalogueEntries lists what the catalogue holds: every note of the index
// that is committed (a person's uncommitted new note waits for its commit)
// and not archived.
func (b *Brain) catalogueEntries(ctx context.Context) ([]catalogue.Entry, error) {
	rows, err := b.ix.Catalogue(ctx)
	if err != nil {
		return nil, fail(CodeIndexFailed, "Delete .notes/index.db to rebuild the index.", "list the notes for index.md: %v", err)
	}
	out := make([]catalogue.Entry, 0, len(rows))
	for _, r := range rows {
		if b.isUncommittedNew(r.Path) {
			continue
		}
		out = append(out, catalogue.Entry{Path: r.Path, Type: r.Type, Title: r.Title, Scope: r.Scope})
	}
	return out, nil
}

// catalogueSet returns the catalogue as the index holds it, kept from the
// last write when the index is still there, for the caller to change.
func (b *Brain) catalogueSet(ctx context.Context) (*catalogue.Set, error) {
	return b.cat.Take(b.ix.Meta(ctx, "head"), b.ix.Meta(ctx, handEditsMeta) == "", func() ([]catalogue.Entry, error) {
		return b.catalogueEntries(ctx)
	})
}

// keepCatalogue records that the catalogue last taken is the index's at
// head: the write that changed it is committed and indexed.
func (b *Brain) keepCatalogue(head string) { b.cat.Keep(head) }

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
	for _, ch := range pending {
		if indexable(ch.Path) {
			set.Apply(ch.Path, ch.Data)
		}
	}
	var out []change
	if cat := set.Render(); !bytes.Equal(cat, b.readRel(IndexFile)) {
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
