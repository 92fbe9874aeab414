package main

// Fixture tests of the cases people hit on real logs (issue 11). Each
// fixture is written in the shape its agent writes, and each test names
// where that shape comes from.

import (
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/plugins/usage/internal/source"
)

// byModel runs get-usage for one UTC day grouped by model.
func byModel(t *testing.T, s *service, day string, extra map[string]any) (map[string]row, usageOut) {
	t.Helper()
	args := map[string]any{"from": day, "to": day, "by": "model", "timezone": "UTC"}
	for k, v := range extra {
		args[k] = v
	}
	_, u := usageOf(t, s, args)
	got := map[string]row{}
	for _, r := range u.Rows {
		got[r.Key] = r
	}
	return got, u
}

// claudeLine is an assistant line in Claude Code's layout up to 2.1.80
// (cwd, sessionId and version before the message; requestId, type, uuid
// and timestamp after it), as in ccusage's fixtures
// (apps/ccusage/src/data-loader.ts tests) and Claude Code's own logs.
func claudeLine(side bool, cwd, session, msgID, reqID, model, ts, usage string) string {
	return fmt.Sprintf(`{"parentUuid":"p-%s","isSidechain":%v,"userType":"external","cwd":%q,"sessionId":%q,"version":"2.1.50","gitBranch":"main",`+
		`"message":{"model":%q,"id":%q,"type":"message","role":"assistant","content":[{"type":"text","text":"done"}],"stop_reason":"end_turn","stop_sequence":null,"usage":%s},`+
		`"requestId":%q,"type":"assistant","uuid":"u-%s-%s","timestamp":%q}`+"\n",
		msgID, side, cwd, session, model, msgID, usage, reqID, msgID, reqID, ts)
}

// claudeLineNew is the layout Claude Code writes from 2.1.81 on: the
// message first, cwd, timestamp and sessionId after it.
func claudeLineNew(cwd, session, msgID, reqID, model, ts, usage string) string {
	return fmt.Sprintf(`{"parentUuid":"p-%s","isSidechain":false,`+
		`"message":{"model":%q,"id":%q,"type":"message","role":"assistant","content":[{"type":"text","text":"done"}],"stop_reason":"end_turn","stop_sequence":null,"usage":%s},`+
		`"requestId":%q,"type":"assistant","uuid":"u-%s","timestamp":%q,"userType":"external","entrypoint":"cli","cwd":%q,"sessionId":%q,"version":"2.1.81","gitBranch":"main"}`+"\n",
		msgID, model, msgID, usage, reqID, msgID, ts, cwd, session)
}

func claudeUsage(in, cw, cr, out int, extra string) string {
	return fmt.Sprintf(`{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"cache_creation":{"ephemeral_5m_input_tokens":%d,"ephemeral_1h_input_tokens":0},"output_tokens":%d,"service_tier":"standard"%s}`,
		in, cw, cr, cw, out, extra)
}

// TestClaudeSidechainReplay: a /btw side question is logged as a sidechain
// (isSidechain: true) that replays the parent's last response — same
// message.id, new requestId, the parent's cache reads — and then answers
// with a response of its own. ccusage (adapter/claude/README.md, issue 913)
// keeps the parent and drops the replay; the answer counts.
func TestClaudeSidechainReplay(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "projects", "-home-dev-shop")
	const sess = "5f0c2f9e-1111-4a4a-9b9b-000000000001"
	const ts = "2026-06-05T10:00:00.000Z"
	parent := claudeUsage(10, 1000, 20000, 500, "")
	testplugin.WriteFile(t, filepath.Join(proj, sess+".jsonl"), claudeLine(false, "/home/dev/shop", sess, "msg_01A", "req_01A", "claude-sonnet-4-5-20250929", ts, parent))
	testplugin.WriteFile(t, filepath.Join(proj, sess, "subagents", "agent-aside_question-a1b2c3.jsonl"),
		claudeLine(true, "/home/dev/shop", sess, "msg_01A", "req_02B", "claude-sonnet-4-5-20250929", "2026-06-05T10:01:00.000Z", parent)+
			claudeLine(true, "/home/dev/shop", sess, "msg_03C", "req_03C", "claude-sonnet-4-5-20250929", "2026-06-05T10:01:05.000Z", claudeUsage(5, 0, 20000, 80, "")))
	s := newTestService(t, map[string]string{"CLAUDE_CONFIG_DIR": dir})
	got, _ := byModel(t, s, "2026-06-05", nil)
	r := got["claude-sonnet-4-5-20250929"]
	// Parent once (20000 cache read) plus the sidechain's own answer.
	if r.Calls != 2 || r.CacheReadTokens != 40000 || r.OutputTokens != 580 || r.InputTokens != 15 {
		t.Errorf("got %+v, want 2 calls, 40000 cache read, 580 output, 15 input", r)
	}
	want := (15*3 + 1000*3.75 + 40000*0.3 + 580*15) / 1e6
	if !sameCost(r.CostUSD, want) {
		t.Errorf("got $%.6f, want $%.6f", r.CostUSD, want)
	}
}

// TestClaudeFastMode: usage.speed "fast" (Claude Code's /fast on Opus
// 4.6/4.7) is billed at 6x, as ccusage (fast-multiplier-overrides.json)
// and CodeBurn price it, and shown as the model's "-fast" row.
func TestClaudeFastMode(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "projects", "-home-dev-shop")
	const sess = "5f0c2f9e-2222-4a4a-9b9b-000000000002"
	testplugin.WriteFile(t, filepath.Join(proj, sess+".jsonl"),
		claudeLine(false, "/home/dev/shop", sess, "msg_f1", "req_f1", "claude-opus-4-6", "2026-06-05T11:00:00.000Z", claudeUsage(100, 0, 10000, 1000, `,"speed":"fast"`))+
			claudeLine(false, "/home/dev/shop", sess, "msg_f2", "req_f2", "claude-opus-4-6", "2026-06-05T11:01:00.000Z", claudeUsage(100, 0, 10000, 1000, `,"speed":"standard"`)))
	s := newTestService(t, map[string]string{"CLAUDE_CONFIG_DIR": dir})
	got, _ := byModel(t, s, "2026-06-05", nil)
	base := (100*5 + 10000*0.5 + 1000*25) / 1e6
	if r := got["claude-opus-4-6-fast"]; r.Calls != 1 || !sameCost(r.CostUSD, 6*base) {
		t.Errorf("fast: got %+v, want 1 call at $%.6f", r, 6*base)
	}
	if r := got["claude-opus-4-6"]; r.Calls != 1 || !sameCost(r.CostUSD, base) {
		t.Errorf("standard: got %+v, want 1 call at $%.6f", r, base)
	}
}

// TestClaudeNewLayoutProject: from Claude Code 2.1.81 cwd is written after
// the message. The project is still the working directory: one project
// (not the encoded folder name too), shown by its last path element only.
func TestClaudeNewLayoutProject(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "projects", "-home-alice-work-shop")
	const sess = "5f0c2f9e-3333-4a4a-9b9b-000000000003"
	u := claudeUsage(10, 0, 0, 10, "")
	testplugin.WriteFile(t, filepath.Join(proj, sess+".jsonl"),
		claudeLineNew("/home/alice/work/shop", sess, "msg_n1", "req_n1", "claude-sonnet-4-6", "2026-06-05T12:00:00.000Z", u)+
			claudeLine(false, "/home/alice/work/shop", sess, "msg_n2", "req_n2", "claude-sonnet-4-6", "2026-06-05T12:01:00.000Z", u))
	s := newTestService(t, map[string]string{"CLAUDE_CONFIG_DIR": dir})
	res, u2 := usageOf(t, s, map[string]any{"from": "2026-06-05", "to": "2026-06-05", "by": "project", "timezone": "UTC", "include-project-names": true})
	if len(u2.Rows) != 1 || u2.Rows[0].Key != "shop" || u2.Rows[0].Calls != 2 {
		t.Errorf("got rows %+v, want one project \"shop\" with 2 calls", u2.Rows)
	}
	if strings.Contains(res.Markdown, "alice") {
		t.Errorf("the user's name is printed:\n%s", res.Markdown)
	}
}

// TestClaudeAgentProgress: Claude Code 2.x logs a sub-agent's responses in
// the parent session as type "progress" lines (data.message holds the
// assistant entry), and the same responses in subagents/agent-*.jsonl.
// Shape from ccusage's adapter/claude/daily.rs (DailyAgentProgressEntry).
// They count once, whether the sub-agent file exists or not.
func TestClaudeAgentProgress(t *testing.T) {
	const sess = "5f0c2f9e-4444-4a4a-9b9b-000000000004"
	inner := `{"type":"assistant","timestamp":"2026-06-05T13:00:00.000Z","requestId":"req_p1","isSidechain":true,"message":{"model":"claude-haiku-4-5-20251001","id":"msg_p1","type":"message","role":"assistant","content":[{"type":"text","text":"found it"}],"usage":` + claudeUsage(200, 0, 3000, 40, "") + `},"uuid":"u-p1"}`
	progress := `{"parentUuid":"x","isSidechain":false,"userType":"external","cwd":"/home/dev/shop","sessionId":"` + sess + `","version":"2.1.30","gitBranch":"main","type":"progress","data":{"message":` + inner + `,"normalizedMessages":[],"type":"agent_progress","prompt":"find the bug","agentId":"a1"},"toolUseID":"toolu_1","parentToolUseID":"toolu_1","uuid":"pr1","timestamp":"2026-06-05T13:00:00.500Z"}` + "\n"
	want := (200*1 + 3000*0.1 + 40*5) / 1e6
	for _, withAgentFile := range []bool{false, true} {
		t.Run(fmt.Sprintf("agent file %v", withAgentFile), func(t *testing.T) {
			dir := t.TempDir()
			proj := filepath.Join(dir, "projects", "-home-dev-shop")
			testplugin.WriteFile(t, filepath.Join(proj, sess+".jsonl"), progress)
			if withAgentFile {
				testplugin.WriteFile(t, filepath.Join(proj, sess, "subagents", "agent-a1.jsonl"), inner+"\n")
			}
			s := newTestService(t, map[string]string{"CLAUDE_CONFIG_DIR": dir})
			got, _ := byModel(t, s, "2026-06-05", nil)
			if r := got["claude-haiku-4-5-20251001"]; r.Calls != 1 || r.CacheReadTokens != 3000 || !sameCost(r.CostUSD, want) {
				t.Errorf("got %+v, want 1 call, 3000 cache read, $%.6f", r, want)
			}
		})
	}
}

// codexMeta, codexTurn and codexTokens write Codex CLI rollout lines
// (codex-rs/protocol: RolloutLine with SessionMeta, TurnContext and
// EventMsg::TokenCount; forked_from_id in the session meta of a fork).
func codexMeta(ts, id, forkedFrom, cwd string) string {
	fork := ""
	if forkedFrom != "" {
		fork = fmt.Sprintf(`"forked_from_id":%q,`, forkedFrom)
	}
	return fmt.Sprintf(`{"timestamp":%q,"type":"session_meta","payload":{"id":%q,%s"timestamp":%q,"cwd":%q,"originator":"codex_cli_rs","cli_version":"0.90.0","source":"cli","model_provider":"openai"}}`+"\n",
		ts, id, fork, ts, cwd)
}

func codexTurn(ts, cwd, model string) string {
	return fmt.Sprintf(`{"timestamp":%q,"type":"turn_context","payload":{"cwd":%q,"approval_policy":"on-request","sandbox_policy":{"type":"workspace-write"},"model":%q,"effort":"medium","summary":"auto"}}`+"\n", ts, cwd, model)
}

type cx struct{ in, cached, out, reason int }

func codexTokens(ts string, total, last cx, infoModel string) string {
	u := func(c cx) string {
		return fmt.Sprintf(`{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d,"reasoning_output_tokens":%d,"total_tokens":%d}`,
			c.in, c.cached, c.out, c.reason, c.in+c.out)
	}
	model := ""
	if infoModel != "" {
		model = fmt.Sprintf(`,"model":%q`, infoModel)
	}
	return fmt.Sprintf(`{"timestamp":%q,"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":%s,"last_token_usage":%s,"model_context_window":272000%s},"rate_limits":null}}`+"\n",
		ts, u(total), u(last), model)
}

// TestCodexForkedSession: a rollout forked from another (forked_from_id)
// replays the parent's token_count events, with the parent's timestamps or
// re-stamped at the fork time; they count once, on the parent's day. A
// rollout in both sessions/ and archived_sessions/ counts once.
func TestCodexForkedSession(t *testing.T) {
	const parentID, childID = "0199a1b2-0000-7000-8000-00000000000a", "0199a1b2-0000-7000-8000-00000000000b"
	p1, p2 := cx{10000, 8000, 500, 200}, cx{25000, 20000, 900, 300}
	c3 := cx{40000, 30000, 1300, 400}
	diff := func(a, b cx) cx { return cx{a.in - b.in, a.cached - b.cached, a.out - b.out, a.reason - b.reason} }
	parent := codexMeta("2026-06-06T09:00:00.000Z", parentID, "", "/home/dev/api") +
		codexTurn("2026-06-06T09:00:01.000Z", "/home/dev/api", "gpt-5.3-codex") +
		codexTokens("2026-06-06T09:00:10.000Z", p1, p1, "") +
		codexTokens("2026-06-06T09:00:20.000Z", p2, diff(p2, p1), "")
	replay := func(restamp string) string {
		ts := func(orig string) string {
			if restamp != "" {
				return restamp
			}
			return orig
		}
		return codexMeta("2026-06-07T08:00:00.000Z", childID, parentID, "/home/dev/api") +
			codexTurn(ts("2026-06-06T09:00:01.000Z"), "/home/dev/api", "gpt-5.3-codex") +
			codexTokens(ts("2026-06-06T09:00:10.000Z"), p1, p1, "") +
			codexTokens(ts("2026-06-06T09:00:20.000Z"), p2, diff(p2, p1), "") +
			codexTurn("2026-06-07T08:00:05.000Z", "/home/dev/api", "gpt-5.3-codex") +
			codexTokens("2026-06-07T08:00:30.000Z", c3, diff(c3, p2), "")
	}
	// Each call's cost at gpt-5.3-codex: uncached input 1.75, cached 0.175, output 14.
	cost := func(c cx) float64 {
		return (float64(c.in-c.cached)*1.75 + float64(c.cached)*0.175 + float64(c.out)*14) / 1e6
	}
	wantDay1, wantDay2 := cost(p2), cost(diff(c3, p2))
	tests := []struct {
		name, restamp string
		archived      bool
	}{
		{"replay with the parent's timestamps", "", false},
		{"replay re-stamped at the fork time", "2026-06-07T08:00:00.100Z", false},
		{"parent also archived", "2026-06-07T08:00:00.100Z", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			parentName := "rollout-2026-06-06T09-00-00-" + parentID + ".jsonl"
			testplugin.WriteFile(t, filepath.Join(home, "sessions", "2026", "06", "06", parentName), parent)
			testplugin.WriteFile(t, filepath.Join(home, "sessions", "2026", "06", "07", "rollout-2026-06-07T08-00-00-"+childID+".jsonl"), replay(tt.restamp))
			if tt.archived {
				testplugin.WriteFile(t, filepath.Join(home, "archived_sessions", parentName), parent)
			}
			s := newTestService(t, map[string]string{"CODEX_HOME": home})
			_, u := usageOf(t, s, map[string]any{"from": "2026-06-06", "to": "2026-06-07", "by": "day", "timezone": "UTC"})
			got := map[string]row{}
			for _, r := range u.Rows {
				got[r.Key] = r
			}
			if r := got["2026-06-06"]; r.Calls != 2 || r.InputTokens != int64(p2.in-p2.cached) || r.CacheReadTokens != int64(p2.cached) || !sameCost(r.CostUSD, wantDay1) {
				t.Errorf("parent's day: got %+v, want 2 calls, %d input, %d cache read, $%.6f", r, p2.in-p2.cached, p2.cached, wantDay1)
			}
			if r := got["2026-06-07"]; r.Calls != 1 || !sameCost(r.CostUSD, wantDay2) {
				t.Errorf("fork's day: got %+v, want 1 call, $%.6f", r, wantDay2)
			}
		})
	}
}

// TestCodexInfoModel: a token_count whose info names the model is priced
// as that model, not as the turn context's (or the gpt-5 fallback).
func TestCodexInfoModel(t *testing.T) {
	home := t.TempDir()
	c := cx{1000, 0, 100, 0}
	testplugin.WriteFile(t, filepath.Join(home, "sessions", "2026", "06", "06", "rollout-2026-06-06T10-00-00-0199.jsonl"),
		codexMeta("2026-06-06T10:00:00.000Z", "0199", "", "/home/dev/api")+
			codexTokens("2026-06-06T10:00:10.000Z", c, c, "gpt-5.2-codex"))
	s := newTestService(t, map[string]string{"CODEX_HOME": home})
	got, u := byModel(t, s, "2026-06-06", nil)
	if r := got["gpt-5.2-codex"]; r.Calls != 1 || !sameCost(r.CostUSD, (1000*1.75+100*14)/1e6) {
		t.Errorf("got rows %+v, want gpt-5.2-codex 1 call", u.Rows)
	}
}

// TestCodexSymlinkedSessions: ~/.codex/sessions as a symbolic link to a
// folder elsewhere (dotfiles setups) is read.
func TestCodexSymlinkedSessions(t *testing.T) {
	home, real := t.TempDir(), t.TempDir()
	c := cx{1000, 0, 100, 0}
	testplugin.WriteFile(t, filepath.Join(real, "2026", "06", "06", "rollout-2026-06-06T10-00-00-0199.jsonl"),
		codexMeta("2026-06-06T10:00:00.000Z", "0199", "", "/home/dev/api")+codexTurn("2026-06-06T10:00:01.000Z", "/home/dev/api", "gpt-5")+
			codexTokens("2026-06-06T10:00:10.000Z", c, c, ""))
	if err := os.Symlink(real, filepath.Join(home, "sessions")); err != nil {
		t.Fatal(err)
	}
	s := newTestService(t, map[string]string{"CODEX_HOME": home})
	got, u := byModel(t, s, "2026-06-06", nil)
	if got["gpt-5"].Calls != 1 {
		t.Errorf("got %+v (degraded %v), want one gpt-5 call", u.Rows, u.Degraded)
	}
}

// TestGeminiSubagentChats: Gemini CLI records a sub-agent's chat in
// chats/<parentSessionId>/<id>.jsonl beside the session files (message
// shape from gemini-cli packages/core/src/services/chatRecordingService.ts);
// it rolls into the parent session. In ccusage pricing a Gemini request
// over 200k prompt tokens is billed wholly at the higher tier, as ccusage
// bills it (no per-bucket split for Gemini).
func TestGeminiSubagentChats(t *testing.T) {
	dir := t.TempDir()
	chats := filepath.Join(dir, "tmp", "9f2c1e0d4b", "chats")
	const parent = "a1b2c3d4-0000-4000-8000-000000000009"
	testplugin.WriteFile(t, filepath.Join(chats, "session-2026-06-08T10-00-a1b2.jsonl"),
		`{"sessionId":"`+parent+`","projectHash":"9f2c1e0d4b","startTime":"2026-06-08T10:00:00.000Z","lastUpdated":"2026-06-08T10:00:00.000Z","kind":"main"}`+"\n"+
			`{"id":"m1","timestamp":"2026-06-08T10:00:05.000Z","type":"gemini","content":"ok","tokens":{"input":1000,"output":100,"cached":0,"thoughts":0,"tool":0,"total":1100},"model":"gemini-3.1-pro-preview"}`+"\n")
	testplugin.WriteFile(t, filepath.Join(chats, parent, "b9c8d7e6-0000-4000-8000-000000000010.jsonl"),
		`{"sessionId":"b9c8d7e6-0000-4000-8000-000000000010","projectHash":"9f2c1e0d4b","startTime":"2026-06-08T10:01:00.000Z","kind":"subagent"}`+"\n"+
			`{"id":"s1","timestamp":"2026-06-08T10:01:05.000Z","type":"gemini","content":"searched","tokens":{"input":250000,"output":1000,"cached":50000,"thoughts":500,"tool":0,"total":251500},"model":"gemini-3.1-pro-preview"}`+"\n")
	s := newTestService(t, map[string]string{"USAGE_GEMINI_DIR": dir})
	main := (1000*2 + 100*12) / 1e6
	long := (200000*4 + 50000*0.4 + 1500*18) / 1e6 // prompt 250k > 200k: the whole request at the higher tier
	for _, mode := range []string{"provider", "ccusage"} {
		got, _ := byModel(t, s, "2026-06-08", map[string]any{"pricing": mode})
		if r := got["gemini-3.1-pro-preview"]; r.Calls != 2 || !sameCost(r.CostUSD, main+long) {
			t.Errorf("%s: got %+v, want 2 calls at $%.6f", mode, r, main+long)
		}
	}
	_, u := usageOf(t, s, map[string]any{"from": "2026-06-08", "to": "2026-06-08", "by": "session", "timezone": "UTC"})
	if len(u.Rows) != 1 || u.Rows[0].Calls != 2 {
		t.Errorf("got sessions %+v, want the sub-agent rolled into its parent", u.Rows)
	}
}

// TestDiscoveryRobust: a folder that cannot be read is named in degraded
// and the rest is still counted; 0-byte files (a session just created) do
// not degrade a provider; a line over the bound is reported.
func TestDiscoveryRobust(t *testing.T) {
	dir := t.TempDir()
	u := claudeUsage(10, 0, 0, 10, "")
	const sess = "5f0c2f9e-5555-4a4a-9b9b-000000000005"
	testplugin.WriteFile(t, filepath.Join(dir, "claude", "projects", "-home-dev-ok", sess+".jsonl"),
		claudeLine(false, "/home/dev/ok", sess, "msg_ok", "req_ok", "claude-sonnet-4-6", "2026-06-09T10:00:00.000Z", u))
	testplugin.WriteFile(t, filepath.Join(dir, "claude", "projects", "-home-dev-new", "empty.jsonl"), "")
	testplugin.WriteFile(t, filepath.Join(dir, "gemini", "tmp", "abc", "chats", "session-2026-06-09T10-00-0000.json"), "")
	// A symbolic link loop cannot be listed, even by root.
	loop := filepath.Join(dir, "claude", "projects", "-home-dev-loop")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	s := newTestService(t, map[string]string{"CLAUDE_CONFIG_DIR": filepath.Join(dir, "claude"), "USAGE_GEMINI_DIR": filepath.Join(dir, "gemini")})
	got, out := byModel(t, s, "2026-06-09", nil)
	if got["claude-sonnet-4-6"].Calls != 1 {
		t.Errorf("got %+v, want the readable project counted", out.Rows)
	}
	if len(out.Degraded) != 1 || out.Degraded[0].Provider != "claude" || !strings.Contains(out.Degraded[0].Reason, "could not be listed") {
		t.Errorf("got degraded %+v, want one claude entry naming the unlisted folder", out.Degraded)
	}
	for _, d := range out.Degraded {
		if strings.Contains(d.Reason, dir) {
			t.Errorf("degraded prints an absolute path: %s", d.Reason)
		}
	}

	// A line over the bound: skipped, and said.
	old := source.MaxLineBytes
	source.MaxLineBytes = 1 << 20
	t.Cleanup(func() { source.MaxLineBytes = old })
	big := strings.Replace(claudeLine(false, "/home/dev/ok", sess, "msg_big", "req_big", "claude-sonnet-4-6", "2026-06-09T11:00:00.000Z", u),
		`"text":"done"`, `"text":"`+strings.Repeat("x", 3<<20)+`"`, 1)
	testplugin.WriteFile(t, filepath.Join(dir, "claude2", "projects", "-home-dev-ok", sess+".jsonl"), big)
	s = newTestService(t, map[string]string{"CLAUDE_CONFIG_DIR": filepath.Join(dir, "claude2")})
	_, out = byModel(t, s, "2026-06-09", nil)
	if len(out.Degraded) != 1 || !strings.Contains(out.Degraded[0].Reason, "over 1 MB") {
		t.Errorf("got degraded %+v, want the oversized line reported", out.Degraded)
	}
}

// TestCodexUnreadableFolder: one unreadable day folder under sessions/
// degrades Codex with its name; the other days are counted. (Root reads
// any folder, so this runs only as another user.)
func TestCodexUnreadableFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root can read a folder without permissions")
	}
	home := t.TempDir()
	c := cx{1000, 0, 100, 0}
	testplugin.WriteFile(t, filepath.Join(home, "sessions", "2026", "06", "06", "rollout-a.jsonl"),
		codexMeta("2026-06-06T10:00:00.000Z", "a", "", "/x")+codexTokens("2026-06-06T10:00:10.000Z", c, c, "gpt-5"))
	locked := filepath.Join(home, "sessions", "2026", "06", "07")
	testplugin.WriteFile(t, filepath.Join(locked, "rollout-b.jsonl"), codexMeta("2026-06-07T10:00:00.000Z", "b", "", "/x"))
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(locked, 0o755) })
	s := newTestService(t, map[string]string{"CODEX_HOME": home})
	got, out := byModel(t, s, "2026-06-06", nil)
	if got["gpt-5"].Calls != 1 {
		t.Errorf("got %+v, want the readable day counted", out.Rows)
	}
	if len(out.Degraded) != 1 || !strings.Contains(out.Degraded[0].Reason, "sessions/2026/06/07") {
		t.Errorf("got degraded %+v, want sessions/2026/06/07 named", out.Degraded)
	}
}

// TestOpenCodeJSONStorage: OpenCode before its SQLite database kept each
// message as storage/message/<sessionID>/<messageID>.json (sst/opencode
// packages/opencode/src/session/message-v2.ts, Assistant shape); a message
// also in the database counts once.
func TestOpenCodeJSONStorage(t *testing.T) {
	data := t.TempDir()
	msg := func(id, model string, in, out int) string {
		return fmt.Sprintf(`{"id":%q,"sessionID":"ses_old1","role":"assistant","time":{"created":1780909200000,"completed":1780909205000},"modelID":%q,"providerID":"anthropic","mode":"build","path":{"cwd":"/home/dev/old","root":"/home/dev/old"},"cost":0,"tokens":{"input":%d,"output":%d,"reasoning":0,"cache":{"read":0,"write":0}}}`, id, model, in, out)
	}
	testplugin.WriteFile(t, filepath.Join(data, "opencode", "storage", "message", "ses_old1", "msg_a.json"), msg("msg_a", "claude-sonnet-4-5", 1000, 100))
	testplugin.WriteFile(t, filepath.Join(data, "opencode", "storage", "message", "ses_old1", "msg_b.json"), msg("msg_b", "claude-sonnet-4-5", 2000, 200))
	testplugin.WriteFile(t, filepath.Join(data, "opencode", "storage", "message", "ses_old1", "msg_empty.json"), "")
	s := newTestService(t, map[string]string{"XDG_DATA_HOME": data})
	// 1780909200000 ms is 2026-06-08T09:00:00Z.
	got, out := byModel(t, s, "2026-06-08", nil)
	if r := got["claude-sonnet-4-5"]; r.Calls != 2 || r.InputTokens != 3000 || !sameCost(r.CostUSD, (3000*3+300*15)/1e6) {
		t.Errorf("got %+v (degraded %v), want 2 calls, 3000 input", out.Rows, out.Degraded)
	}
}

// TestTasksOfOtherAgents: Codex's and Gemini CLI's tool calls classify
// their turns as Claude Code's do (not all "conversation"). Codex: a
// user_message event opens a turn; response_item function_call
// (exec_command with its cmd, shell with its argv) and custom_tool_call
// apply_patch with the patch as input (openai/codex codex-rs/protocol
// models.rs) come before the response's token_count. Gemini: a "user"
// message opens a turn, a "gemini" message carries toolCalls with name and
// args (gemini-cli chatRecordingService.ts; tool names from
// packages/core/src/tools).
func TestTasksOfOtherAgents(t *testing.T) {
	home := t.TempDir()
	user := func(ts, text string) string {
		return fmt.Sprintf(`{"timestamp":%q,"type":"event_msg","payload":{"type":"user_message","message":%q,"images":[]}}`+"\n", ts, text)
	}
	fn := func(ts, name, args string) string {
		return fmt.Sprintf(`{"timestamp":%q,"type":"response_item","payload":{"type":"function_call","name":%q,"arguments":%q,"call_id":"call_%s"}}`+"\n", ts, name, args, ts[17:19])
	}
	patch := func(ts, file string) string {
		return fmt.Sprintf(`{"timestamp":%q,"type":"response_item","payload":{"type":"custom_tool_call","status":"completed","call_id":"call_p%s","name":"apply_patch","input":%q}}`+"\n",
			ts, ts[17:19], "*** Begin Patch\n*** Update File: "+file+"\n@@\n-a\n+b\n*** End Patch")
	}
	c1, c2, c3, c4, c5 := cx{1000, 0, 100, 0}, cx{2000, 0, 200, 0}, cx{3000, 0, 300, 0}, cx{4000, 0, 400, 0}, cx{5000, 0, 500, 0}
	log := codexMeta("2026-06-11T09:00:00.000Z", "0199a1b2-0000-7000-8000-0000000000c1", "", "/home/dev/api") +
		codexTurn("2026-06-11T09:00:01.000Z", "/home/dev/api", "gpt-5.3-codex") +
		// Turn 1: patch, test run, patch the same file again: debugging.
		user("2026-06-11T09:00:02.000Z", "fix the failing test") +
		patch("2026-06-11T09:00:03.000Z", "cart.go") + codexTokens("2026-06-11T09:00:04.000Z", c1, c1, "") +
		fn("2026-06-11T09:00:05.000Z", "exec_command", `{"cmd":"go test ./...","workdir":"/home/dev/api"}`) + codexTokens("2026-06-11T09:00:06.000Z", c2, cx{1000, 0, 100, 0}, "") +
		patch("2026-06-11T09:00:07.000Z", "cart.go") + codexTokens("2026-06-11T09:00:08.000Z", c3, cx{1000, 0, 100, 0}, "") +
		// Turn 2: a read-only shell command (the older shell tool's argv): exploration.
		user("2026-06-11T09:01:00.000Z", "what is in here?") +
		fn("2026-06-11T09:01:01.000Z", "shell", `{"command":["bash","-lc","ls -la"]}`) + codexTokens("2026-06-11T09:01:02.000Z", c4, cx{1000, 0, 100, 0}, "") +
		// Turn 3: no tools.
		user("2026-06-11T09:02:00.000Z", "thanks") + codexTokens("2026-06-11T09:02:01.000Z", c5, cx{1000, 0, 100, 0}, "")
	testplugin.WriteFile(t, filepath.Join(home, "codex", "sessions", "2026", "06", "11", "rollout-2026-06-11T09-00-00-0199a1b2-0000-7000-8000-0000000000c1.jsonl"), log)
	gem := `{"sessionId":"a1b2c3d4-0000-4000-8000-0000000000c2","projectHash":"9f2c1e0d4b","startTime":"2026-06-11T10:00:00.000Z","lastUpdated":"2026-06-11T10:00:00.000Z","kind":"main"}` + "\n" +
		`{"id":"u1","timestamp":"2026-06-11T10:00:01.000Z","type":"user","content":"rename the field"}` + "\n" +
		`{"id":"g1","timestamp":"2026-06-11T10:00:05.000Z","type":"gemini","content":"done","toolCalls":[{"id":"replace-1","name":"replace","args":{"file_path":"/home/dev/web/a.ts","old_string":"x","new_string":"y"},"status":"success"}],"tokens":{"input":1000,"output":100,"cached":0,"thoughts":0,"tool":0,"total":1100},"model":"gemini-2.5-pro"}` + "\n" +
		`{"id":"u2","timestamp":"2026-06-11T10:01:01.000Z","type":"user","content":"run the tests"}` + "\n" +
		`{"id":"g2","timestamp":"2026-06-11T10:01:05.000Z","type":"gemini","content":"ok","toolCalls":[{"id":"sh-1","name":"run_shell_command","args":{"command":"npm test"},"status":"success"}],"tokens":{"input":1000,"output":100,"cached":0,"thoughts":0,"tool":0,"total":1100},"model":"gemini-2.5-pro"}` + "\n"
	testplugin.WriteFile(t, filepath.Join(home, "gemini", "tmp", "9f2c1e0d4b", "chats", "session-2026-06-11T10-00-c2c2.jsonl"), gem)
	s := newTestService(t, map[string]string{"CODEX_HOME": filepath.Join(home, "codex"), "USAGE_GEMINI_DIR": filepath.Join(home, "gemini")})
	for _, tc := range []struct {
		provider string
		want     map[string]int // task: calls
	}{
		{"codex", map[string]int{"debugging": 3, "exploration": 1, "conversation": 1}},
		{"gemini", map[string]int{"coding": 1, "testing": 1}},
	} {
		_, u := usageOf(t, s, map[string]any{"from": "2026-06-11", "to": "2026-06-11", "by": "task", "timezone": "UTC", "provider": tc.provider})
		got := map[string]int{}
		for _, r := range u.Rows {
			got[r.Key] = r.Calls
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s tasks: got %v, want %v", tc.provider, got, tc.want)
		}
	}
}

// TestQwenChats: Qwen Code's chat recordings
// (~/.qwen/projects/<project>/chats/<session>.jsonl; the record shape of
// QwenLM/qwen-code chatRecordingService.ts, the layout ccusage 20's
// adapter/qwen reads, its fixture's usageMetadata): the cached prompt
// moves out of input into cache read, thoughts are output, a record with
// only totalTokenCount counts it as output, a copied record counts once,
// a user record opens a turn; the project is the record's cwd.
func TestQwenChats(t *testing.T) {
	root := t.TempDir()
	rec := func(typ, ts, model, usage string) string {
		line := fmt.Sprintf(`{"uuid":"u-%s","sessionId":"qs-1","timestamp":%q,"type":%q,"cwd":"/home/dev/shop","version":"0.8.2","model":%q,"message":{"role":"model","parts":[{"text":"ok"}]}`, ts, ts, typ, model)
		if usage != "" {
			line += `,"usageMetadata":` + usage
		}
		return line + "}\n"
	}
	a := rec("assistant", "2026-06-09T09:00:05.120Z", "qwen3-coder-plus",
		`{"promptTokenCount":12000,"candidatesTokenCount":300,"thoughtsTokenCount":40,"cachedContentTokenCount":8000,"totalTokenCount":12340}`)
	testplugin.WriteFile(t, filepath.Join(root, "projects", "-home-dev-shop", "chats", "qs-1.jsonl"),
		rec("user", "2026-06-09T09:00:00.000Z", "", "")+a+a+
			rec("assistant", "2026-06-09T09:01:00.000Z", "qwen3-coder-plus", `{"totalTokenCount":321}`)+
			"{\"type\":\"assistant\",\"usageMetadata\":{\"promptTok\n")
	s := newTestService(t, map[string]string{"QWEN_DATA_DIR": root})
	got, out := byModel(t, s, "2026-06-09", nil)
	r := got["qwen3-coder-plus"]
	if r.Calls != 2 || r.InputTokens != 4000 || r.CacheReadTokens != 8000 || r.OutputTokens != 340+321 ||
		!sameCost(r.CostUSD, (4000*1+661*5+8000*0.1)/1e6) {
		t.Errorf("got %+v (degraded %v)", r, out.Degraded)
	}
	_, p := usageOf(t, s, map[string]any{"from": "2026-06-09", "to": "2026-06-09", "by": "project", "include-project-names": true, "timezone": "UTC"})
	if len(p.Rows) != 1 || p.Rows[0].Key != "shop" || p.SkippedLines != 1 {
		t.Errorf("projects %+v, skipped %d", p.Rows, p.SkippedLines)
	}
}

// TestDroidSessions: Factory Droid's <session>.settings.json (the fields
// ccusage 20's adapter/droid reads; its fixtures' shapes): one call a
// session with its cumulative tokenUsage, thinking as output, the model
// label normalised, else named by the session's .jsonl; an archived copy
// of a session counts once (the larger); only totalTokens counts as output.
func TestDroidSessions(t *testing.T) {
	root := t.TempDir()
	settings := func(model, at, usage string) string {
		return fmt.Sprintf(`{"model":%q,"providerLock":"anthropic","providerLockTimestamp":%q,"tokenUsage":%s}`, model, at, usage)
	}
	testplugin.WriteFile(t, filepath.Join(root, "proj", "s1.settings.json"),
		settings("custom:Claude-Sonnet-4.5-[Anthropic]-", "2026-06-10T14:20:00.000Z", `{"inputTokens":4000,"outputTokens":500,"cacheCreationTokens":1000,"cacheReadTokens":20000,"thinkingTokens":100}`))
	testplugin.WriteFile(t, filepath.Join(root, "archive", "s1.settings.json"),
		settings("Claude-Sonnet-4.5-[Anthropic]", "2026-06-10T14:20:00.000Z", `{"inputTokens":2000,"outputTokens":200}`))
	testplugin.WriteFile(t, filepath.Join(root, "proj", "s2.settings.json"),
		`{"providerLockTimestamp":"2026-06-10T15:00:00.000Z","tokenUsage":{"inputTokens":100,"outputTokens":10}}`)
	testplugin.WriteFile(t, filepath.Join(root, "proj", "s2.jsonl"), `{"content":"Model: Claude Opus 4.5 Thinking [Anthropic]"}`+"\n")
	testplugin.WriteFile(t, filepath.Join(root, "proj", "s3.settings.json"),
		settings("gpt-5", "2026-06-10T16:00:00.000Z", `{"totalTokens":456}`))
	s := newTestService(t, map[string]string{"DROID_SESSIONS_DIR": root})
	got, out := byModel(t, s, "2026-06-10", nil)
	want := map[string]row{
		"claude-sonnet-4-5":        {Calls: 1, InputTokens: 4000, OutputTokens: 600, CacheWriteTokens: 1000, CacheReadTokens: 20000},
		"claude-opus-4-5-thinking": {Calls: 1, InputTokens: 100, OutputTokens: 10},
		"gpt-5":                    {Calls: 1, OutputTokens: 456},
	}
	for m, w := range want {
		g := got[m]
		if g.Calls != w.Calls || g.InputTokens != w.InputTokens || g.OutputTokens != w.OutputTokens ||
			g.CacheWriteTokens != w.CacheWriteTokens || g.CacheReadTokens != w.CacheReadTokens {
			t.Errorf("%s: got %+v, want %+v (degraded %v)", m, g, w, out.Degraded)
		}
	}
	if len(got) != len(want) {
		t.Errorf("models %v", got)
	}
}

// TestAmpThreads: Amp's threads/T-<uuid>.json (the fields ccusage 20's
// adapter/amp reads; its README and fixtures): without a usage ledger each
// assistant message's usage is a call, a message with no tokens is none;
// with one, each ledger event is a call carrying the cache counts of the
// message it names (toMessageId), and a total with no parts is output;
// tokens a total names beyond the parts are billed as output.
func TestAmpThreads(t *testing.T) {
	root := t.TempDir()
	testplugin.WriteFile(t, filepath.Join(root, "threads", "T-a.json"), `{"v":3,"id":"T-a","messages":[`+
		`{"role":"user","messageId":0,"content":[{"type":"text","text":"hi"}]},`+
		`{"role":"assistant","messageId":1,"usage":{"model":"claude-haiku-4-5-20251001","inputTokens":10,"outputTokens":178,"cacheCreationInputTokens":986,"cacheReadInputTokens":11372,"totalInputTokens":12368,"timestamp":"2026-06-11T11:42:10.652Z"}},`+
		`{"role":"assistant","messageId":2,"usage":{"model":"claude-haiku-4-5-20251001","inputTokens":5,"outputTokens":40,"totalTokens":50,"timestamp":"2026-06-11T11:43:00.000Z"}},`+
		`{"role":"assistant","messageId":3,"usage":{"model":"claude-haiku-4-5-20251001","inputTokens":0,"outputTokens":0,"timestamp":"2026-06-11T11:44:00.000Z"}}]}`)
	testplugin.WriteFile(t, filepath.Join(root, "threads", "T-b.json"), `{"id":"T-b","messages":[`+
		`{"role":"assistant","messageId":1,"usage":{"model":"ignored","inputTokens":99,"outputTokens":99,"cacheCreationInputTokens":300,"cacheReadInputTokens":4000,"timestamp":"2026-06-11T12:00:00.000Z"}}],`+
		`"usageLedger":{"events":[{"id":"e1","timestamp":"2026-06-11T12:00:00.000Z","model":"gpt-5","tokens":{"input":1,"output":2},"toMessageId":1},`+
		`{"id":"e2","timestamp":"2026-06-11T12:01:00.000Z","model":"gpt-5-mini","tokens":{"total":345}}]}}`)
	s := newTestService(t, map[string]string{"AMP_DATA_DIR": root})
	got, out := byModel(t, s, "2026-06-11", nil)
	want := map[string]row{
		"claude-haiku-4-5-20251001": {Calls: 2, InputTokens: 15, OutputTokens: 223, CacheWriteTokens: 986, CacheReadTokens: 11372},
		"gpt-5":                     {Calls: 1, InputTokens: 1, OutputTokens: 2, CacheWriteTokens: 300, CacheReadTokens: 4000},
		"gpt-5-mini":                {Calls: 1, OutputTokens: 345},
	}
	for m, w := range want {
		g := got[m]
		if g.Calls != w.Calls || g.InputTokens != w.InputTokens || g.OutputTokens != w.OutputTokens ||
			g.CacheWriteTokens != w.CacheWriteTokens || g.CacheReadTokens != w.CacheReadTokens {
			t.Errorf("%s: got %+v, want %+v (degraded %v)", m, g, w, out.Degraded)
		}
	}
	if len(got) != len(want) {
		t.Errorf("models %v", got)
	}
}

// TestGooseSessions: Goose's sessions.db (its sessions table as Goose 1.35
// creates it, block/goose session_manager.rs; the columns and rules of
// ccusage 20's adapter/goose): one call a session at created_at, the
// accumulated counts over the last request's, a total above input plus
// output billed as output, a session with no model config skipped, and
// created_at as SQLite's CURRENT_TIMESTAMP text or Unix seconds.
func TestGooseSessions(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "data", "sessions", "sessions.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := func(m string) string {
		return fmt.Sprintf(`{"model_name":%q,"context_limit":null,"temperature":null}`, m)
	}
	stmts := []string{
		`CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '', user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER, accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER, accumulated_cost REAL, schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT, provider_name TEXT, model_config_json TEXT, goose_mode TEXT NOT NULL DEFAULT 'auto', archived_at TIMESTAMP, project_id TEXT)`,
		fmt.Sprintf(`INSERT INTO sessions (id, working_dir, created_at, total_tokens, input_tokens, output_tokens, accumulated_total_tokens, accumulated_input_tokens, accumulated_output_tokens, provider_name, model_config_json) VALUES ('s1', '/w', '2026-06-12 08:30:00', 150, 100, 50, 1800, 1000, 500, 'anthropic', '%s')`, cfg("claude-sonnet-4-5")),
		fmt.Sprintf(`INSERT INTO sessions (id, working_dir, created_at, total_tokens, input_tokens, output_tokens, provider_name, model_config_json) VALUES ('s2', '/w', 1781265600, 90, 60, 30, 'openai', '%s')`, cfg("gpt-5")),
		`INSERT INTO sessions (id, working_dir, created_at, input_tokens, output_tokens) VALUES ('s3', '/w', '2026-06-12 09:00:00', 7, 7)`,
	}
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	s := newTestService(t, map[string]string{"GOOSE_PATH_ROOT": root})
	got, out := byModel(t, s, "2026-06-12", nil)
	want := map[string]row{
		"claude-sonnet-4-5": {Calls: 1, InputTokens: 1000, OutputTokens: 800},
		"gpt-5":             {Calls: 1, InputTokens: 60, OutputTokens: 30},
	}
	for m, w := range want {
		g := got[m]
		if g.Calls != w.Calls || g.InputTokens != w.InputTokens || g.OutputTokens != w.OutputTokens {
			t.Errorf("%s: got %+v, want %+v (degraded %v)", m, g, w, out.Degraded)
		}
	}
	if len(got) != len(want) {
		t.Errorf("models %v", got)
	}
}

// TestKimiWire: Kimi CLI's sessions/<hash>/<session>/wire.jsonl (its wire
// messages; the layout and rules of ccusage 20's adapter/kimi): each
// StatusUpdate's token_usage is a call, a repeated one counts once, one
// with only a total counts it as output, the model is config.json's, a
// wire.jsonl at another depth is not read, and lines appended later are
// read on the next answer. Kimi Code's ~/.kimi-code
// sessions/<ws>/<session>/agents/<agent>/wire.jsonl (its usage.record
// lines, as ccusage 20.0.24's adapter/kimi parser.rs reads them): each
// "turn" record is a call at its time in milliseconds with its model less
// the "kimi-code/" prefix; the "session" records (running totals) are not.
func TestKimiWire(t *testing.T) {
	home := t.TempDir()
	root := filepath.Join(home, ".kimi")
	status := func(ts, id, usage string) string {
		return fmt.Sprintf(`{"timestamp": %s, "message": {"type": "StatusUpdate", "payload": {"context_usage": 0.05, "token_usage": %s, "message_id": %q}}}`+"\n", ts, usage, id)
	}
	wire := filepath.Join(root, "sessions", "h1", "s1", "wire.jsonl")
	testplugin.WriteFile(t, wire, `{"type": "metadata", "protocol_version": "1.3"}`+"\n"+
		`{"timestamp": 1781341200.1, "message": {"type": "TurnBegin", "payload": {"user_input": "hi"}}}`+"\n"+
		status("1781341204.9", "m1", `{"input_other": 3000, "output": 200, "input_cache_read": 15000, "input_cache_creation": 100}`)+
		status("1781341204.9", "m1", `{"input_other": 3000, "output": 200, "input_cache_read": 15000, "input_cache_creation": 100}`)+
		status("1781341260.0", "m2", `{"total": 640}`))
	testplugin.WriteFile(t, filepath.Join(root, "sessions", "h1", "s2", "deeper", "wire.jsonl"), status("1781341300.0", "m9", `{"input_other": 9, "output": 9}`))
	record := func(ms int64, model, scope, usage string) string {
		return fmt.Sprintf(`{"type":"usage.record","time":%d,"model":%q,"usageScope":%q,"usage":%s}`+"\n", ms, model, scope, usage)
	}
	// 2026-06-14T07:40:18Z and 07:41:30Z.
	testplugin.WriteFile(t, filepath.Join(home, ".kimi-code", "sessions", "ws1", "s9", "agents", "main", "wire.jsonl"),
		`{"type":"metadata","protocol_version":"2.0"}`+"\n"+
			record(1781422818000, "kimi-code/kimi-for-coding", "turn", `{"inputOther":400,"output":60,"inputCacheRead":2000,"inputCacheCreation":0}`)+
			record(1781422890000, "kimi-code/kimi-k2.6", "turn", `{"inputOther":100,"output":"x","inputCacheRead":0,"inputCacheCreation":50}`)+
			record(1781422890000, "kimi-code/kimi-for-coding", "session", `{"inputOther":500,"output":60,"inputCacheRead":2000,"inputCacheCreation":50}`))
	testplugin.WriteFile(t, filepath.Join(home, ".kimi-code", "sessions", "ws1", "s9", "agents", "explore", "wire.jsonl"),
		record(1781422850000, "kimi-code/kimi-for-coding", "turn", `{"inputOther":7,"output":3}`))
	s := newTestService(t, map[string]string{"HOME": home})
	got, out := byModel(t, s, "2026-06-13", nil)
	if g := got["kimi-for-coding"]; len(got) != 1 || g.Calls != 2 || g.InputTokens != 3000 || g.OutputTokens != 840 || g.CacheReadTokens != 15000 || g.CacheWriteTokens != 100 {
		t.Errorf("got %+v, want kimi-for-coding: 2 calls, input 3000, output 840, cache read 15000, cache write 100", got)
	}
	if len(out.Degraded) != 0 {
		t.Errorf("degraded %v", out.Degraded)
	}
	got, _ = byModel(t, s, "2026-06-14", nil)
	if g, k := got["kimi-for-coding"], got["kimi-k2.6"]; len(got) != 2 || g.Calls != 2 || g.InputTokens != 407 || g.OutputTokens != 63 || g.CacheReadTokens != 2000 ||
		k.Calls != 1 || k.InputTokens != 100 || k.OutputTokens != 0 || k.CacheWriteTokens != 50 {
		t.Errorf("Kimi Code: got %+v, want kimi-for-coding 2 calls (input 407, output 63, cache read 2000) and kimi-k2.6 1 call (input 100, cache write 50)", got)
	}

	f, err := os.OpenFile(wire, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(status("1781341400.0", "m3", `{"input_other": 10, "output": 5}`)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got, _ = byModel(t, s, "2026-06-13", nil)
	if g := got["kimi-for-coding"]; g.Calls != 3 || g.InputTokens != 3010 || g.OutputTokens != 845 {
		t.Errorf("after an appended line: got %+v, want 3 calls, input 3010, output 845", got)
	}

	other := t.TempDir()
	testplugin.WriteFile(t, filepath.Join(other, "config.json"), `{"model": "kimi-k2.6"}`)
	testplugin.WriteFile(t, filepath.Join(other, "sessions", "h2", "s3", "wire.jsonl"), status("1781341500.0", "m4", `{"input_other": 7, "output": 3}`))
	s2 := newTestService(t, map[string]string{"HOME": home, "KIMI_DATA_DIR": other})
	got, _ = byModel(t, s2, "2026-06-13", nil)
	if g := got["kimi-k2.6"]; len(got) != 1 || g.Calls != 1 || g.InputTokens != 7 || g.OutputTokens != 3 {
		t.Errorf("KIMI_DATA_DIR with a config.json: got %+v, want one kimi-k2.6 call", got)
	}
}

// TestKiloDatabase: Kilo Code CLI's kilo.db (OpenCode's message table,
// here in the minimal shape ccusage 20's adapter/kilo fixtures use): an
// assistant message is a call with reasoning billed as output, a user
// message and one without time.created are none, and a message in two
// databases of KILO_DATA_DIR's list counts once.
func TestKiloDatabase(t *testing.T) {
	msg := func(id, role, created, tokens string) string {
		return fmt.Sprintf(`{"id":%q,"sessionID":"ses_1","role":%q,"time":{%s},"modelID":"claude-sonnet-4-5","providerID":"anthropic","cost":0.01,"tokens":%s}`, id, role, created, tokens)
	}
	var dirs []string
	for i := range 2 {
		dir := filepath.Join(t.TempDir(), fmt.Sprint("kilo", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("sqlite", filepath.Join(dir, "kilo.db"))
		if err != nil {
			t.Fatal(err)
		}
		rows := [][2]string{
			{"msg_1", msg("msg_1", "assistant", `"created":1781427600000`, `{"input":100,"output":50,"reasoning":5,"cache":{"read":10,"write":20}}`)},
			{"msg_2", msg("msg_2", "user", `"created":1781427600000`, `{"input":999,"output":999}`)},
			{"msg_3", msg("msg_3", "assistant", ``, `{"input":7,"output":7}`)},
		}
		if _, err := db.Exec(`CREATE TABLE message (id TEXT, session_id TEXT, data TEXT)`); err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if _, err := db.Exec(`INSERT INTO message VALUES (?, 'ses_1', ?)`, r[0], r[1]); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
		dirs = append(dirs, dir)
	}
	s := newTestService(t, map[string]string{"KILO_DATA_DIR": strings.Join(dirs, ",")})
	got, out := byModel(t, s, "2026-06-14", map[string]any{"from": "1970-01-01"})
	if g := got["claude-sonnet-4-5"]; len(got) != 1 || g.Calls != 1 || g.InputTokens != 100 || g.OutputTokens != 55 || g.CacheReadTokens != 10 || g.CacheWriteTokens != 20 {
		t.Errorf("got %+v (degraded %v), want one claude-sonnet-4-5 call: input 100, output 55, cache read 10, write 20", got, out.Degraded)
	}
}

// TestPiSessions: pi's --<cwd>--/<time>_<session>.jsonl entries (pi-mono's
// coding-agent session format; the rules of ccusage 20's adapter/pi): an
// assistant message's usage is a call, a copied entry counts once, one
// with only totalTokens counts it as output, and user messages, entries of
// another type and lines appended later are handled as pi writes them.
func TestPiSessions(t *testing.T) {
	root := t.TempDir()
	entry := func(typ, ts, role, usage string) string {
		return fmt.Sprintf(`{"type":%q,"id":"e","parentId":null,"timestamp":%q,"message":{"role":%q,"content":[],"provider":"anthropic","model":"claude-sonnet-4-5","usage":%s}}`+"\n", typ, ts, role, usage)
	}
	file := filepath.Join(root, "--home-dev-shop--", "2026-06-15T08-00-00-000Z_s1.jsonl")
	testplugin.WriteFile(t, file, `{"type":"session","version":3,"id":"s1","timestamp":"2026-06-15T08:00:00.000Z","cwd":"/home/dev/shop"}`+"\n"+
		entry("message", "2026-06-15T08:00:09.500Z", "assistant", `{"input":2400,"output":180,"cacheRead":0,"cacheWrite":6100,"totalTokens":8680,"cost":{"total":0.03}}`)+
		entry("message", "2026-06-15T08:00:09.500Z", "assistant", `{"input":2400,"output":180,"cacheRead":0,"cacheWrite":6100,"totalTokens":8680,"cost":{"total":0.03}}`)+
		entry("message", "2026-06-15T08:00:10.000Z", "user", `{"input":999}`)+
		entry("custom", "2026-06-15T08:00:11.000Z", "assistant", `{"input":999}`)+
		entry("message", "2026-06-15T08:00:21.000Z", "assistant", `{"totalTokens":333}`))
	s := newTestService(t, map[string]string{"PI_AGENT_DIR": root})
	got, out := byModel(t, s, "2026-06-15", nil)
	if g := got["claude-sonnet-4-5"]; len(got) != 1 || g.Calls != 2 || g.InputTokens != 2400 || g.OutputTokens != 513 || g.CacheWriteTokens != 6100 {
		t.Errorf("got %+v (degraded %v), want 2 claude-sonnet-4-5 calls: input 2400, output 513, cache write 6100", got, out.Degraded)
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(entry("message", "2026-06-15T08:01:00.000Z", "assistant", `{"input":10,"output":5}`)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got, _ = byModel(t, s, "2026-06-15", nil)
	if g := got["claude-sonnet-4-5"]; g.Calls != 3 || g.InputTokens != 2410 {
		t.Errorf("after an appended entry: got %+v, want 3 calls, input 2410", got)
	}
}

// TestHermesSessions: Hermes Agent's state.db sessions table (the columns
// hermes_state.py creates; the rules of ccusage 20's adapter/hermes): one
// call a session at started_at (Unix seconds), reasoning billed as output,
// a session with no model or no tokens none, and a session in two listed
// homes counts once.
func TestHermesSessions(t *testing.T) {
	var homes []string
	for i := range 2 {
		dir := filepath.Join(t.TempDir(), fmt.Sprint("hermes", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("sqlite", filepath.Join(dir, "state.db"))
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{
			`CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, model TEXT, started_at REAL NOT NULL, message_count INTEGER DEFAULT 0, input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0, cache_read_tokens INTEGER DEFAULT 0, cache_write_tokens INTEGER DEFAULT 0, reasoning_tokens INTEGER DEFAULT 0, billing_provider TEXT, estimated_cost_usd REAL, actual_cost_usd REAL)`,
			`INSERT INTO sessions VALUES ('s1', 'cli', 'claude-sonnet-4-5', 1781600400.25, 12, 4200, 900, 31000, 5200, 100, 'anthropic', 0.05, NULL)`,
			`INSERT INTO sessions VALUES ('s2', 'cli', NULL, 1781600500, 1, 10, 10, 0, 0, 0, NULL, NULL, NULL)`,
			`INSERT INTO sessions VALUES ('s3', 'cli', 'claude-sonnet-4-5', 1781600600, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL)`,
		} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
		homes = append(homes, dir)
	}
	s := newTestService(t, map[string]string{"HERMES_HOME": strings.Join(homes, ",")})
	got, out := byModel(t, s, "2026-06-16", nil)
	if g := got["claude-sonnet-4-5"]; len(got) != 1 || g.Calls != 1 || g.InputTokens != 4200 || g.OutputTokens != 1000 || g.CacheReadTokens != 31000 || g.CacheWriteTokens != 5200 {
		t.Errorf("got %+v (degraded %v), want one claude-sonnet-4-5 call: input 4200, output 1000, cache read 31000, write 5200", got, out.Degraded)
	}
}

// TestCopilotSessionState: Copilot CLI's session-state/<id>/events.jsonl
// (its events; the rule ccusage 20.0.24 applies): each session.shutdown
// bills per model what its cumulative usage grew since the previous one,
// inputTokens less the cache reads and writes it includes; an events.jsonl
// deeper down is not a session.
func TestCopilotSessionState(t *testing.T) {
	home := t.TempDir()
	shutdown := func(ts, metrics string) string {
		return fmt.Sprintf(`{"type":"session.shutdown","data":{"shutdownType":"routine","modelMetrics":%s},"id":"e","timestamp":%q,"parentId":null}`+"\n", metrics, ts)
	}
	state := filepath.Join(home, "copilot", "session-state")
	testplugin.WriteFile(t, filepath.Join(state, "s1", "events.jsonl"),
		`{"type":"session.start","data":{"sessionId":"s1"},"id":"a","timestamp":"2026-06-17T09:00:00.000Z","parentId":null}`+"\n"+
			shutdown("2026-06-17T09:10:00.000Z", `{"claude-sonnet-4.5":{"requests":{"count":2,"cost":2},"usage":{"inputTokens":1000,"outputTokens":100,"cacheReadTokens":600,"cacheWriteTokens":0}}}`)+
			shutdown("2026-06-17T14:20:00.000Z", `{"claude-sonnet-4.5":{"usage":{"inputTokens":3000,"outputTokens":300,"cacheReadTokens":600,"cacheWriteTokens":500}},"gpt-5-mini":{"usage":{"inputTokens":10,"outputTokens":5}}}`))
	testplugin.WriteFile(t, filepath.Join(state, "s2", "deeper", "events.jsonl"), shutdown("2026-06-17T09:10:00.000Z", `{"gpt-5":{"usage":{"inputTokens":7,"outputTokens":7}}}`))
	s := newTestService(t, map[string]string{"HOME": home, "COPILOT_HOME": filepath.Join(home, "copilot")})
	got, out := byModel(t, s, "2026-06-17", nil)
	want := map[string]row{
		"claude-sonnet-4.5": {Calls: 2, InputTokens: 400 + 1500, OutputTokens: 300, CacheWriteTokens: 500, CacheReadTokens: 600},
		"gpt-5-mini":        {Calls: 1, InputTokens: 10, OutputTokens: 5},
	}
	for m, w := range want {
		g := got[m]
		if g.Calls != w.Calls || g.InputTokens != w.InputTokens || g.OutputTokens != w.OutputTokens ||
			g.CacheWriteTokens != w.CacheWriteTokens || g.CacheReadTokens != w.CacheReadTokens {
			t.Errorf("%s: got %+v, want %+v (degraded %v)", m, g, w, out.Degraded)
		}
	}
	if len(got) != len(want) {
		t.Errorf("models %v", got)
	}
	if g := got["claude-sonnet-4.5"]; g.CostUSD <= 0 {
		t.Errorf("claude-sonnet-4.5 is not priced: %+v", g)
	}
}

// TestCopilotOTelExport: Copilot CLI's OpenTelemetry file export (spans as
// OpenTelemetry's JavaScript SDK writes them, GenAI attributes; the places
// and rules ccusage 20.0.24 reads) from COPILOT_OTEL_FILE_EXPORTER_PATH and
// ${COPILOT_HOME}/otel/**/*.jsonl: a chat span is a call, input less the
// cache reads and writes it includes, at the span's end; an invoke_agent
// span counts only when its trace has no chat span; a span written twice
// counts once; another operation, a .json file and a folder named by the
// variable are not read (the folder is named in degraded).
func TestCopilotOTelExport(t *testing.T) {
	home := t.TempDir()
	span := func(trace, id, op, model string, end int64, in, out, cr, cw int) string {
		return fmt.Sprintf(`{"traceId":%q,"spanId":%q,"name":"%s %s","kind":2,"startTime":[%d,0],"endTime":[%d,500000000],"attributes":{"gen_ai.operation.name":%q,"gen_ai.response.model":%q,"gen_ai.conversation.id":"conv-1","gen_ai.usage.input_tokens":%d,"gen_ai.usage.output_tokens":%d,"gen_ai.usage.cache_read.input_tokens":%d,"gen_ai.usage.cache_creation.input_tokens":%d},"status":{"code":0}}`+"\n",
			trace, id, op, model, end-2, end, op, model, in, out, cr, cw)
	}
	const day = 1781654400 // 2026-06-17T00:00:00Z
	chat := span("t1", "c1", "chat", "claude-sonnet-4.5", day+3600, 1000, 100, 600, 50)
	otel := filepath.Join(home, "copilot", "otel")
	testplugin.WriteFile(t, filepath.Join(otel, "run", "traces.jsonl"),
		chat+chat+
			span("t1", "c2", "chat", "gpt-5-mini", day+3700, 30, 3, 0, 0)+
			span("t1", "a1", "invoke_agent", "claude-sonnet-4.5", day+3800, 1030, 103, 600, 50)+
			span("t2", "a2", "invoke_agent", "gpt-5", day+7200, 500, 50, 0, 0)+
			span("t2", "x1", "execute_tool", "gpt-5", day+7100, 9, 9, 0, 0)+
			span("t3", "c3", "chat", "gpt-5", -1, 9, 9, 0, 0))
	testplugin.WriteFile(t, filepath.Join(otel, "traces.json"), span("t4", "c4", "chat", "gpt-5", day+60, 9, 9, 0, 0))
	file := filepath.Join(home, "export.out")
	testplugin.WriteFile(t, file, span("t5", "c5", "chat", "gpt-5", day+86399, 7, 1, 0, 0)+span("t6", "c6", "chat", "gpt-5", day+86400, 70000, 1, 0, 0))
	s := newTestService(t, map[string]string{"HOME": home, "COPILOT_HOME": filepath.Join(home, "copilot"), "COPILOT_OTEL_FILE_EXPORTER_PATH": file})
	got, out := byModel(t, s, "2026-06-17", nil)
	want := map[string]row{
		"claude-sonnet-4.5": {Calls: 1, InputTokens: 350, OutputTokens: 100, CacheWriteTokens: 50, CacheReadTokens: 600},
		"gpt-5-mini":        {Calls: 1, InputTokens: 30, OutputTokens: 3},
		"gpt-5":             {Calls: 2, InputTokens: 507, OutputTokens: 51},
	}
	for m, w := range want {
		g := got[m]
		if g.Calls != w.Calls || g.InputTokens != w.InputTokens || g.OutputTokens != w.OutputTokens ||
			g.CacheWriteTokens != w.CacheWriteTokens || g.CacheReadTokens != w.CacheReadTokens {
			t.Errorf("%s: got %+v, want %+v (degraded %v)", m, g, w, out.Degraded)
		}
	}
	if len(got) != len(want) {
		t.Errorf("models %v", got)
	}

	dir := t.TempDir()
	s = newTestService(t, map[string]string{"HOME": home, "COPILOT_HOME": filepath.Join(home, "copilot"), "COPILOT_OTEL_FILE_EXPORTER_PATH": dir})
	_, out = byModel(t, s, "2026-06-17", nil)
	named := false
	for _, d := range out.Degraded {
		named = named || (d.Provider == "copilot" && strings.Contains(d.Reason, "COPILOT_OTEL_FILE_EXPORTER_PATH") && strings.Contains(d.Reason, "not a file"))
	}
	if !named {
		t.Errorf("degraded %v does not name the folder COPILOT_OTEL_FILE_EXPORTER_PATH names", out.Degraded)
	}
}

// TestGrokUpdates: Grok Build CLI's sessions/<url-encoded cwd>/<session>/
// updates.jsonl with summary.json beside it (the layout and fields ccusage
// 20.0.24's adapters/grok reads, from Grok CLI 1.0.0's files): each
// turn_completed update bills per model of its modelUsage (else the
// summary's current_model_id, else "unknown"), inputTokens less the cache
// reads and writes it includes; reasoning is inside outputTokens; the time
// is _meta.agentTimestampMs over the envelope's seconds; an eventId seen in
// two sessions' files counts once; other updates and a token count that is
// not a number bill nothing.
func TestGrokUpdates(t *testing.T) {
	home := t.TempDir()
	turn := func(secs int64, meta, usage string) string {
		return fmt.Sprintf(`{"timestamp":%d,"method":"_x.ai/session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"turn_completed","usage":%s},"_meta":%s}}`+"\n", secs, usage, meta)
	}
	// 2026-06-17T23:59:59Z on the envelope, 2026-06-18T00:00:01Z as the agent's ms.
	both := turn(1781740799, `{"eventId":"e2","agentTimestampMs":1781740801000}`,
		`{"inputTokens":1300,"outputTokens":120,"modelUsage":{"grok-4.5-build":{"inputTokens":1000,"outputTokens":100,"cachedReadTokens":600,"cacheCreationTokens":100,"reasoningTokens":40},"grok-code-fast-1":{"inputTokens":300,"outputTokens":"20"}}}`)
	sessions := filepath.Join(home, "grok", "sessions")
	s1 := filepath.Join(sessions, "%2Fhome%2Fdev%2Fshop", "s1")
	testplugin.WriteFile(t, filepath.Join(s1, "updates.jsonl"),
		`{"timestamp":1781690000,"params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}},"_meta":{"eventId":"e0"}}}`+"\n"+
			turn(1781690000, `{"eventId":"e1"}`, `{"inputTokens":500,"outputTokens":50,"cachedReadTokens":200}`)+both)
	testplugin.WriteFile(t, filepath.Join(s1, "summary.json"), `{"info":{"id":"s1","cwd":"/home/dev/shop"},"current_model_id":"grok-4.3-build"}`)
	testplugin.WriteFile(t, filepath.Join(sessions, "%2Fhome%2Fdev%2Fapi", "s2", "updates.jsonl"),
		both+turn(1781690000, `{}`, `{"inputTokens":70,"outputTokens":7}`))
	s := newTestService(t, map[string]string{"HOME": home, "GROK_HOME": filepath.Join(home, "grok")})

	got, out := byModel(t, s, "2026-06-17", map[string]any{"include-project-names": true})
	want := map[string]row{
		"grok-4.3-build": {Calls: 1, InputTokens: 300, OutputTokens: 50, CacheReadTokens: 200},
		"unknown":        {Calls: 1, InputTokens: 70, OutputTokens: 7},
	}
	checkRows := func(day string, got, want map[string]row) {
		t.Helper()
		for m, w := range want {
			g := got[m]
			if g.Calls != w.Calls || g.InputTokens != w.InputTokens || g.OutputTokens != w.OutputTokens ||
				g.CacheWriteTokens != w.CacheWriteTokens || g.CacheReadTokens != w.CacheReadTokens {
				t.Errorf("%s %s: got %+v, want %+v (degraded %v)", day, m, g, w, out.Degraded)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s models %v", day, got)
		}
	}
	checkRows("2026-06-17", got, want)
	got, _ = byModel(t, s, "2026-06-18", nil)
	checkRows("2026-06-18", got, map[string]row{
		"grok-4.5-build":   {Calls: 1, InputTokens: 300, OutputTokens: 100, CacheWriteTokens: 100, CacheReadTokens: 600},
		"grok-code-fast-1": {Calls: 1, InputTokens: 300},
	})
	if g := got["grok-4.5-build"]; math.Abs(g.CostUSD-(300*2+100*6+100*2.5+600*0.3)/1e6) > 1e-9 {
		t.Errorf("grok-4.5-build is not priced as grok-4.5: %+v", g)
	}
	_, u := usageOf(t, s, map[string]any{"from": "2026-06-17", "to": "2026-06-17", "by": "project", "include-project-names": true, "timezone": "UTC"})
	var projects []string
	for _, r := range u.Rows {
		projects = append(projects, r.Key)
	}
	sort.Strings(projects)
	if strings.Join(projects, ",") != "api,shop" {
		t.Errorf("projects %v, want api (the decoded folder) and shop (the summary's cwd)", projects)
	}
}

// TestOpenClawSessions: OpenClaw's session transcripts (pi's session
// entries, as ccusage 20.0.24's adapters/openclaw reads them) under
// OPENCLAW_DIR at any depth, with the copies of reset and deleted
// sessions: an assistant message's model is its own, else the last
// model_change's (at the root or, for a custom model-snapshot, in its
// data); a copied line counts once; the time is the message's (Unix ms),
// else the entry's (RFC 3339); another file is not a transcript.
func TestOpenClawSessions(t *testing.T) {
	root := t.TempDir()
	msg := func(entryTS, model, inner string) string {
		m := ""
		if model != "" {
			m = fmt.Sprintf(`"model":%q,`, model)
		}
		return fmt.Sprintf(`{"type":"message","id":"x","timestamp":%q,"message":{"role":"assistant","content":[],%s%s}}`+"\n", entryTS, m, inner)
	}
	usage := func(in, out, cr int) string {
		return fmt.Sprintf(`"usage":{"input":%d,"output":%d,"cacheRead":%d,"cacheWrite":0,"totalTokens":%d,"cost":{"total":0.01}}`, in, out, cr, in+out+cr)
	}
	sessions := filepath.Join(root, "agents", "main", "sessions")
	line := msg("2026-06-17T09:00:00Z", "", usage(100, 10, 50)+`,"timestamp":1781686800000`)
	testplugin.WriteFile(t, filepath.Join(sessions, "s1.jsonl"),
		`{"type":"model_change","provider":"anthropic","modelId":"claude-sonnet-4-5"}`+"\n"+line+line+
			msg("2026-06-17T09:01:00Z", "gpt-5.2", usage(200, 20, 0))+
			`{"type":"custom","customType":"model-snapshot","data":{"provider":"openai","modelId":"gpt-5"}}`+"\n"+
			msg("2026-06-17T09:02:00Z", "", usage(300, 30, 0))+
			`{"type":"message","timestamp":"2026-06-17T09:03:00Z","message":{"role":"user","content":"hi"}}`+"\n")
	testplugin.WriteFile(t, filepath.Join(sessions, "s0.jsonl.reset.2026-06-17T08-00-00.000Z"), msg("2026-06-17T08:00:00Z", "gpt-5.2", usage(7, 7, 0)))
	testplugin.WriteFile(t, filepath.Join(sessions, "s9.jsonl.bak"), msg("2026-06-17T08:00:00Z", "gpt-5.2", usage(9, 9, 0)))
	s := newTestService(t, map[string]string{"OPENCLAW_DIR": root})
	got, _ := byModel(t, s, "2026-06-17", nil)
	want := map[string]row{
		"claude-sonnet-4-5": {Calls: 1, InputTokens: 100, OutputTokens: 10, CacheReadTokens: 50},
		"gpt-5.2":           {Calls: 2, InputTokens: 207, OutputTokens: 27},
		"gpt-5":             {Calls: 1, InputTokens: 300, OutputTokens: 30},
	}
	for m, w := range want {
		g := got[m]
		if g.Calls != w.Calls || g.InputTokens != w.InputTokens || g.OutputTokens != w.OutputTokens || g.CacheReadTokens != w.CacheReadTokens {
			t.Errorf("%s: got %+v, want %+v", m, g, w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("models %v", got)
	}
}

// TestZCodeDatabase: ZCode's cli/db/db.sqlite under ZCODE_HOME (the tables
// and columns ccusage 20.0.24's adapters/zcode reads): a completed
// model_usage row is a call, input less the cache reads and writes it
// includes, a computed total beyond input and output billed as output, at
// started_at (ms); another status is not a call; a row whose session is
// gone still counts, without a project; an older database without the
// cache columns is read too; one without a required column is named in
// degraded with the column.
func TestZCodeDatabase(t *testing.T) {
	write := func(home string, stmts ...string) {
		t.Helper()
		dir := filepath.Join(home, "cli", "db")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("sqlite", filepath.Join(dir, "db.sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, q := range stmts {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
	}
	const day = int64(1781654400000) // 2026-06-17T00:00:00Z in ms
	insert := func(id, session, model, status string, at int64, in, out, cw, cr, total int) string {
		return fmt.Sprintf(`INSERT INTO model_usage VALUES (%q, %q, %d, %q, 'zai', %q, %d, %d, %d, %d, %d)`, id, session, at, model, status, in, out, cw, cr, total)
	}
	home := t.TempDir()
	write(home,
		`CREATE TABLE session (id TEXT PRIMARY KEY, directory TEXT NOT NULL, version INTEGER)`,
		`CREATE TABLE model_usage (id TEXT PRIMARY KEY, session_id TEXT, started_at INTEGER, model_id TEXT, provider_id TEXT, status TEXT, input_tokens INTEGER, output_tokens INTEGER, cache_creation_input_tokens INTEGER, cache_read_input_tokens INTEGER, computed_total_tokens INTEGER)`,
		`INSERT INTO session VALUES ('s1', '/home/dev/shop', 2)`,
		insert("m1", "s1", "glm-4.6", "completed", day+3600000, 1000, 100, 200, 300, 1100),
		insert("m2", "s1", "glm-4.6", "completed", day+7200000, 500, 50, 0, 0, 600),
		insert("m3", "s1", "glm-4.6", "failed", day+7300000, 9000, 0, 0, 0, 9000),
		insert("m4", "gone", "glm-5", "completed", day+86399000, 70, 7, 0, 0, 77),
		insert("m5", "s1", "glm-5", "completed", day+86400000, 90000, 7, 0, 0, 90007))
	s := newTestService(t, map[string]string{"HOME": t.TempDir(), "ZCODE_HOME": home})
	got, out := byModel(t, s, "2026-06-17", nil)
	want := map[string]row{
		"glm-4.6": {Calls: 2, InputTokens: 500 + 500, OutputTokens: 100 + 100, CacheWriteTokens: 200, CacheReadTokens: 300},
		"glm-5":   {Calls: 1, InputTokens: 70, OutputTokens: 7},
	}
	for m, w := range want {
		g := got[m]
		if g.Calls != w.Calls || g.InputTokens != w.InputTokens || g.OutputTokens != w.OutputTokens ||
			g.CacheWriteTokens != w.CacheWriteTokens || g.CacheReadTokens != w.CacheReadTokens {
			t.Errorf("%s: got %+v, want %+v (degraded %v)", m, g, w, out.Degraded)
		}
	}
	if len(got) != len(want) {
		t.Errorf("models %v", got)
	}
	projects, _ := byModel(t, s, "2026-06-17", map[string]any{"by": "project", "include-project-names": true})
	if projects["shop"].Calls != 2 {
		t.Errorf("projects %v, want shop (the session's directory) with two calls", projects)
	}

	legacy := t.TempDir()
	write(legacy,
		`CREATE TABLE session (id TEXT, directory TEXT)`,
		`CREATE TABLE model_usage (id TEXT, session_id TEXT, started_at INTEGER, model_id TEXT, status TEXT, input_tokens INTEGER, output_tokens INTEGER)`,
		fmt.Sprintf(`INSERT INTO model_usage VALUES ('m1', 's1', %d, 'glm-4.6', 'completed', 1000, 100)`, day+60000))
	s = newTestService(t, map[string]string{"HOME": t.TempDir(), "ZCODE_HOME": legacy})
	got, out = byModel(t, s, "2026-06-17", nil)
	if g := got["glm-4.6"]; len(got) != 1 || g.InputTokens != 1000 || g.OutputTokens != 100 {
		t.Errorf("older database: got %+v (degraded %v), want one glm-4.6 call of 1000 in, 100 out", got, out.Degraded)
	}

	other := t.TempDir()
	write(other,
		`CREATE TABLE session (id TEXT, directory TEXT)`,
		`CREATE TABLE model_usage (id TEXT, session_id TEXT, started_at INTEGER, model TEXT, status TEXT, input_tokens INTEGER, output_tokens INTEGER)`)
	s = newTestService(t, map[string]string{"HOME": t.TempDir(), "ZCODE_HOME": other})
	_, out = byModel(t, s, "2026-06-17", nil)
	named := false
	for _, d := range out.Degraded {
		named = named || (d.Provider == "zcode" && strings.Contains(d.Reason, "model_id"))
	}
	if !named {
		t.Errorf("degraded %v does not name the missing model_id column", out.Degraded)
	}
}

// TestCodebuffChats: Codebuff's projects/<project>/chats/<chat>/
// chat-messages.json under CODEBUFF_DATA_DIR (the places and fields
// ccusage 20.0.24's adapters/codebuff reads): an assistant message ("ai" or
// "assistant") with usage is a call, at its timestamp (RFC 3339 or Unix ms)
// else the time its chat folder is named for; a message without a model is
// "codebuff-unknown"; OpenAI-style usage leaves the cached part out of
// input; a message id seen twice counts once; a user message and a file
// that is not an array are not calls; the project is the projects folder's
// child.
func TestCodebuffChats(t *testing.T) {
	root := filepath.Join(t.TempDir(), "manicode")
	chat := filepath.Join(root, "projects", "shop", "chats", "2026-06-17T09-00-00.000Z")
	ai := func(id, ts, model, usage string) string {
		return fmt.Sprintf(`{"variant":"ai","id":%q,%s"metadata":{"model":%q,%s}}`, id, ts, model, usage)
	}
	testplugin.WriteFile(t, filepath.Join(chat, "chat-messages.json"), "["+strings.Join([]string{
		`{"variant":"user","content":"hi","timestamp":"2026-06-17T09:00:00.000Z","metadata":{"usage":{"inputTokens":9}}}`,
		ai("m1", `"timestamp":"2026-06-17T09:00:05.000Z",`, "claude-sonnet-4-5", `"usage":{"inputTokens":500,"outputTokens":200,"cacheCreationInputTokens":300,"cacheReadInputTokens":100}`),
		ai("m1", `"timestamp":"2026-06-17T09:00:05.000Z",`, "claude-sonnet-4-5", `"usage":{"inputTokens":500,"outputTokens":200,"cacheCreationInputTokens":300,"cacheReadInputTokens":100}`),
		ai("m2", "", "claude-sonnet-4-5", `"usage":{"promptTokens":40,"completionTokens":4}`),
		ai("m3", `"timestamp":1781690400000,`, "gpt-5", `"codebuff":{"usage":{"prompt_tokens":750,"completion_tokens":80,"prompt_tokens_details":{"cached_tokens":100}}}`),
		ai("m4", `"timestamp":"2026-06-17T10:00:00.000Z",`, "", `"usage":{"inputTokens":30,"outputTokens":5}`),
	}, ",")+"]")
	testplugin.WriteFile(t, filepath.Join(root, "projects", "api", "chats", "c2", "chat-messages.json"), `{"not":"an array"}`)
	s := newTestService(t, map[string]string{"HOME": t.TempDir(), "CODEBUFF_DATA_DIR": root})
	got, out := byModel(t, s, "2026-06-17", nil)
	want := map[string]row{
		"claude-sonnet-4-5": {Calls: 2, InputTokens: 540, OutputTokens: 204, CacheWriteTokens: 300, CacheReadTokens: 100},
		"gpt-5":             {Calls: 1, InputTokens: 650, OutputTokens: 80, CacheReadTokens: 100},
		"codebuff-unknown":  {Calls: 1, InputTokens: 30, OutputTokens: 5},
	}
	for m, w := range want {
		g := got[m]
		if g.Calls != w.Calls || g.InputTokens != w.InputTokens || g.OutputTokens != w.OutputTokens ||
			g.CacheWriteTokens != w.CacheWriteTokens || g.CacheReadTokens != w.CacheReadTokens {
			t.Errorf("%s: got %+v, want %+v (degraded %v)", m, g, w, out.Degraded)
		}
	}
	if len(got) != len(want) {
		t.Errorf("models %v", got)
	}
	projects, _ := byModel(t, s, "2026-06-17", map[string]any{"by": "project", "include-project-names": true})
	if projects["shop"].Calls != 4 {
		t.Errorf("projects %v, want shop with four calls", projects)
	}
}
