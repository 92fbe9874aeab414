package brain

import (
	"slices"
	"strings"
	"testing"
)

// TestMoveRewritesLinksInOneUndoableCommit: move renames the note and
// rewrites, in the notes linking to it, the links that reached it (body and
// frontmatter, keeping section and label; code left alone), in one commit
// with index.md and log.md; undo puts everything back.
func TestMoveRewritesLinksInOneUndoableCommit(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	e.writeHuman("wiki/entities/SQS.md", "---\ntype: entity\ntitle: SQS\n---\nAmazon's queue.\n")
	linker := "---\ntype: concept\ntitle: Billing pipeline\nrelations:\n  uses: [\"[[SQS]]\"]\n---\nBilling sends invoices through [[SQS]] and retries via [[SQS#Retries|the queue's retries]].\n\n`[[SQS]]` in code stays.\n"
	e.writeHuman("wiki/concepts/Billing.md", linker)
	e.writeHuman("wiki/concepts/Other.md", "---\ntype: concept\ntitle: Other\n---\nNothing about queues; [[Billing]] only.\n")
	before := e.head()
	res := e.ok("move", map[string]any{"from": "SQS", "to": "wiki/entities/Amazon-SQS.md"})
	e.clean()
	if str(res, "to") != "wiki/entities/Amazon-SQS.md" || !slices.Contains(anyStrings(list(res, "links_updated")), "wiki/concepts/Billing.md") || len(list(res, "links_updated")) != 1 {
		t.Fatalf("move: %v", res)
	}
	if e.exists("wiki/entities/SQS.md") || !strings.Contains(e.file("wiki/entities/Amazon-SQS.md"), "Amazon's queue.") {
		t.Fatal("the note was not renamed")
	}
	got := e.file("wiki/concepts/Billing.md")
	for _, want := range []string{`uses: ["[[Amazon-SQS]]"]`, "through [[Amazon-SQS]] and", "[[Amazon-SQS#Retries|the queue's retries]]", "`[[SQS]]` in code stays."} {
		if !strings.Contains(got, want) {
			t.Fatalf("Billing.md lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(e.git("log", "--format=%H", before+"..HEAD"), "\n"); n != 1 {
		t.Fatalf("%d commits, want one", n)
	}
	files := e.committedFiles("HEAD")
	for _, want := range []string{"wiki/entities/SQS.md", "wiki/entities/Amazon-SQS.md", "wiki/concepts/Billing.md", "index.md", "log.md"} {
		if !slices.Contains(files, want) {
			t.Fatalf("the move commit changed %v, want %s", files, want)
		}
	}
	if rd := e.ok("read", map[string]any{"path": "wiki/concepts/Billing.md"}); len(list(rd, "links")) == 0 {
		t.Logf("read: %v", rd)
	}
	if lint := e.ok("lint", map[string]any{"rules": []any{"broken_link"}}); len(list(lint, "findings")) != 0 {
		t.Fatalf("broken links after the move: %v", lint["findings"])
	}
	e.ok("undo", map[string]any{"op": str(res, "op")})
	e.clean()
	if !e.exists("wiki/entities/SQS.md") || e.exists("wiki/entities/Amazon-SQS.md") || e.file("wiki/concepts/Billing.md") != linker {
		t.Fatal("undo did not put the note and its links back")
	}
	e.fails(CodeAlreadyExists, "move", map[string]any{"from": "SQS", "to": "wiki/concepts/Other.md"})
	e.fails(CodeInvalidPath, "move", map[string]any{"from": "SQS", "to": "index.md"})
}

// TestRecentListsWhatChangedSince: recent lists the operations since a
// date, newest first, with the notes they touched, and the hand edits not
// committed; a later date lists nothing.
func TestRecentListsWhatChangedSince(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	first := e.ok("remember", map[string]any{"type": "preference", "title": "Tabs", "content": "Indent Go with tabs; gofmt decides."})
	second := e.ok("remember", map[string]any{"type": "gotcha", "title": "Port 8080", "content": "Port 8080 is taken by the proxy on the CI runners."})
	e.handWrite("memory/gotchas/by-hand.md", "---\ntype: gotcha\n---\nWritten by hand.\n")
	r := e.ok("recent", map[string]any{"since": "2000-01-01"})
	ops := list(r, "ops")
	if len(ops) < 3 {
		t.Fatalf("recent: %v", r)
	}
	newest, older := ops[0].(map[string]any), ops[1].(map[string]any)
	if str(newest, "op") != str(second, "op") || str(older, "op") != str(first, "op") || str(newest, "action") != "remember" {
		t.Fatalf("ops not newest first: %v", ops)
	}
	if p := anyStrings(list(newest, "paths")); len(p) != 1 || p[0] != str(second, "path") {
		t.Fatalf("paths %v, want only the note (index.md and log.md left out)", p)
	}
	if !strings.Contains(strings.Join(anyStrings(list(newest, "changes")), "\n"), "add gotcha: Port 8080") || str(newest, "date") == "" {
		t.Fatalf("newest: %v", newest)
	}
	if u := anyStrings(list(r, "uncommitted")); len(u) != 1 || u[0] != "memory/gotchas/by-hand.md" {
		t.Fatalf("uncommitted %v", u)
	}
	if later := e.ok("recent", map[string]any{"since": "2999-01-01"}); len(list(later, "ops")) != 0 {
		t.Fatalf("recent since 2999: %v", later)
	}
	if one := e.ok("recent", map[string]any{"since": "2000-01-01", "limit": 1}); len(list(one, "ops")) != 1 || one["truncated"] != true {
		t.Fatalf("limit 1: %v", one)
	}
	e.fails(CodeInvalidArgument, "recent", map[string]any{"since": "last week"})
}

func anyStrings(xs []any) []string {
	out := []string{}
	for _, x := range xs {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
