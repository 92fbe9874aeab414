package main

// Tests of what a person sees (issue 11): the blocks action, "n/a" for a
// model with no price, the per-model rows of a day, sessions, and
// get-savings over from/to. Lines are in Claude Code's transcript layout
// (claudeLine: ccusage's fixtures and Claude Code's own logs).

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/plugins/usage/internal/report"
)

// claudeHome writes one session's assistant lines (time, model) of 1,000
// input and 100 output tokens each, and returns the env to read it.
func claudeHome(t *testing.T, calls [][2]string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	const sess = "5f0c2f9e-7777-4a4a-9b9b-000000000007"
	var b strings.Builder
	for i, c := range calls {
		id := "msg_" + string(rune('a'+i))
		b.WriteString(claudeLine(false, "/home/dev/shop", sess, id, "req_"+id, c[1], c[0], claudeUsage(1000, 0, 0, 100, "")))
	}
	testplugin.WriteFile(t, filepath.Join(dir, "projects", "-home-dev-shop", sess+".jsonl"), b.String())
	return map[string]string{"CLAUDE_CONFIG_DIR": dir}
}

// TestBlocks: windows start at the first call's hour and last five hours;
// a call five hours or more after the window's start opens the next one,
// a pause over five hours leaves a gap; the window open at "now"
// (2026-06-20 12:00 UTC) is active, with its burn rate over its first to
// last call and the projection to its end. (Rules of ccusage's blocks
// report; tests/usage_ccusage_test.go compares the two.)
func TestBlocks(t *testing.T) {
	const m = "claude-sonnet-4-5"
	env := claudeHome(t, [][2]string{
		{"2026-06-19T01:10:00.000Z", m}, {"2026-06-19T02:00:00.000Z", m}, {"2026-06-19T05:30:00.000Z", m},
		{"2026-06-19T06:30:00.000Z", m}, // 5.5 h after 01:00: a new window, no gap
		{"2026-06-20T08:10:00.000Z", m}, {"2026-06-20T08:40:00.000Z", m}, {"2026-06-20T09:10:00.000Z", m},
	})
	s := newTestService(t, env)
	res, b := call(t, s, "blocks", map[string]any{"period": "last_7_days", "timezone": "UTC"})
	var got struct {
		Blocks []report.Block `json:"blocks"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	const perCall, tokens = (1000*3 + 100*15) / 1e6, 1100
	want := []struct {
		id, end     string
		calls       int
		active, gap bool
	}{
		{"2026-06-19T01:00:00Z", "2026-06-19T06:00:00Z", 3, false, false},
		{"2026-06-19T06:00:00Z", "2026-06-19T11:00:00Z", 1, false, false},
		{"gap-2026-06-19T11:30:00Z", "2026-06-20T08:10:00Z", 0, false, true},
		{"2026-06-20T08:00:00Z", "2026-06-20T13:00:00Z", 3, true, false},
	}
	if len(got.Blocks) != len(want) {
		t.Fatalf("got %d windows %+v, want %d", len(got.Blocks), got.Blocks, len(want))
	}
	for i, w := range want {
		g := got.Blocks[i]
		if g.ID != w.id || g.End != w.end || g.Calls != w.calls || g.Active != w.active || g.Gap != w.gap ||
			!sameCost(g.CostUSD, float64(w.calls)*perCall) || g.TotalTokens != int64(w.calls*tokens) {
			t.Errorf("window %d: got %+v, want %+v", i, g, w)
		}
	}
	a := got.Blocks[3]
	// 3 calls over the 60 minutes from 08:10 to 09:10; 60 minutes left.
	if a.BurnRate == nil || a.Projection == nil {
		t.Fatalf("active window has no burn rate or projection: %+v", a)
	}
	if a.BurnRate.TokensPerMinute != 3*tokens/60.0 || !sameCost(a.BurnRate.CostPerHourUSD, 3*perCall) {
		t.Errorf("got burn rate %+v, want %v tokens/min, $%v/h", *a.BurnRate, 3*tokens/60.0, 3*perCall)
	}
	if a.Projection.RemainingMinutes != 60 || a.Projection.TotalTokens != 6*tokens || !sameCost(a.Projection.CostUSD, 6*perCall) {
		t.Errorf("got projection %+v, want 60 minutes left, %d tokens, $%v", *a.Projection, 6*tokens, 6*perCall)
	}
	if !strings.Contains(res.Markdown, "**active** until 2026-06-20 13:00") || !strings.Contains(res.Markdown, "60 minutes left") {
		t.Errorf("markdown does not show the active window:\n%s", res.Markdown)
	}

	_, b = call(t, s, "blocks", map[string]any{"period": "last_7_days", "timezone": "UTC", "active": true})
	got.Blocks = nil
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Blocks) != 1 || got.Blocks[0].ID != "2026-06-20T08:00:00Z" {
		t.Errorf("active only: got %+v, want the 08:00 window", got.Blocks)
	}
}

// TestWhatAPersonSees: a model with no price shows "n/a" and a note, never
// "$0.00"; a day's rows break down by model as the JSON does; sessions
// carry project, start and duration; get-savings takes from/to.
func TestWhatAPersonSees(t *testing.T) {
	env := claudeHome(t, [][2]string{
		{"2026-06-18T10:00:00.000Z", "claude-sonnet-4-5"},
		{"2026-06-18T10:30:00.000Z", "claude-mystery-9"},
	})
	s := newTestService(t, env)
	res, u := usageOf(t, s, map[string]any{"from": "2026-06-18", "to": "2026-06-18", "by": "model", "timezone": "UTC"})
	if len(u.Unpriced) != 1 || u.Unpriced[0] != "claude-mystery-9" {
		t.Errorf("got unpriced %v, want claude-mystery-9", u.Unpriced)
	}
	for _, want := range []string{"| claude-mystery-9 | n/a |", "no price for claude-mystery-9", "USAGE_PRICES_FILE", "**$0.0045 + n/a** over 2 calls"} {
		if !strings.Contains(res.Markdown, want) {
			t.Errorf("markdown lacks %q:\n%s", want, res.Markdown)
		}
	}
	if strings.Contains(res.Markdown, "$0.00 ") || strings.Contains(res.Markdown, "$0.00 |") {
		t.Errorf("markdown shows an unpriced cost as $0.00:\n%s", res.Markdown)
	}

	res, _ = usageOf(t, s, map[string]any{"from": "2026-06-18", "to": "2026-06-18", "by": "day", "timezone": "UTC"})
	for _, want := range []string{"| 2026-06-18 |", "└ claude-sonnet-4-5 | $0.0045 | 1 |", "└ claude-mystery-9 | n/a | 1 |"} {
		if !strings.Contains(res.Markdown, want) {
			t.Errorf("by day: markdown lacks %q:\n%s", want, res.Markdown)
		}
	}

	res, _ = usageOf(t, s, map[string]any{"from": "2026-06-18", "to": "2026-06-18", "by": "session", "timezone": "UTC", "include-project-names": true})
	if !strings.Contains(res.Markdown, "(claude, shop, 2026-06-18T10:00, 30 min)") {
		t.Errorf("by session: markdown lacks provider, project, start and duration:\n%s", res.Markdown)
	}

	_, b := call(t, s, "get-savings", map[string]any{"from": "2026-06-18", "to": "2026-06-18", "timezone": "UTC"})
	var sv struct {
		Period  string  `json:"period"`
		CostUSD float64 `json:"cost_usd"`
	}
	if err := json.Unmarshal(b, &sv); err != nil {
		t.Fatal(err)
	}
	if sv.Period != "2026-06-18..2026-06-18" || !sameCost(sv.CostUSD, 0.0045) {
		t.Errorf("get-savings from/to: got %+v, want the day 2026-06-18 at $0.0045", sv)
	}
}

// TestProjectWithoutCwd: a session whose log names no working directory
// (a Codex rollout without cwd in its session meta) is shown as "unknown",
// not as the pseudonym of the empty string.
func TestProjectWithoutCwd(t *testing.T) {
	home := t.TempDir()
	c := cx{1000, 0, 100, 0}
	testplugin.WriteFile(t, filepath.Join(home, "sessions", "2026", "06", "12", "rollout-2026-06-12T09-00-00-0199a1b2-0000-7000-8000-0000000000d1.jsonl"),
		codexMeta("2026-06-12T09:00:00.000Z", "0199a1b2-0000-7000-8000-0000000000d1", "", "")+codexTokens("2026-06-12T09:00:10.000Z", c, c, "gpt-5"))
	s := newTestService(t, map[string]string{"CODEX_HOME": home})
	_, u := usageOf(t, s, map[string]any{"from": "2026-06-12", "to": "2026-06-12", "by": "project", "timezone": "UTC"})
	if len(u.Rows) != 1 || u.Rows[0].Key != "unknown" {
		t.Errorf("got projects %+v, want one named unknown (not %s)", u.Rows, report.Pseudonym(""))
	}
}
