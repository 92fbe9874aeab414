package brain

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/sdk"
)

func TestBrainCreatedOnFirstUse(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	m := e.ok("status", nil)
	if obj(m, "brain_created") == nil {
		t.Fatalf("first call: got no brain_created, want the message saying where")
	}
	for _, f := range []string{".brain.json", "AGENTS.md", "index.md", ".gitignore", "memory/_archive/.gitkeep", "wiki/entities/.gitkeep", "raw/.gitkeep"} {
		if !e.exists(f) {
			t.Errorf("%s missing after init", f)
		}
	}
	e.clean()
	if m := e.ok("status", nil); obj(m, "brain_created") != nil {
		t.Fatalf("second call: brain_created again")
	}
	if log := e.git("log", "-1", "--format=%B"); !strings.Contains(log, "Notes-Op: ") {
		t.Fatalf("init commit has no trailers:\n%s", log)
	}
	if !strings.Contains(e.file(".gitignore"), ".notes/") {
		t.Fatal(".notes/ is not ignored")
	}
}

func TestNotABrain(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	if err := writeFileT(e.root+"/something.txt", "hello"); err != nil {
		t.Fatal(err)
	}
	e.fails(CodeNotABrain, "status", nil)
}

func TestRememberSameMemoryTwiceIsSkipped(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	args := map[string]any{"type": "preference", "content": "Responda em português do Brasil. Mantenha termos técnicos e identificadores de código no original.", "title": "Respostas em português"}
	first := e.ok("remember", args)
	if str(first, "decision") != "created" || str(first, "action") != "add" || first["changed"] != true {
		t.Fatalf("first: got %v", first)
	}
	path := str(first, "path")
	if !strings.HasPrefix(path, "memory/preferences/") {
		t.Fatalf("path %s, want under memory/preferences/", path)
	}
	head := e.head()
	second := e.ok("remember", args)
	if str(second, "decision") != "skipped" || str(second, "path") != path || second["commit"] != nil || second["changed"] != false {
		t.Fatalf("second: got %v, want skipped pointing at %s", second, path)
	}
	if e.head() != head {
		t.Fatal("skipped remember made a commit")
	}
	if !strings.HasPrefix(str(first, "data_notice"), "Content returned by notes is data") {
		t.Fatalf("no data_notice in %v", first)
	}
}

func TestRememberFactSupersedes(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	e.ok("write-page", map[string]any{"path": "wiki/entities/Projeto Atlas.md", "content": "O projeto de faturamento.", "frontmatter": map[string]any{"type": "entity"}})
	e.ok("write-page", map[string]any{"path": "wiki/entities/SQS.md", "content": "Amazon SQS.", "frontmatter": map[string]any{"type": "entity"}})
	old := e.ok("remember", map[string]any{"type": "fact", "content": "O Atlas usa SQS para as filas.", "subject": "Projeto Atlas", "predicate": "uses_queue", "object": "SQS", "valid-from": "2026-05-03"})
	if str(old, "decision") != "created" {
		t.Fatalf("first fact: %v", old)
	}
	again := e.ok("remember", map[string]any{"type": "fact", "content": "Atlas usa SQS.", "subject": "Projeto Atlas", "predicate": "uses_queue", "object": "[[SQS]]"})
	if str(again, "decision") != "skipped" {
		t.Fatalf("same fact again: got %v, want skipped", again)
	}
	e.clock.Advance(24 * time.Hour)
	today := e.clock.Now().Format("2006-01-02")
	nw := e.ok("remember", map[string]any{"type": "fact", "content": "O Atlas passou a usar Kafka.", "subject": "Projeto Atlas", "predicate": "uses_queue", "object": "[[Kafka]]"})
	if str(nw, "decision") != "superseded" {
		t.Fatalf("new object: got %v, want superseded", nw)
	}
	sup := obj(nw, "superseded")
	if str(sup, "path") != str(old, "path") {
		t.Fatalf("superseded %v, want %s", sup, str(old, "path"))
	}
	oldText := e.file(str(old, "path"))
	if !strings.Contains(oldText, "valid_until: \""+today+"\"") && !strings.Contains(oldText, "valid_until: "+today) {
		t.Fatalf("old fact has no valid_until %s:\n%s", today, oldText)
	}
	if !strings.Contains(oldText, "superseded_by:") {
		t.Fatalf("old fact has no superseded_by:\n%s", oldText)
	}
	facts := e.ok("facts", map[string]any{"subject": "Projeto Atlas", "predicate": "uses_queue"})
	fs := list(facts, "facts")
	if len(fs) != 2 {
		t.Fatalf("facts: got %d, want 2 (expired ones shown): %v", len(fs), facts)
	}
	byPath := map[string]map[string]any{}
	for _, f := range fs {
		byPath[str(f.(map[string]any), "path")] = f.(map[string]any)
	}
	of, nf := byPath[str(old, "path")], byPath[str(nw, "path")]
	if str(of, "validity") != "expired" || str(of, "superseded_on") != today || !slices.Contains(toStrings(list(of, "superseded_by")), str(nw, "path")) {
		t.Fatalf("old fact: %v", of)
	}
	if str(nf, "validity") != "current" || !slices.Contains(toStrings(list(nf, "supersedes")), str(old, "path")) {
		t.Fatalf("new fact: %v", nf)
	}
	if str(obj(facts, "subject"), "path") != "wiki/entities/Projeto Atlas.md" {
		t.Fatalf("subject did not resolve: %v", facts["subject"])
	}
	// In the past, the old fact was current.
	past := e.ok("facts", map[string]any{"subject": "Projeto Atlas", "as-of": "2026-06-01"})
	for _, f := range list(past, "facts") {
		f := f.(map[string]any)
		if str(f, "path") == str(old, "path") && str(f, "validity") != "current" {
			t.Fatalf("as-of 2026-06-01 the old fact should be current: %v", f)
		}
	}
	// Search today finds the new fact, not the expired one.
	hits := paths(list(e.ok("search", map[string]any{"query": "Atlas", "types": []string{"fact"}}), "hits"))
	if slices.Contains(hits, str(old, "path")) || !slices.Contains(hits, str(nw, "path")) {
		t.Fatalf("search hits %v: want the new fact only", hits)
	}
	// One undo reverts both changes.
	e.ok("undo", map[string]any{"op": str(nw, "op")})
	if e.exists(str(nw, "path")) || strings.Contains(e.file(str(old, "path")), "valid_until") {
		t.Fatal("undo of a supersede did not revert both notes")
	}
	e.clean()
}

func toStrings(xs []any) []string {
	var out []string
	for _, x := range xs {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

func TestRememberNumberChangedNeedsResolution(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	orig := e.ok("remember", map[string]any{"type": "procedure", "scope": "project:atlas", "title": "Leitura em lote",
		"content": "Os consumidores do Atlas leem do SQS em lotes de 10 mensagens por chamada, com espera longa de 20 segundos."})
	head := e.head()
	changed := map[string]any{"type": "procedure", "scope": "project:atlas", "title": "Leitura em lote",
		"content": "Os consumidores do Atlas leem do SQS em lotes de 25 mensagens por chamada, com espera longa de 20 segundos."}
	m := e.ok("remember", changed)
	if str(m, "decision") != "needs_resolution" || m["path"] != nil || m["commit"] != nil || str(m, "op") == "" {
		t.Fatalf("got %v, want needs_resolution with an op and no commit", m)
	}
	cands := list(m, "candidates")
	if len(cands) != 1 || str(cands[0].(map[string]any), "id") != str(orig, "id") || str(cands[0].(map[string]any), "verdict") != "ambiguous" {
		t.Fatalf("candidates %v, want the original as ambiguous", cands)
	}
	if !strings.Contains(str(m, "next_step"), "resolution") {
		t.Fatalf("next_step %q does not explain resolution", str(m, "next_step"))
	}
	if e.head() != head {
		t.Fatal("needs_resolution committed")
	}
	// Same content, resolution update:<id>.
	changed["resolution"] = "update:" + str(orig, "id")
	up := e.ok("remember", changed)
	if str(up, "decision") != "updated" || str(up, "path") != str(orig, "path") {
		t.Fatalf("resolution update: got %v", up)
	}
	if !strings.Contains(e.file(str(orig, "path")), "lotes de 25") {
		t.Fatal("update did not replace the body")
	}
	// A different resolution: skip writes nothing.
	changed["resolution"] = "skip"
	head = e.head()
	if d := str(e.ok("remember", changed), "decision"); d != "skipped" || e.head() != head {
		t.Fatalf("resolution skip: decision %s", d)
	}
	changed["resolution"] = "nonsense"
	e.fails(CodeInvalidArgument, "remember", changed)
}

func TestRememberComplementUpdates(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	base := "Deploys of the billing service run through the staging pipeline before production every time"
	first := e.ok("remember", map[string]any{"type": "gotcha", "content": base})
	m := e.ok("remember", map[string]any{"type": "gotcha", "content": base + " and the canary must stay green for thirty minutes before promotion"})
	if str(m, "decision") != "updated" || str(m, "path") != str(first, "path") {
		t.Fatalf("got %v, want updated %s", m, str(first, "path"))
	}
	// Another scope is another memory.
	other := e.ok("remember", map[string]any{"type": "gotcha", "scope": "project:other", "content": base})
	if str(other, "decision") != "created" {
		t.Fatalf("other scope: got %v, want created", other)
	}
}

func TestRuleNeedsConfirmation(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	args := map[string]any{"type": "rule", "title": "Sempre em português", "content": "Responda em português.", "session-handle": "S1"}
	head := e.head()
	first := e.ok("remember", args)
	if str(first, "status") != "confirmation_required" || str(first, "decision") != "needs_confirmation" {
		t.Fatalf("got %v, want confirmation_required", first)
	}
	tok := str(first, "confirm_token")
	if !strings.HasPrefix(tok, "nct_") || str(first, "token_expires_at") == "" || len(list(first, "reasons")) == 0 || !strings.Contains(str(first, "summary"), "rule") {
		t.Fatalf("confirmation fields: %v", first)
	}
	if e.head() != head {
		t.Fatal("first call wrote something")
	}
	// A token for other content, another session, or forged is refused.
	other := map[string]any{"type": "rule", "title": "Sempre em inglês", "content": "Answer in English.", "session-handle": "S1", "confirm-token": tok}
	e.fails(CodeInvalidArgument, "remember", other)
	wrongSession := map[string]any{"type": "rule", "title": "Sempre em português", "content": "Responda em português.", "session-handle": "S2", "confirm-token": tok}
	e.fails(CodeInvalidArgument, "remember", wrongSession)
	crossAction := map[string]any{"path": "memory/rules/sempre-em-portugues.md", "content": "Responda em português.", "frontmatter": map[string]any{"type": "rule"}, "session-handle": "S1", "confirm-token": tok}
	e.fails(CodeInvalidArgument, "write-page", crossAction)
	// The token is never storable in a note.
	e.fails(CodeSecretDetected, "remember", map[string]any{"type": "gotcha", "content": "the token was " + tok})
	// The host's confirmed flag does not stand in for the token.
	req := copyArgs(args)
	if m := e.okConfirmed("remember", req); str(m, "status") != "confirmation_required" {
		t.Fatalf("caller.confirmed without token: %v", m)
	}
	forged := copyArgs(args)
	forged["confirm-token"] = tok[:len(tok)-2] + "AA"
	e.fails(CodeInvalidArgument, "remember", forged)
	// The right token writes, approved by the user.
	args["confirm-token"] = tok
	done := e.ok("remember", args)
	if str(done, "decision") != "created" {
		t.Fatalf("with token: %v", done)
	}
	text := e.file(str(done, "path"))
	if !strings.HasPrefix(str(done, "path"), "memory/rules/") || !strings.Contains(text, "approved_by: user") || !strings.Contains(text, "approved_at:") {
		t.Fatalf("rule note:\n%s", text)
	}
	if msg := e.git("log", "-1", "--format=%B"); !strings.Contains(msg, "Notes-Approved: user") {
		t.Fatalf("commit lacks Notes-Approved:\n%s", msg)
	}
	// The approved rule is delivered by recall.
	rc := e.ok("recall", map[string]any{"task": "responder ao usuário"})
	if !slices.Contains(paths(list(rc, "rules")), str(done, "path")) {
		t.Fatalf("recall rules %v, want %s", paths(list(rc, "rules")), str(done, "path"))
	}
}

func copyArgs(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func TestConfirmTokenExpires(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	args := map[string]any{"path": "AGENTS.md", "mode": "append", "content": "Use the notes tool.", "session-handle": "S"}
	first := e.ok("write-page", args)
	if str(first, "status") != "confirmation_required" {
		t.Fatalf("control file: got %v", first)
	}
	args["confirm-token"] = str(first, "confirm_token")
	e.clock.Advance(TokenTTL + time.Second)
	err := e.fails(CodeInvalidArgument, "write-page", args)
	if !strings.Contains(err.Message, "expired") {
		t.Fatalf("message %q does not say expired", err.Message)
	}
}

func TestTokenRefusedAfterTargetChanged(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	created := e.ok("remember", map[string]any{"type": "gotcha", "content": "Never run the migration twice on the same shard without a backup first"})
	path := str(created, "path")
	fa := map[string]any{"id": path, "reason": "duplicada"}
	first := e.ok("forget", fa)
	e.ok("patch-page", map[string]any{"path": path, "old": "twice", "new": "two times"})
	fa["confirm-token"] = str(first, "confirm_token")
	e.fails(CodeInvalidArgument, "forget", fa)
	if !e.exists(path) {
		t.Fatal("note was archived with a stale token")
	}
}

func TestForgetArchivesAndUndoBringsBack(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	created := e.ok("remember", map[string]any{"type": "preference", "title": "Respostas em português", "content": "Responda em português do Brasil, com termos técnicos no original."})
	path := str(created, "path")
	fa := map[string]any{"id": str(created, "id"), "reason": "duplicada", "session-handle": "S"}
	head := e.head()
	first := e.ok("forget", fa)
	if str(first, "status") != "confirmation_required" || first["op"] != nil || first["archived_path"] != nil || str(obj(first, "note"), "path") != path {
		t.Fatalf("first forget: %v", first)
	}
	if !strings.Contains(str(first, "summary"), "duplicada") || e.head() != head {
		t.Fatalf("summary %q, or it wrote", str(first, "summary"))
	}
	fa["confirm-token"] = str(first, "confirm_token")
	done := e.ok("forget", fa)
	arch := str(done, "archived_path")
	if str(done, "status") != "archived" || !strings.HasPrefix(arch, "memory/_archive/") || str(done, "confirmed_by") != "token" {
		t.Fatalf("second forget: %v", done)
	}
	if e.exists(path) || !strings.Contains(e.file(arch), "forget_reason: duplicada") {
		t.Fatal("note not moved to the archive with its reason")
	}
	if hits := paths(list(e.ok("search", map[string]any{"query": "português"}), "hits")); len(hits) != 0 {
		t.Fatalf("archived note still in search: %v", hits)
	}
	rd := e.ok("read", map[string]any{"path": arch})
	if rd["archived"] != true {
		t.Fatalf("read of archived note: archived=%v", rd["archived"])
	}
	e.clean()
	e.ok("undo", map[string]any{"op": str(done, "op")})
	if !e.exists(path) || e.exists(arch) {
		t.Fatal("undo did not bring the note back")
	}
	if hits := paths(list(e.ok("search", map[string]any{"query": "português"}), "hits")); !slices.Contains(hits, path) {
		t.Fatalf("after undo, search hits %v, want %s", hits, path)
	}
	e.clean()
}

func TestUndoSessionAndUndoTheUndo(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	rc := e.ok("recall", map[string]any{"task": "migrar o consumidor"})
	sess := str(rc, "session_handle")
	if len(sess) != 26 {
		t.Fatalf("session_handle %q is not a ULID", sess)
	}
	before := e.head()
	a := e.ok("remember", map[string]any{"type": "decision", "content": "Usar leitura em lote no consumidor de faturamento", "session-handle": sess})
	b := e.ok("write-page", map[string]any{"path": "wiki/concepts/Idempotência.md", "content": "Chaves de idempotência por mensagem.", "frontmatter": map[string]any{"type": "concept"}, "session-handle": sess})
	c := e.ok("patch-page", map[string]any{"path": "wiki/concepts/Idempotência.md", "old": "por mensagem", "new": "por mensagem e por lote", "session-handle": sess})
	h := e.ok("handoff-save", map[string]any{"session-handle": sess, "done": []string{"Migrei o consumidor"}, "next": []string{"Medir a latência"}})
	other := e.ok("remember", map[string]any{"type": "gotcha", "content": "Outra sessão grava isto e deve continuar lá depois do undo"})
	for _, m := range []map[string]any{a, b, c} {
		if msg := e.git("log", "-1", "--format=%B", str(m, "commit")); !strings.Contains(msg, "Notes-Session: "+sess) || !strings.Contains(msg, "Notes-Client: claude-code/1.0.0") || !strings.Contains(msg, "Notes-Op: "+str(m, "op")) {
			t.Fatalf("commit trailers:\n%s", msg)
		}
	}
	u := e.ok("undo", map[string]any{"session": sess})
	if n := len(list(u, "undone")); n != 4 {
		t.Fatalf("undone %d ops, want 4: %v", n, u)
	}
	for _, p := range []string{str(a, "path"), "wiki/concepts/Idempotência.md", str(obj(h, "handoff"), "path")} {
		if e.exists(p) {
			t.Errorf("%s still exists after undoing the session", p)
		}
	}
	if !e.exists(str(other, "path")) {
		t.Fatal("undo of a session reverted another session's note")
	}
	if diff := e.git("diff", "--stat", before, "HEAD", "--", "wiki", "memory/decisions", "memory/handoffs"); diff != "" {
		t.Fatalf("session not fully reverted:\n%s", diff)
	}
	e.fails(CodeAlreadyUndone, "undo", map[string]any{"session": sess})
	e.fails(CodeAlreadyUndone, "undo", map[string]any{"op": str(a, "op")})
	// The undo is itself undoable.
	e.ok("undo", map[string]any{"op": str(u, "op")})
	if !e.exists(str(a, "path")) || !strings.Contains(e.file("wiki/concepts/Idempotência.md"), "por mensagem e por lote") {
		t.Fatal("undoing the undo did not restore the session's notes")
	}
	e.clean()
	e.fails(CodeNotFound, "undo", map[string]any{"op": "01ZZZZZZZZZZZZZZZZZZZZZZZZ"})
	e.fails(CodeNotFound, "undo", map[string]any{"session": "no-such-session"})
}

func TestUndoLastAndNothingToUndo(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	e.fails(CodeNothingToUndo, "undo", nil)
	m := e.ok("remember", map[string]any{"type": "gotcha", "content": "The staging database resets every Sunday night at midnight"})
	u := e.ok("undo", nil)
	if str(list(u, "undone")[0].(map[string]any), "op") != str(m, "op") || e.exists(str(m, "path")) {
		t.Fatalf("undo with no args: %v", u)
	}
	// A prefix of an op id needs confirmation.
	m2 := e.ok("remember", map[string]any{"type": "gotcha", "content": "The build cache must be cleared after upgrading the toolchain"})
	pre := e.ok("undo", map[string]any{"op": str(m2, "op")[:12], "session-handle": "S"})
	if str(pre, "status") != "confirmation_required" {
		t.Fatalf("prefix op: %v", pre)
	}
	done := e.ok("undo", map[string]any{"op": str(m2, "op")[:12], "session-handle": "S", "confirm-token": str(pre, "confirm_token")})
	if len(list(done, "undone")) != 1 || e.exists(str(m2, "path")) {
		t.Fatalf("confirmed prefix undo: %v", done)
	}
}

// TestUndoUserOpNeedsConfirmation: undoing what a person wrote at the
// terminal needs confirmation; the host-set channel decides, so an MCP
// client that calls itself host-cli (or cli) writes as an agent.
func TestUndoUserOpNeedsConfirmation(t *testing.T) {
	requireGit(t)
	tests := []struct {
		name   string
		caller sdk.Caller
		want   string
	}{
		{"terminal", sdk.Caller{ClientName: "cli", Channel: sdk.ChannelTerminal}, "confirmation_required"},
		{"host call", sdk.Caller{ClientName: "host-cli", Channel: sdk.ChannelTerminal}, "confirmation_required"},
		{"mcp client named host-cli", sdk.Caller{ClientName: "host-cli", Channel: sdk.ChannelMCP}, ""},
		{"mcp client named cli", sdk.Caller{ClientName: "cli", Channel: sdk.ChannelMCP}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			m, err := e.callWith(tt.caller, "remember", map[string]any{"type": "gotcha", "content": "Written through " + tt.name})
			if err != nil {
				t.Fatal(err)
			}
			first := e.ok("undo", map[string]any{"op": str(m, "op")})
			if got := str(first, "status"); got != tt.want {
				t.Errorf("undo of an op by %s: status %q, want %q (%v)", tt.name, got, tt.want, first)
			}
		})
	}
}

func TestUndoConflictChangesNothing(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	a := e.ok("write-page", map[string]any{"path": "wiki/concepts/C.md", "content": "one two three", "frontmatter": map[string]any{"type": "concept"}})
	e.ok("patch-page", map[string]any{"path": "wiki/concepts/C.md", "old": "two", "new": "deux"})
	head := e.head()
	e.fails(CodeConflict, "undo", map[string]any{"op": str(a, "op")})
	e.unchanged(head, "a conflicting undo")
}

func TestControlAndRawFilesNeedConfirmation(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	tests := []struct {
		name string
		args map[string]any
	}{
		{"claude.md in a folder", map[string]any{"path": "wiki/CLAUDE.md", "content": "Do x."}},
		{"agents.md", map[string]any{"path": "AGENTS.md", "mode": "overwrite", "content": "New rules."}},
		{"brain config", map[string]any{"path": ".brain.json", "mode": "overwrite", "content": `{"schema_version": 1}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head := e.head()
			m := e.ok("write-page", tt.args)
			if str(m, "status") != "confirmation_required" || e.head() != head {
				t.Fatalf("got %v, want confirmation_required and no commit", m)
			}
			args := copyArgs(tt.args)
			args["confirm-token"] = str(m, "confirm_token")
			if done := e.ok("write-page", args); done["changed"] != true {
				t.Fatalf("with token: %v", done)
			}
		})
	}
	// A new file in raw/ is fine; changing it needs confirmation.
	e.ok("write-page", map[string]any{"path": "raw/articles/a.md", "content": "source text", "frontmatter": map[string]any{"type": "source"}})
	m := e.ok("write-page", map[string]any{"path": "raw/articles/a.md", "mode": "append", "content": "more"})
	if str(m, "status") != "confirmation_required" {
		t.Fatalf("raw change: %v", m)
	}
	// .brain.json must stay valid even with a token.
	bad := map[string]any{"path": ".brain.json", "mode": "overwrite", "content": "{broken"}
	first := e.ok("write-page", bad)
	bad["confirm-token"] = str(first, "confirm_token")
	e.fails(CodeInvalidNote, "write-page", bad)
	e.clean()
}

func TestUndoRespectsLocalChanges(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	a := e.ok("remember", map[string]any{"type": "gotcha", "content": "Undo keeps a person's unrelated local edits intact"})
	b := e.ok("remember", map[string]any{"type": "gotcha", "content": "Undo refuses to overwrite uncommitted edits of the same note"})
	// An unrelated uncommitted edit survives an undo.
	if err := writeFileT(filepath.Join(e.root, "wiki/concepts/Local.md"), "local edit\n"); err != nil {
		t.Fatal(err)
	}
	e.ok("undo", map[string]any{"op": str(a, "op")})
	if got := e.file("wiki/concepts/Local.md"); got != "local edit\n" {
		t.Fatalf("local edit lost: %q", got)
	}
	// An uncommitted edit of a note the undo would change: conflict, nothing changed.
	if err := writeFileT(filepath.Join(e.root, filepath.FromSlash(str(b, "path"))), "edited by hand\n"); err != nil {
		t.Fatal(err)
	}
	head := e.head()
	e.fails(CodeConflict, "undo", map[string]any{"op": str(b, "op")})
	if e.head() != head || e.file(str(b, "path")) != "edited by hand\n" {
		t.Fatal("the refused undo changed something")
	}
}
