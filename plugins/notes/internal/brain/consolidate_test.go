package brain

import (
	"strings"
	"testing"
)

// seedForConsolidation writes, as a person, two episodes that repeat each
// other and two gotchas that say the same thing, and returns their paths.
func (e *env) seedForConsolidation() {
	e.t.Helper()
	e.writeHuman("memory/episodes/2026/11/deploy-a.md", "---\ntype: episode\ntitle: Deploy of billing on Monday\n---\nThe billing deploy failed because the migration lock was held by the reporting job; we killed the job and retried the migration.\n")
	e.writeHuman("memory/episodes/2026/11/deploy-b.md", "---\ntype: episode\ntitle: Deploy of billing on Thursday\n---\nThe billing deploy failed because the migration lock was held by the reporting job; we killed the job and retried the migration again.\n")
	e.writeHuman("memory/gotchas/lock-a.md", "---\ntype: gotcha\ntitle: Migration lock\n---\nThe reporting job holds the migration lock during billing deploys.\n")
	e.writeHuman("memory/gotchas/lock-b.md", "---\ntype: gotcha\ntitle: Reporting job lock\n---\nDuring billing deploys the reporting job holds the migration lock.\n")
}

// forgetConfirmed archives a note the way a user confirms it: the first call
// returns the token, the second uses it.
func (e *env) forgetConfirmed(id, session string) map[string]any {
	e.t.Helper()
	fa := map[string]any{"id": id, "reason": "merged by consolidation", "session-handle": session}
	first := e.ok("forget", fa)
	fa["confirm-token"] = str(first, "confirm_token")
	return e.ok("forget", fa)
}

func hasPair(pairs []any, a, b string) bool {
	for _, p := range pairs {
		m := p.(map[string]any)
		if (str(m, "a") == a && str(m, "b") == b) || (str(m, "a") == b && str(m, "b") == a) {
			return true
		}
	}
	return false
}

// TestConsolidationSquashedAndUndoneWhole: start tags a restore point and
// returns the repeated episodes and duplicate gotchas; the pass's writes
// (made with the consolidation id as session) become one commit at
// finish, with the same notes and one line per note from git's diff; undo
// {session} reverts the pass whole, back to the restore point's notes.
func TestConsolidationSquashedAndUndoneWhole(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	e.seedForConsolidation()
	start := e.ok("consolidate", map[string]any{"action": "start"})
	id := str(start, "consolidation_id")
	rp := obj(start, "restore_point")
	if id == "" || str(rp, "commit") != e.head() || !strings.HasPrefix(str(rp, "tag"), "notes/restore/") || !strings.HasSuffix(str(rp, "tag"), id) {
		t.Fatalf("start: %v", start)
	}
	if got := strings.TrimSpace(e.git("rev-parse", str(rp, "tag")+"^{commit}")); got != str(rp, "commit") {
		t.Fatalf("tag %s is at %s, want %s", str(rp, "tag"), got, str(rp, "commit"))
	}
	m := obj(start, "material")
	if !hasPair(list(m, "repeated_episodes"), "memory/episodes/2026/11/deploy-a.md", "memory/episodes/2026/11/deploy-b.md") {
		t.Fatalf("repeated_episodes: %v", m["repeated_episodes"])
	}
	if !hasPair(list(m, "duplicates"), "memory/gotchas/lock-a.md", "memory/gotchas/lock-b.md") {
		t.Fatalf("duplicates: %v", m["duplicates"])
	}
	if len(list(m, "episodes")) != 2 || len(list(start, "instructions")) == 0 {
		t.Fatalf("material: %v", m)
	}
	before := e.git("ls-tree", "-r", "--name-only", "HEAD")

	// The pass: one procedure from the episodes, both episodes and one
	// gotcha archived, all with the consolidation id as session.
	e.ok("remember", map[string]any{"type": "procedure", "title": "Billing deploy with the migration lock", "session-handle": id,
		"content": "Before a billing deploy, stop the reporting job: it holds the migration lock."})
	for _, p := range []string{"memory/episodes/2026/11/deploy-a.md", "memory/episodes/2026/11/deploy-b.md", "memory/gotchas/lock-b.md"} {
		e.forgetConfirmed(p, id)
	}
	treeBefore := strings.TrimSpace(e.git("rev-parse", "HEAD^{tree}"))
	fin := e.ok("consolidate", map[string]any{"action": "finish", "consolidation-id": id, "title": "billing deploy lessons"})
	e.clean()
	if fin["squashed"] != true {
		t.Fatalf("finish: %v, want squashed", fin)
	}
	if parent := strings.TrimSpace(e.git("rev-parse", "HEAD^")); parent != str(rp, "commit") {
		t.Fatalf("the squashed commit's parent is %s, want the restore point %s", parent, str(rp, "commit"))
	}
	if e.head() != str(fin, "commit") {
		t.Fatalf("HEAD %s, finish commit %s", e.head(), str(fin, "commit"))
	}
	// Same notes as the pass left them; only log.md gained the finish.
	if diff := e.git("diff", "--name-only", treeBefore, "HEAD"); strings.TrimSpace(diff) != "log.md" {
		t.Fatalf("the squash changed more than log.md: %q", diff)
	}
	changes := strings.Join(func() []string {
		var out []string
		for _, c := range list(fin, "changes") {
			out = append(out, c.(string))
		}
		return out
	}(), "\n")
	for _, want := range []string{"add procedure: Billing deploy with the migration lock", "remove episode: Deploy of billing on Monday", "remove gotcha: Reporting job lock"} {
		if !strings.Contains(changes, want) {
			t.Fatalf("changes lack %q:\n%s", want, changes)
		}
	}
	msg := e.git("log", "-1", "--format=%B")
	if !strings.HasPrefix(msg, "consolidate: billing deploy lessons") || !strings.Contains(msg, "Notes-Session: "+id) || !strings.Contains(msg, "Notes-Action: consolidate") {
		t.Fatalf("commit message:\n%s", msg)
	}
	e.fails(CodeAlreadyExists, "consolidate", map[string]any{"action": "finish", "consolidation-id": id, "title": "again"})

	u := e.ok("undo", map[string]any{"session": id})
	e.clean()
	if len(list(u, "undone")) != 1 {
		t.Fatalf("undo: %v, want the one squashed commit undone", u)
	}
	if after := e.git("ls-tree", "-r", "--name-only", "HEAD"); after != before {
		t.Fatalf("after undo the notes differ from the restore point:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if diff := e.git("diff", "--name-only", str(rp, "commit"), "HEAD", "--", ".", ":!log.md", ":!index.md"); strings.TrimSpace(diff) != "" {
		t.Fatalf("after undo the notes differ from the restore point: %s", diff)
	}
	if h := e.hit("reporting", "memory/gotchas/lock-b.md"); h == nil {
		t.Fatal("the forgotten gotcha is not back in search after the undo")
	}
}

// TestConsolidationNotSquashedWhenOthersWrote: a write of another session
// in the middle of the pass keeps the commits as they are and closes the
// pass with a journal commit; undo {session} still reverts the whole pass
// and leaves the other write.
func TestConsolidationNotSquashedWhenOthersWrote(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	e.seedForConsolidation()
	start := e.ok("consolidate", map[string]any{"action": "start", "scope": "global"})
	id := str(start, "consolidation_id")
	pass := e.ok("remember", map[string]any{"type": "procedure", "title": "Stop the reporting job first", "session-handle": id,
		"content": "Before a billing deploy, stop the reporting job."})
	other := e.ok("remember", map[string]any{"type": "preference", "title": "Short answers", "session-handle": "another-session",
		"content": "Keep answers under ten lines."})
	fin := e.ok("consolidate", map[string]any{"action": "finish", "consolidation-id": id, "title": "partial pass"})
	e.clean()
	if fin["squashed"] != false {
		t.Fatalf("finish: %v, want not squashed", fin)
	}
	if n := strings.Count(e.git("log", "--format=%H", str(obj(start, "restore_point"), "commit")+"..HEAD"), "\n"); n != 3 {
		t.Fatalf("%d commits since the restore point, want the pass's, the other's and the journal commit", n)
	}
	e.ok("undo", map[string]any{"session": id})
	e.clean()
	if e.exists(str(pass, "path")) || !e.exists(str(other, "path")) {
		t.Fatal("undo of the pass: want its note gone and the other session's kept")
	}
	e.fails(CodeNotFound, "consolidate", map[string]any{"action": "finish", "consolidation-id": "01J00000000000000000000000", "title": "x"})
}

// TestConsolidationNotSquashedWhenPushed: a pass whose writes were pushed
// (a remote-tracking branch holds them) is not rewritten: finish closes it
// with a journal commit.
func TestConsolidationNotSquashedWhenPushed(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	e.seedForConsolidation()
	remote := t.TempDir()
	e.git("init", "-q", "--bare", remote)
	e.git("remote", "add", "origin", remote)
	id := str(e.ok("consolidate", map[string]any{"action": "start"}), "consolidation_id")
	e.ok("remember", map[string]any{"type": "procedure", "title": "Stop the reporting job first", "session-handle": id,
		"content": "Before a billing deploy, stop the reporting job."})
	e.git("push", "-q", "origin", "main")
	pushed := e.head()
	fin := e.ok("consolidate", map[string]any{"action": "finish", "consolidation-id": id, "title": "pushed pass"})
	if fin["squashed"] != false || strings.TrimSpace(e.git("rev-parse", "HEAD^")) != pushed {
		t.Fatalf("finish: %v, want a journal commit on top of the pushed %s", fin, pushed)
	}
}
