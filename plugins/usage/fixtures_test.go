package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// TestGeminiFixture reads Gemini CLI chats in both recorded formats.
func TestGeminiFixture(t *testing.T) {
	dir := t.TempDir()
	chats := filepath.Join(dir, "tmp", "9f2c1e0d4b", "chats")
	testplugin.WriteFile(t, filepath.Join(chats, "session-2026-06-02T10-00-a1b2.json"), `{
  "sessionId": "a1b2c3d4-0000-4000-8000-000000000001",
  "projectHash": "9f2c1e0d4b",
  "startTime": "2026-06-02T10:00:00.000Z",
  "lastUpdated": "2026-06-02T10:05:00.000Z",
  "messages": [
    {"id": "m1", "timestamp": "2026-06-02T10:00:00.000Z", "type": "user", "content": "fix the build"},
    {"id": "m2", "timestamp": "2026-06-02T10:00:05.000Z", "type": "gemini", "content": "done",
     "thoughts": [{"subject": "plan", "description": "look"}],
     "tokens": {"input": 12000, "output": 800, "cached": 10000, "thoughts": 200, "tool": 0, "total": 13000},
     "model": "gemini-2.5-pro"},
    {"id": "m3", "timestamp": "2026-06-02T10:01:00.000Z", "type": "gemini", "content": "long",
     "tokens": {"input": 250000, "output": 1000, "cached": 0, "thoughts": 0, "tool": 0, "total": 251000},
     "model": "gemini-2.5-pro"}
  ]
}`)
	testplugin.WriteFile(t, filepath.Join(chats, "session-2026-06-02T11-00-c3d4.jsonl"),
		`{"sessionId":"a1b2c3d4-0000-4000-8000-000000000002","projectHash":"9f2c1e0d4b","startTime":"2026-06-02T11:00:00.000Z"}
{"id":"n1","timestamp":"2026-06-02T11:00:00.000Z","type":"user","content":"hi"}
{"id":"n2","timestamp":"2026-06-02T11:00:03.000Z","type":"gemini","content":"hello","tokens":{"input":1000,"output":100,"cached":0,"thoughts":50,"tool":0,"total":1150},"model":"gemini-2.5-flash"}
`)
	s := newTestService(t, map[string]string{"USAGE_GEMINI_DIR": dir})
	_, u := usageOf(t, s, map[string]any{"from": "2026-06-02", "to": "2026-06-02", "by": "model", "timezone": "UTC"})
	got := map[string]row{}
	for _, r := range u.Rows {
		got[r.Key] = r
	}
	pro, flash := got["gemini-2.5-pro"], got["gemini-2.5-flash"]
	// m2: 2000 input + 10000 cached at 1.25/0.125, 1000 output at 10.
	// m3: 250k prompt > 200k: the whole request at 2.5 in / 15 out.
	wantPro := (2000*1.25+10000*0.125+1000*10)/1e6 + (250000*2.5+1000*15)/1e6
	if pro.InputTokens != 252000 || pro.CacheReadTokens != 10000 || pro.OutputTokens != 2000 || !sameCost(pro.CostUSD, wantPro) {
		t.Errorf("gemini-2.5-pro: got %+v, want input 252000 cache read 10000 output 2000 cost %.6f", pro, wantPro)
	}
	if flash.InputTokens != 1000 || flash.OutputTokens != 150 || !sameCost(flash.CostUSD, (1000*0.3+150*2.5)/1e6) {
		t.Errorf("gemini-2.5-flash: got %+v", flash)
	}
}

// TestOpenCodeFixture reads OpenCode's SQLite message table.
func TestOpenCodeFixture(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stmts := []string{
		`CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, directory TEXT NOT NULL, title TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL)`,
		`CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL)`,
	}
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	created := time.Date(2026, 6, 3, 9, 0, 0, 0, time.UTC).UnixMilli()
	msgs := []struct{ id, data string }{
		{"msg_u1", `{"role":"user","time":{"created":%d},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}`},
		{"msg_a1", `{"role":"assistant","time":{"created":%d,"completed":1},"modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","path":{"cwd":"/home/dev/work/secret-proj","root":"/home/dev/work/secret-proj"},"cost":0.5,"tokens":{"input":100,"output":2000,"reasoning":0,"cache":{"read":50000,"write":4000}}}`},
		{"msg_a2", `{"role":"assistant","time":{"created":%d,"completed":1},"modelID":"gpt-5","providerID":"openai","mode":"build","path":{"cwd":"/home/dev/work/secret-proj","root":"/home/dev/work/secret-proj"},"cost":0,"tokens":{"input":3000,"output":500,"reasoning":100,"cache":{"read":1000,"write":0}}}`},
	}
	for _, m := range msgs {
		if _, err := db.Exec(`INSERT INTO message VALUES (?, 'ses_1', ?, ?, ?)`, m.id, created, created, fmt.Sprintf(m.data, created)); err != nil {
			t.Fatal(err)
		}
	}
	s := newTestService(t, map[string]string{"USAGE_OPENCODE_DB": path})
	res, u := usageOf(t, s, map[string]any{"from": "2026-06-03", "to": "2026-06-03", "by": "model", "timezone": "UTC", "provider": "opencode"})
	got := map[string]row{}
	for _, r := range u.Rows {
		got[r.Key] = r
	}
	son, gpt := got["claude-sonnet-4-5"], got["gpt-5"]
	if son.InputTokens != 100 || son.OutputTokens != 2000 || son.CacheReadTokens != 50000 || son.CacheWriteTokens != 4000 ||
		!sameCost(son.CostUSD, (100*3+2000*15+50000*0.3+4000*3.75)/1e6) {
		t.Errorf("sonnet: got %+v", son)
	}
	if gpt.InputTokens != 3000 || gpt.OutputTokens != 600 || !sameCost(gpt.CostUSD, (3000*1.25+600*10+1000*0.125)/1e6) {
		t.Errorf("gpt-5: got %+v", gpt)
	}
	if b, _ := json.Marshal(res.Data); strings.Contains(string(b)+res.Markdown, "secret-proj") {
		t.Error("project name leaked")
	}
}

// TestPriceOverride: a user price file prices a model the table lacks and
// overrides one it has; an unpriced model is named, never $0 silently.
func TestPriceOverride(t *testing.T) {
	dir := t.TempDir()
	line := func(id, model string, in, out int) string {
		return fmt.Sprintf(`{"cwd":"/p","sessionId":"s","message":{"id":"%s","model":"%s","usage":{"input_tokens":%d,"output_tokens":%d}},"requestId":"r%s","type":"assistant","timestamp":"2026-06-04T10:00:00.000Z"}`+"\n", id, model, in, out, id)
	}
	testplugin.WriteFile(t, filepath.Join(dir, "projects", "-p", "s.jsonl"),
		line("a", "claude-future-9", 1_000_000, 0)+line("b", "claude-haiku-4-5-20251001", 1_000_000, 0)+line("c", "mystery-model", 5, 5))
	override := filepath.Join(dir, "prices.json")
	testplugin.WriteFile(t, override, `{"models":{"claude-future-9":{"input":7,"output":30},"claude-haiku-4-5":{"input":0.5,"output":4}}}`)
	tests := []struct {
		name     string
		env      map[string]string
		wantCost float64
		unpriced []string
	}{
		{"embedded", map[string]string{"CLAUDE_CONFIG_DIR": dir}, 1, []string{"claude-future-9", "mystery-model"}},
		{"override", map[string]string{"CLAUDE_CONFIG_DIR": dir, "USAGE_PRICES_FILE": override}, 7.5, []string{"mystery-model"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestService(t, tt.env)
			res, u := usageOf(t, s, map[string]any{"from": "2026-06-04", "to": "2026-06-04", "timezone": "UTC"})
			if !sameCost(u.Totals.CostUSD, tt.wantCost) {
				t.Errorf("got $%.6f, want $%.6f", u.Totals.CostUSD, tt.wantCost)
			}
			if strings.Join(u.Unpriced, ",") != strings.Join(tt.unpriced, ",") {
				t.Errorf("got unpriced %v, want %v", u.Unpriced, tt.unpriced)
			}
			if !strings.Contains(res.Markdown, "mystery-model") {
				t.Error("markdown does not name the unpriced model")
			}
		})
	}
}

// TestLiteLLMRefresh: opt-in refresh from a loopback server, cached 24h.
func TestLiteLLMRefresh(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, `{"sample_spec":{"max_tokens":1},
 "claude-brand-new":{"input_cost_per_token":2e-06,"output_cost_per_token":1e-05,"cache_read_input_token_cost":2e-07,
   "input_cost_per_token_above_200k_tokens":4e-06,"output_cost_per_token_above_200k_tokens":1.5e-05}}`)
	}))
	defer srv.Close()
	dir := t.TempDir()
	testplugin.WriteFile(t, filepath.Join(dir, "projects", "-p", "s.jsonl"),
		`{"cwd":"/p","sessionId":"s","message":{"id":"a","model":"claude-brand-new","usage":{"input_tokens":300000,"output_tokens":1000}},"requestId":"r","type":"assistant","timestamp":"2026-06-04T10:00:00.000Z"}`+"\n")
	env := map[string]string{"CLAUDE_CONFIG_DIR": dir, "USAGE_PRICE_REFRESH": "1", "USAGE_LITELLM_URL": srv.URL, "USAGE_CACHE_DIR": t.TempDir()}
	args := map[string]any{"from": "2026-06-04", "to": "2026-06-04", "timezone": "UTC"}
	want := (300000*4 + 1000*15) / 1e6
	steps := []struct {
		name     string
		now      time.Time
		wantHits int64
	}{
		{"first call fetches", testNow, 1},
		{"a new process within 24h uses the cache", testNow.Add(23 * time.Hour), 1},
		{"after 24h it fetches again", testNow.Add(25 * time.Hour), 2},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			s := newTestService(t, env)
			now := st.now
			s.now = func() time.Time { return now }
			// The cache file's age is measured from its modification time.
			if st.now != testNow {
				f := filepath.Join(env["USAGE_CACHE_DIR"], "litellm-prices.json")
				if err := os.Chtimes(f, testNow, testNow); err != nil {
					t.Fatal(err)
				}
			}
			_, u := usageOf(t, s, args)
			if !sameCost(u.Totals.CostUSD, want) {
				t.Errorf("got $%.6f, want $%.6f", u.Totals.CostUSD, want)
			}
			if got := hits.Load(); got != st.wantHits {
				t.Errorf("got %d fetches, want %d", got, st.wantHits)
			}
		})
	}
}

// TestReportsSayWhatTheyLeftOut: get-usage and blocks end their Markdown
// alike: the unpriced model named and the malformed line counted.
func TestReportsSayWhatTheyLeftOut(t *testing.T) {
	dir := t.TempDir()
	testplugin.WriteFile(t, filepath.Join(dir, "projects", "-p", "s.jsonl"),
		`{"cwd":"/p","sessionId":"s","message":{"id":"a","model":"mystery-model","usage":{"input_tokens":5,"output_tokens":5}},"requestId":"ra","type":"assistant","timestamp":"2026-06-04T10:00:00.000Z"}`+"\n"+
			`{"cwd":"/p","sessionId":"s","message":{"id":"b","model":"mystery-model","usage":{"input_tokens":5,"output_tokens":`+"\n")
	s := newTestService(t, map[string]string{"CLAUDE_CONFIG_DIR": dir})
	for _, action := range []string{"get-usage", "blocks"} {
		res, _ := call(t, s, action, map[string]any{"from": "2026-06-04", "to": "2026-06-04", "timezone": "UTC"})
		for _, want := range []string{"no price for mystery-model", "_1 malformed log lines skipped._"} {
			if !strings.Contains(res.Markdown, want) {
				t.Errorf("%s: Markdown lacks %q:\n%s", action, want, res.Markdown)
			}
		}
	}
}
