//go:build unix

package brain

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/toolhost/toolhost/plugins/notes/internal/notesync"
)

// outsideSecret writes a file outside every brain, holding a word no note
// has, and returns its path and the word.
func outsideSecret(t *testing.T) (string, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "outside", "secret.txt")
	const word = "zebrafishoutsider"
	if err := writeFileT(p, "---\ntype: concept\ntitle: Ops Runbook\n---\nThe "+word+" text lives outside the brain.\n"); err != nil {
		t.Fatal(err)
	}
	return p, word
}

// noOutsideText fails when search or recall returns the outside file's
// word.
func noOutsideText(t *testing.T, e *env, word string) {
	t.Helper()
	if hits := list(e.ok("search", map[string]any{"query": word}), "hits"); len(hits) != 0 {
		t.Fatalf("search returned the outside file's text: %v", hits)
	}
	rc := e.ok("recall", map[string]any{"task": "follow the ops runbook " + word})
	delete(rc, "task") // the task is echoed
	if raw := strings.ToLower(strings.Join(flatten(rc), " ")); strings.Contains(raw, word) {
		t.Fatalf("recall returned the outside file's text: %v", rc)
	}
}

// flatten lists every string in a decoded JSON value.
func flatten(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, y := range x {
			out = append(out, flatten(y)...)
		}
		return out
	case map[string]any:
		var out []string
		for _, y := range x {
			out = append(out, flatten(y)...)
		}
		return out
	}
	return nil
}

// TestSyncRefusesLinksFromTheRemote: another machine pushes a commit that
// adds wiki/entities/Ops-Runbook.md as a symbolic link (mode 120000) to a
// file outside the brain and a note linked to /dev/zero. sync refuses to
// merge it and names both; search and recall never return the outside
// text, and nothing reads /dev/zero.
func TestSyncRefusesLinksFromTheRemote(t *testing.T) {
	requireGit(t)
	remote := bareRemote(t)
	a := machine(t, "laptop", remote, false)
	a.ok("remember", map[string]any{"content": "The billing consumer reads from SQS.", "type": "fact", "subject": "billing", "predicate": "reads-from", "object": "SQS"})
	a.sync(notesync.OK)

	outside, word := outsideSecret(t)
	other := filepath.Join(t.TempDir(), "other")
	g := gitRunner{dir: filepath.Dir(other)}
	ctx := context.Background()
	if _, err := g.run(ctx, "clone", "-q", remote, other); err != nil {
		t.Fatal(err)
	}
	for rel, target := range map[string]string{"wiki/entities/Ops-Runbook.md": outside, "wiki/concepts/Zero.md": "/dev/zero"} {
		abs := filepath.Join(other, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, abs); err != nil {
			t.Fatal(err)
		}
	}
	og := gitRunner{dir: other}
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", "runbook"}, {"push", "-q", "origin", "HEAD:main"}} {
		if _, err := og.run(ctx, args...); err != nil {
			t.Fatal(err)
		}
	}
	if out, _ := og.run(ctx, "ls-tree", "-r", "HEAD", "wiki/entities/Ops-Runbook.md"); !strings.HasPrefix(out, "120000 ") {
		t.Fatalf("the fixture is not a link in git: %q", out)
	}

	head := a.head()
	m := a.sync(notesync.Blocked)
	if got := strings.Join(unsafePaths(list(m, "unsafe_files")), ","); !strings.Contains(got, "wiki/entities/Ops-Runbook.md") || !strings.Contains(got, "wiki/concepts/Zero.md") {
		t.Fatalf("sync: unsafe_files %q, want both links named: %v", got, m)
	}
	if !strings.Contains(str(m, "message"), "symbolic link") {
		t.Fatalf("sync message %q does not say why", str(m, "message"))
	}
	if got := a.head(); got != head {
		t.Fatalf("sync merged the commit adding links (HEAD %s, was %s)", got, head)
	}
	if a.exists("wiki/entities/Ops-Runbook.md") {
		t.Fatal("the link reached the working tree")
	}
	noOutsideText(t, a, word)
}

func unsafePaths(xs []any) []string {
	var out []string
	for _, x := range xs {
		switch v := x.(type) {
		case string:
			out = append(out, v)
		case map[string]any:
			out = append(out, str(v, "path"))
		}
	}
	return out
}

// TestLinksInTheTreeAreNeverRead: links and special files that reached
// the brain some other way (a person's git pull, a hand-made link, a
// FIFO) are refused by every reader — the index rebuild, the watcher,
// search, recall, read — and listed by lint (unsafe_file) and status; no
// reader follows one or blocks on one.
func TestLinksInTheTreeAreNeverRead(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	e.ok("remember", map[string]any{"content": "The billing consumer reads from SQS.", "type": "fact", "subject": "billing", "predicate": "reads-from", "object": "SQS"})
	outside, word := outsideSecret(t)
	link := func(rel, target string) {
		abs := filepath.Join(e.root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, abs); err != nil {
			t.Fatal(err)
		}
	}
	// Committed by hand, as a git pull outside the tool would bring them.
	link("wiki/entities/Ops-Runbook.md", outside)
	link("wiki/concepts/Zero.md", "/dev/zero")
	if err := os.MkdirAll(filepath.Join(e.root, "wiki/linked"), 0o755); err != nil {
		t.Fatal(err)
	}
	link("wiki/via", filepath.Dir(outside)) // a folder link: wiki/via/secret.txt is outside
	e.git("add", "-A")
	e.git("commit", "-q", "-m", "by hand: links")
	// Not committed: a FIFO named like a note.
	if err := syscall.Mkfifo(filepath.Join(e.root, "memory/gotchas/pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := e.brain().Reindex(context.Background()); err != nil {
		t.Fatal(err)
	}
	noOutsideText(t, e, word)
	e.fails(CodeUnsafePath, "read", map[string]any{"path": "wiki/entities/Ops-Runbook.md"})

	lint := e.ok("lint", map[string]any{"rules": []string{"unsafe_file"}})
	var flagged []string
	for _, f := range list(lint, "findings") {
		flagged = append(flagged, str(f.(map[string]any), "path"))
	}
	for _, want := range []string{"wiki/entities/Ops-Runbook.md", "wiki/concepts/Zero.md", "wiki/via", "memory/gotchas/pipe.md"} {
		if !strings.Contains(strings.Join(flagged, ","), want) {
			t.Errorf("lint unsafe_file %v does not list %s", flagged, want)
		}
	}
	st := e.ok("status", nil)
	if got := strings.Join(unsafePaths(list(st, "unsafe_files")), ","); !strings.Contains(got, "wiki/entities/Ops-Runbook.md") || st["healthy"] != false {
		t.Fatalf("status: unsafe_files %q healthy %v, want the link listed and the brain unhealthy", got, st["healthy"])
	}

	// The watcher: a link a person makes while the plugin runs is not read.
	_, indexed := e.watched()
	link("memory/gotchas/Runbook-Copy.md", outside)
	e.handWrite("memory/gotchas/after.md", "---\ntype: gotcha\ntitle: After\n---\nwritten after the link.\n")
	for p := range indexed {
		if p == "memory/gotchas/after.md" {
			break
		}
	}
	noOutsideText(t, e, word)

	// sync will not commit a person's link either.
	m := e.ok("sync", nil)
	if str(m, "status") != notesync.Blocked || !strings.Contains(strings.Join(unsafePaths(list(m, "unsafe_files")), ","), "memory/gotchas/Runbook-Copy.md") {
		t.Fatalf("sync of a hand-made link: %v", m)
	}
}
