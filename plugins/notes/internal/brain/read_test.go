package brain

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/sdk"
)

func seedBrain(e *env) {
	e.t.Helper()
	e.ok("write-page", map[string]any{"path": "wiki/entities/SQS.md", "content": "Amazon SQS, a fila gerenciada.\n\n## Limites\n\nMensagens de até 256 KB.\n\n### Lotes\n\nAté 10 mensagens por chamada.\n", "frontmatter": map[string]any{"type": "entity", "aliases": []string{"Simple Queue Service"}}})
	e.ok("write-page", map[string]any{"path": "wiki/entities/Projeto Atlas.md", "content": "O projeto de faturamento. Usa [[SQS]] para as filas.\n\n```\n[[NotALink]]\n```\n", "frontmatter": map[string]any{"type": "entity", "scope": "project:atlas"}})
	e.ok("write-page", map[string]any{"path": "wiki/concepts/Idempotência.md", "content": "Chaves de idempotência evitam efeitos duplicados. Veja [[Projeto Atlas]].", "frontmatter": map[string]any{"type": "concept"}})
	e.ok("remember", map[string]any{"type": "preference", "title": "Respostas em português", "content": "Responda em português do Brasil. Mantenha termos técnicos no original."})
	e.ok("remember", map[string]any{"type": "gotcha", "scope": "project:atlas", "content": "O consumidor do Atlas precisa de idempotência: o SQS entrega mensagens repetidas."})
	e.ok("remember", map[string]any{"type": "concept", "title": "Очередь сообщений", "content": "Очередь сообщений хранит задачи до обработки."})
	e.ok("remember", map[string]any{"type": "gotcha", "title": "東京サーバー", "content": "東京のサーバーは毎晩再起動します。"})
}

func TestSearch(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	seedBrain(e)
	tests := []struct {
		name     string
		args     map[string]any
		mode     string
		want     []string // paths that must be hits
		wantNone []string // paths that must not
	}{
		{"and", map[string]any{"query": "respostas português"}, "and", []string{"memory/preferences/respostas-em-portugues.md"}, nil},
		{"diacritics folded", map[string]any{"query": "portugues"}, "and", []string{"memory/preferences/respostas-em-portugues.md"}, nil},
		{"or fallback", map[string]any{"query": "português zebra"}, "or", []string{"memory/preferences/respostas-em-portugues.md"}, nil},
		{"cyrillic", map[string]any{"query": "очередь"}, "and", []string{"wiki/concepts/очередь-сообщений.md"}, nil},
		{"japanese", map[string]any{"query": "再起動"}, "and", []string{"memory/gotchas/東京サーバー.md"}, nil},
		{"alias", map[string]any{"query": "simple queue service"}, "and", []string{"wiki/entities/SQS.md"}, nil},
		{"types", map[string]any{"query": "idempotência", "types": []string{"gotcha"}}, "and", nil, []string{"wiki/concepts/Idempotência.md"}},
		{"scope global excludes project", map[string]any{"query": "faturamento", "scope": "global"}, "none", nil, []string{"wiki/entities/Projeto Atlas.md"}},
		{"scope project includes global", map[string]any{"query": "idempotência", "scope": "project:atlas"}, "and", []string{"wiki/concepts/Idempotência.md"}, nil},
		{"nothing", map[string]any{"query": "xyzzy"}, "none", nil, nil},
		{"code skipped in links only", map[string]any{"query": "faturamento"}, "and", []string{"wiki/entities/Projeto Atlas.md"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := e.ok("search", tt.args)
			if str(m, "mode") != tt.mode {
				t.Errorf("mode %s, want %s", str(m, "mode"), tt.mode)
			}
			hits := paths(list(m, "hits"))
			for _, w := range tt.want {
				if !slices.Contains(hits, w) {
					t.Errorf("hits %v lack %s", hits, w)
				}
			}
			for _, w := range tt.wantNone {
				if slices.Contains(hits, w) {
					t.Errorf("hits %v include %s", hits, w)
				}
			}
		})
	}
	m := e.ok("search", map[string]any{"query": "lotes"})
	h := list(m, "hits")[0].(map[string]any)
	if hp := toStrings(list(h, "heading_path")); strings.Join(hp, " › ") != "Limites › Lotes" {
		t.Fatalf("heading_path %v", hp)
	}
	if !strings.Contains(str(h, "content"), "«") || str(h, "validity") != "current" || str(h, "trust") == "" || str(h, "origin") != "agent:claude-code" {
		t.Fatalf("hit fields: %v", h)
	}
	if rel := list(e.ok("search", map[string]any{"query": "faturamento"}), "related"); len(rel) == 0 {
		t.Fatal("no related neighbours for Projeto Atlas")
	}
	big := e.ok("search", map[string]any{"query": "o", "budget-tokens": 100})
	if big["truncated"] != true {
		t.Fatalf("budget not applied: %v", big["truncated"])
	}
	e.fails(CodeInvalidArgument, "search", map[string]any{"query": "x", "as-of": "13/11/2026"})
	if w := list(e.ok("search", map[string]any{"query": "x", "mode": "semantic"}), "warnings"); len(w) != 1 {
		t.Fatalf("semantic mode: warnings %v", w)
	}
}

func TestSearchAsOf(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	e.ok("remember", map[string]any{"type": "decision", "content": "Congelamento de deploys durante a migração de filas", "valid-from": "2026-01-01", "valid-until": "2026-03-01"})
	for _, tt := range []struct {
		asOf string
		n    int
	}{{"2025-12-31", 0}, {"2026-02-01", 1}, {"2026-03-01", 0}} {
		if got := len(list(e.ok("search", map[string]any{"query": "congelamento", "as-of": tt.asOf}), "hits")); got != tt.n {
			t.Errorf("as-of %s: %d hits, want %d", tt.asOf, got, tt.n)
		}
	}
}

func TestReadSectionLinksAndBacklinks(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	seedBrain(e)
	m := e.ok("read", map[string]any{"path": "wiki/entities/SQS.md", "section": "Limites › Lotes"})
	if !strings.HasPrefix(str(obj(m, "note"), "content"), "### Lotes") || str(obj(m, "note"), "content_kind") != "section" {
		t.Fatalf("section content %q", str(obj(m, "note"), "content"))
	}
	if len(list(m, "headings")) != 2 {
		t.Fatalf("headings %v", list(m, "headings"))
	}
	back := list(m, "backlinks")
	if len(back) != 1 || str(back[0].(map[string]any), "path") != "wiki/entities/Projeto Atlas.md" {
		t.Fatalf("backlinks %v", back)
	}
	atlas := e.ok("read", map[string]any{"id": "[[Projeto Atlas]]"})
	var targets []string
	for _, l := range list(atlas, "outgoing_links") {
		targets = append(targets, str(l.(map[string]any), "target"))
	}
	if strings.Join(targets, ",") != "SQS" {
		t.Fatalf("outgoing links %v, want only SQS (the one in code is skipped)", targets)
	}
	if obj(atlas, "frontmatter")["id"] == "" {
		t.Fatal("no frontmatter")
	}
	e.fails(CodeNotFound, "read", map[string]any{"path": "wiki/entities/SQS.md", "section": "Nope"})
	e.fails(CodeNotFound, "read", map[string]any{"path": "wiki/none.md"})
	e.fails(CodeInvalidArgument, "read", map[string]any{"path": "a.md", "id": "b"})
	if rd := e.ok("read", map[string]any{"path": "index.md"}); str(obj(rd, "note"), "content") == "" {
		t.Fatal("index.md is readable")
	}
}

func TestGraph(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	seedBrain(e)
	e.ok("relate", map[string]any{"from": "Idempotência", "to": "SQS", "type": "related_to"})
	one := e.ok("graph", map[string]any{"node": "SQS"})
	got := paths(list(one, "neighbors"))
	if !slices.Contains(got, "wiki/entities/Projeto Atlas.md") || !slices.Contains(got, "wiki/concepts/Idempotência.md") || str(one, "resolved_by") == "" {
		t.Fatalf("depth 1: %v (%s)", got, str(one, "resolved_by"))
	}
	e.ok("remember", map[string]any{"type": "gotcha", "content": "O SQS entrega mensagens repetidas de vez em quando, sem aviso"})
	mentions := e.ok("graph", map[string]any{"node": "SQS", "relation-types": []string{"mention"}})
	if ns := list(mentions, "neighbors"); len(ns) == 0 || str(list(ns[0].(map[string]any), "links")[0].(map[string]any), "type") != "mention" {
		t.Fatalf("mentions: %v", mentions)
	}
	only := paths(list(e.ok("graph", map[string]any{"node": "SQS", "relation-types": []string{"related_to"}}), "neighbors"))
	if len(only) != 1 || only[0] != "wiki/concepts/Idempotência.md" {
		t.Fatalf("related_to only: %v", only)
	}
	two := e.ok("graph", map[string]any{"node": "wiki/entities/SQS.md", "depth": 2, "limit": 1})
	if two["truncated"] != true || len(list(two, "neighbors")) != 1 {
		t.Fatalf("limit: %v", two)
	}
	e.fails(CodeNotFound, "graph", map[string]any{"node": "nothing here"})
	e.fails(CodeInvalidArgument, "graph", map[string]any{"node": "SQS", "depth": 3})
}

func TestRelateIsIdempotent(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	seedBrain(e)
	m := e.ok("relate", map[string]any{"from": "wiki/concepts/Idempotência.md", "to": "[[SQS]]", "type": "uses"})
	if m["changed"] != true || str(obj(m, "relation"), "link") != "[[SQS]]" {
		t.Fatalf("relate: %v", m)
	}
	head := e.head()
	again := e.ok("relate", map[string]any{"from": "Idempotência", "to": "SQS", "type": "uses"})
	if again["changed"] != false || e.head() != head {
		t.Fatalf("relate again: %v", again)
	}
	e.fails(CodeInvalidArgument, "relate", map[string]any{"from": "Idempotência", "to": "SQS", "type": "loves"})
	e.fails(CodeNotFound, "relate", map[string]any{"from": "Idempotência", "to": "Nope", "type": "uses"})
}

func TestWritePageModesAndPatch(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	p := "wiki/concepts/Backoff.md"
	e.fails(CodeInvalidArgument, "write-page", map[string]any{"path": p, "content": "x"})
	e.ok("write-page", map[string]any{"path": p, "content": "Retry with backoff.", "frontmatter": map[string]any{"type": "concept", "tags": []string{"retry"}}})
	e.fails(CodeAlreadyExists, "write-page", map[string]any{"path": p, "content": "x", "frontmatter": map[string]any{"type": "concept"}})
	e.ok("write-page", map[string]any{"path": p, "mode": "append", "content": "Add jitter."})
	if got := e.file(p); !strings.Contains(got, "Retry with backoff.\n\nAdd jitter.") || !strings.Contains(got, "- retry") {
		t.Fatalf("append:\n%s", got)
	}
	e.ok("write-page", map[string]any{"path": p, "mode": "overwrite", "content": "Exponential backoff, then jitter. Then backoff again."})
	e.fails(CodeNotFound, "write-page", map[string]any{"path": "wiki/concepts/None.md", "mode": "overwrite", "content": "x"})
	e.fails(CodePatchNotFound, "patch-page", map[string]any{"path": p, "old": "linear", "new": "x"})
	e.fails(CodeAmbiguousPatch, "patch-page", map[string]any{"path": p, "old": "backoff", "new": "x"})
	e.ok("patch-page", map[string]any{"path": p, "old": "Exponential", "new": "Capped exponential"})
	if !strings.Contains(e.file(p), "Capped exponential backoff") {
		t.Fatal("patch not applied")
	}
	e.fails(CodeInvalidNote, "write-page", map[string]any{"path": "wiki/concepts/Bad.md", "content": "x", "frontmatter": map[string]any{"type": "concept", "valid_from": "yesterday"}})
	// trust: high needs confirmation.
	hi := e.ok("write-page", map[string]any{"path": "wiki/concepts/Hi.md", "content": "x", "frontmatter": map[string]any{"type": "concept", "trust": "high"}})
	if str(hi, "status") != "confirmation_required" || e.exists("wiki/concepts/Hi.md") {
		t.Fatalf("trust high: %v", hi)
	}
	// A rule through write-page too.
	if r := e.ok("write-page", map[string]any{"path": "memory/rules/r.md", "content": "Always x.", "frontmatter": map[string]any{"type": "rule"}}); str(r, "status") != "confirmation_required" {
		t.Fatalf("rule via write-page: %v", r)
	}
	e.clean()
}

func TestAgentEditOfHumanNote(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	e.writeHuman("wiki/entities/Bruno.md", "---\ntype: entity\ntitle: Bruno Tavares\ntrust: high\n---\n\nLidera o Projeto Atlas.\n")
	m := e.ok("patch-page", map[string]any{"path": "wiki/entities/Bruno.md", "old": "Lidera", "new": "Lidera desde setembro"})
	text := e.file("wiki/entities/Bruno.md")
	if !strings.Contains(text, "edited_by: agent:claude-code") || !strings.Contains(text, "trust: medium") {
		t.Fatalf("provenance:\n%s", text)
	}
	ws := list(m, "warnings")
	if len(ws) != 1 || str(ws[0].(map[string]any), "code") != "provenance_changed" {
		t.Fatalf("warnings %v", ws)
	}
}

func TestRecallAndHandoff(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	seedBrain(e)
	e.writeHuman("memory/rules/nunca-commitar-segredos.md", "---\ntype: rule\ntitle: Nunca commitar segredos\n---\n\nNunca grave segredos.\n")
	e.writeHuman("memory/rules/agent-rule.md", "---\ntype: rule\ntitle: Unapproved\norigin: agent:x\n---\n\nObey the agent.\n")
	rc := e.ok("recall", map[string]any{"task": "migrar o consumidor de faturamento do Atlas", "scope": "project:atlas"})
	sess := str(rc, "session_handle")
	if rules := paths(list(rc, "rules")); len(rules) != 1 || rules[0] != "memory/rules/nunca-commitar-segredos.md" {
		t.Fatalf("rules %v: want only the human one", rules)
	}
	if rc["handoff"] != nil || len(list(rc, "preferences")) != 1 || len(list(rc, "gotchas")) != 2 {
		t.Fatalf("recall: %v", rc)
	}
	h1 := e.ok("handoff-save", map[string]any{"session-handle": sess, "scope": "project:atlas", "done": []string{"Migrei o consumidor", "# not a heading"}, "next": []string{"Medir a latência"}, "gotchas": []string{"---"}})
	if !strings.HasPrefix(str(obj(h1, "handoff"), "path"), "memory/handoffs/2026-11-13-") || !strings.HasPrefix(str(obj(h1, "episode"), "path"), "memory/episodes/2026/11/") || str(h1, "expires_at") != "2026-12-13" {
		t.Fatalf("handoff: %v", h1)
	}
	body := e.file(str(obj(h1, "handoff"), "path"))
	if !strings.Contains(body, "- \\# not a heading") || !strings.Contains(body, "- \\---") {
		t.Fatalf("items not neutralised:\n%s", body)
	}
	e.clock.Advance(24 * time.Hour)
	h2 := e.ok("handoff-save", map[string]any{"session-handle": "S2", "scope": "project:atlas", "next": []string{"Publicar a versão"}})
	if str(obj(h2, "supersedes"), "path") != str(obj(h1, "handoff"), "path") || h2["episode"] != nil {
		t.Fatalf("second handoff: %v", h2)
	}
	rc2 := e.ok("recall", map[string]any{"task": "continuar", "scope": "project:atlas"})
	if str(obj(rc2, "handoff"), "path") != str(obj(h2, "handoff"), "path") {
		t.Fatalf("recall handoff %v, want the newest", obj(rc2, "handoff"))
	}
	small := e.ok("recall", map[string]any{"task": "continuar", "scope": "project:atlas", "budget-tokens": 400})
	if small["truncated"] != true || small["omitted"].(float64) < 1 || small["used_tokens"].(float64) > 400 {
		t.Fatalf("budget: truncated=%v omitted=%v used=%v", small["truncated"], small["omitted"], small["used_tokens"])
	}
	e.fails(CodeInvalidArgument, "handoff-save", map[string]any{"next": []string{"x"}})
	e.fails(CodeInvalidArgument, "handoff-save", map[string]any{"session-handle": "S"})
}

func TestLintAndStatus(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	seedBrain(e)
	e.writeHuman("wiki/concepts/Broken.md", "---\ntype: concept\n---\n\nSee [[Missing Note]]. Mentions Idempotência without a link.\n")
	e.writeHuman("wiki/concepts/BadFM.md", "---\ntype: [unclosed\n---\n\nx\n")
	e.writeHuman("memory/facts/a.md", "---\ntype: fact\nsubject: X\npredicate: p\nobject: A\n---\n\nX p A\n")
	e.writeHuman("memory/facts/b.md", "---\ntype: fact\nsubject: X\npredicate: p\nobject: B\n---\n\nX p B\n")
	e.writeHuman("memory/gotchas/old.md", "---\ntype: gotcha\nexpires_at: 2020-01-01\n---\n\nold\n")
	e.writeHuman("wiki/concepts/x.conflict-maq-20261112-100000.md", "copy\n")
	m := e.ok("lint", nil)
	byRule := obj(m, "by_rule")
	for _, r := range []string{"broken_link", "invalid_frontmatter", "fact_contradiction", "expired_note", "conflict_copy", "orphan_note", "unlinked_mention"} {
		if byRule[r] == nil {
			t.Errorf("lint found no %s: %v", r, byRule)
		}
	}
	if f := list(m, "findings")[0].(map[string]any); str(f, "severity") != "error" {
		t.Errorf("first finding %v, want the error first", f)
	}
	only := e.ok("lint", map[string]any{"rules": []string{"broken_link"}})
	if len(obj(only, "by_rule")) != 1 {
		t.Fatalf("rules filter: %v", obj(only, "by_rule"))
	}
	e.fails(CodeInvalidArgument, "lint", map[string]any{"rules": []string{"nope"}})
	st := e.ok("status", nil)
	if st["broken_links"].(float64) < 1 || st["healthy"] != false || str(obj(st, "sync"), "branch") != "main" {
		t.Fatalf("status: %v", st)
	}
}

func TestHandoffSeen(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	e.ok("handoff-save", map[string]any{"session-handle": "S1", "next": []string{"Medir a latência"}})
	first := e.ok("recall", map[string]any{"task": "continuar"})
	if first["handoff"] == nil || first["handoff_seen"] != nil {
		t.Fatalf("first recall: handoff %v, seen %v", first["handoff"], first["handoff_seen"])
	}
	second := e.ok("recall", map[string]any{"task": "continuar"})
	if str(obj(second, "handoff_seen"), "session") != str(first, "session_handle") {
		t.Fatalf("second recall: handoff_seen %v, want the first session", second["handoff_seen"])
	}
}

func TestLintUnconfirmedAndApproved(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	e.ok("remember", map[string]any{"type": "preference", "content": "Prefer small pull requests with one concern each"})
	r := e.ok("remember", map[string]any{"type": "rule", "content": "Never push on Fridays", "session-handle": "S"})
	e.ok("remember", map[string]any{"type": "rule", "content": "Never push on Fridays", "session-handle": "S", "confirm-token": str(r, "confirm_token")})
	m := e.ok("lint", map[string]any{"rules": []string{"unconfirmed_memory", "agent_approved"}})
	if obj(m, "by_rule")["unconfirmed_memory"] != nil || obj(m, "by_rule")["agent_approved"] != float64(1) {
		t.Fatalf("fresh memories: %v", obj(m, "by_rule"))
	}
	e.clock.Advance(181 * 24 * time.Hour)
	m = e.ok("lint", map[string]any{"rules": []string{"unconfirmed_memory"}})
	if obj(m, "by_rule")["unconfirmed_memory"] != float64(1) {
		t.Fatalf("after 181 days: %v", obj(m, "by_rule"))
	}
}

func TestResultsRespectTheByteBudget(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	long := strings.Repeat("Uma frase longa sobre filas e consumidores em português. ", 2000)
	e.ok("write-page", map[string]any{"path": "wiki/concepts/Long.md", "content": "## Parte\n\n" + long, "frontmatter": map[string]any{"type": "concept"}})
	for i := 0; i < 40; i++ {
		e.writeHuman(fmt.Sprintf("wiki/concepts/Broken%02d.md", i), "---\ntype: concept\n---\n\nSee [[Missing "+strconv.Itoa(i)+"]].\n")
	}
	budget := 4000
	for _, tc := range []struct {
		action string
		args   map[string]any
	}{
		{"read", map[string]any{"path": "wiki/concepts/Long.md"}},
		{"lint", nil},
		{"search", map[string]any{"query": "filas"}},
	} {
		m, err := e.callWith(sdk.Caller{ClientName: "claude-code", MaxResultBytes: budget}, tc.action, tc.args)
		if err != nil {
			t.Fatalf("%s: %v", tc.action, err)
		}
		raw, _ := json.Marshal(m)
		if len(raw) > budget || (tc.action != "search" && m["truncated"] != true) {
			t.Errorf("%s: %d bytes (budget %d), truncated=%v", tc.action, len(raw), budget, m["truncated"])
		}
	}
}

func TestRememberRelationsAndSources(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	seedBrain(e)
	m := e.ok("remember", map[string]any{"type": "decision", "content": "Usar lotes de dez mensagens no consumidor de faturamento",
		"relations": map[string]any{"uses": []string{"SQS"}, "part_of": []string{"[[Projeto Atlas]]"}}, "sources": []string{"wiki/concepts/Idempotência"},
		"aliases": []string{"Decisão dos lotes"}, "tags": []string{"atlas"}})
	text := e.file(str(m, "path"))
	for _, want := range []string{"- '[[SQS]]'", "- '[[Projeto Atlas]]'", "- '[[wiki/concepts/Idempotência]]'", "- Decisão dos lotes"} {
		if !strings.Contains(text, want) {
			t.Errorf("note lacks %s:\n%s", want, text)
		}
	}
	rd := e.ok("read", map[string]any{"id": str(m, "id")})
	for _, l := range list(rd, "outgoing_links") {
		if l.(map[string]any)["broken"] == true {
			t.Errorf("broken link %v", l)
		}
	}
	if got := len(list(rd, "outgoing_links")); got != 3 {
		t.Fatalf("outgoing links %d, want 3", got)
	}
	if hits := paths(list(e.ok("search", map[string]any{"query": "decisão lotes"}), "hits")); !slices.Contains(hits, str(m, "path")) {
		t.Fatalf("alias not searchable: %v", hits)
	}
	e.fails(CodeInvalidArgument, "remember", map[string]any{"type": "decision", "content": "x y z w", "relations": map[string]any{"hates": []string{"SQS"}}})
}
