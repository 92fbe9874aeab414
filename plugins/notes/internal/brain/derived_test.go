package brain

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// committedFiles lists the paths one commit changed.
func (e *env) committedFiles(commit string) []string {
	e.t.Helper()
	out := e.git("diff-tree", "--no-commit-id", "--name-only", "-r", commit)
	return strings.Fields(out)
}

// TestIndexAndLogInTheWriteCommit: every write commits index.md (the
// catalogue by type and scope) and log.md (one appended line per change)
// with the note itself; an undo of an older write rewrites the catalogue
// and appends to the journal, never removing a line of it.
func TestIndexAndLogInTheWriteCommit(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	first := e.ok("remember", map[string]any{"type": "preference", "title": "Tabs over spaces", "content": "Indent Go with tabs; gofmt decides."})
	second := e.ok("remember", map[string]any{"type": "gotcha", "title": "Flaky port 8080", "scope": "project:atlas", "content": "Port 8080 is taken by the proxy on the CI runners."})
	e.clean()
	for _, w := range []map[string]any{first, second} {
		files := e.committedFiles(str(w, "commit"))
		for _, want := range []string{str(w, "path"), "index.md", "log.md"} {
			if !slices.Contains(files, want) {
				t.Fatalf("commit of %s changed %v, want %s in it", str(w, "path"), files, want)
			}
		}
	}
	idx := e.file("index.md")
	for _, want := range []string{"## gotcha (1)", "### project:atlas", "- [Flaky port 8080](" + str(second, "path") + ")",
		"## preference (1)", "### global", "- [Tabs over spaces](" + str(first, "path") + ")"} {
		if !strings.Contains(idx, want) {
			t.Fatalf("index.md lacks %q:\n%s", want, idx)
		}
	}
	if strings.Index(idx, "## gotcha") > strings.Index(idx, "## preference") {
		t.Fatalf("index.md sections are not in type order:\n%s", idx)
	}
	log := e.file("log.md")
	for _, want := range []string{" init ", " remember " + str(first, "op") + ": add preference: Tabs over spaces", " remember " + str(second, "op") + ": add gotcha: Flaky port 8080"} {
		if !strings.Contains(log, want) {
			t.Fatalf("log.md lacks %q:\n%s", want, log)
		}
	}

	// Undo the older write: the later one touched index.md and log.md
	// too, and the revert must not stop on them.
	u := e.ok("undo", map[string]any{"op": str(first, "op")})
	e.clean()
	files := e.committedFiles(str(u, "commit"))
	if !slices.Contains(files, "index.md") || !slices.Contains(files, "log.md") {
		t.Fatalf("undo commit changed %v, want index.md and log.md", files)
	}
	idx = e.file("index.md")
	if strings.Contains(idx, "Tabs over spaces") || !strings.Contains(idx, "Flaky port 8080") {
		t.Fatalf("index.md after undo:\n%s", idx)
	}
	after := e.file("log.md")
	if !strings.HasPrefix(after, log) {
		t.Fatalf("undo removed lines from log.md:\nbefore:\n%s\nafter:\n%s", log, after)
	}
	if !strings.Contains(after[len(log):], " undo "+str(u, "op")+": undo add preference: Tabs over spaces") {
		t.Fatalf("log.md lacks the undo line:\n%s", after)
	}

	// index.md and log.md are the brain's own: an agent cannot write them.
	e.fails(CodeInvalidPath, "write-page", map[string]any{"path": "log.md", "content": "- rewritten history"})
}

// TestRegenerateDerived is what sync runs after a merge: index.md rebuilt
// from the index, log.md appended.
func TestRegenerateDerived(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	e.writeHuman("wiki/concepts/Idempotency.md", "---\ntype: concept\ntitle: Idempotency\n---\nSame request twice, same effect.\n")
	b := e.brain()
	ctx := context.Background()
	if err := b.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	paths, err := b.RegenerateDerived(ctx, "01TESTOP", "sync", []string{"merge origin/main"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(paths, "index.md") || !slices.Contains(paths, "log.md") {
		t.Fatalf("changed %v, want index.md and log.md", paths)
	}
	if idx := e.file("index.md"); !strings.Contains(idx, "## concept (1)") || !strings.Contains(idx, "[Idempotency](wiki/concepts/Idempotency.md)") {
		t.Fatalf("index.md:\n%s", idx)
	}
	if log := e.file("log.md"); !strings.Contains(log, " sync 01TESTOP: merge origin/main\n") {
		t.Fatalf("log.md:\n%s", log)
	}
}
