package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/plugins/usage/internal/pricing"
	"github.com/toolhost/toolhost/plugins/usage/internal/report"
	"github.com/toolhost/toolhost/plugins/usage/internal/source"
	"github.com/toolhost/toolhost/tests/usagegen"
)

// statusJSON is Claude Code's statusline input (the shape its docs give,
// code.claude.com/docs/en/statusline) for a session.
func statusJSON(session, transcript string) string {
	return fmt.Sprintf(`{"hook_event_name":"Status","session_id":%q,"transcript_path":%q,"cwd":"/home/dev",`+
		`"model":{"id":"claude-sonnet-4-5-20250929","display_name":"Sonnet 4.5"},`+
		`"workspace":{"current_dir":"/home/dev","project_dir":"/home/dev"},"version":"2.0.14",`+
		`"output_style":{"name":"default"},"cost":{"total_cost_usd":0.01234,"total_duration_ms":45000,`+
		`"total_api_duration_ms":2300,"total_lines_added":156,"total_lines_removed":23},"exceeds_200k_tokens":false}`,
		session, transcript)
}

// statusRun is one statusline process: a new service (nothing resident)
// on env at now; it returns the line and how many log bytes it read.
func statusRun(t *testing.T, env map[string]string, now time.Time, input string) (string, int64) {
	t.Helper()
	s := newService(func(k string) string { return env[k] })
	s.now = func() time.Time { return now }
	var out strings.Builder
	if code := s.statusline(context.Background(), nil, strings.NewReader(input), &out); code != 0 {
		t.Fatalf("exit %d", code)
	}
	return strings.TrimSuffix(out.String(), "\n"), s.store.Stats().BytesReadLast
}

// lastClaudeCall is the newest Claude Code call of a full scan, and its
// session's log.
func lastClaudeCall(t *testing.T, env map[string]string) (*source.Call, string) {
	t.Helper()
	s := newTestService(t, env)
	s.store.Refresh(context.Background(), nil)
	var last *source.Call
	s.store.View(func(snap *source.Snapshot) {
		for _, c := range snap.Calls {
			if c.Origin.Provider == "claude" && (last == nil || c.Time > last.Time) {
				last = c
			}
		}
	})
	var path string
	_ = filepath.Walk(env["CLAUDE_CONFIG_DIR"], func(p string, fi os.FileInfo, err error) error {
		if err == nil && filepath.Base(p) == last.Origin.Session+".jsonl" {
			path = p
		}
		return nil
	})
	if path == "" {
		t.Fatalf("no log for session %s", last.Origin.Session)
	}
	return last, path
}

// fullScanStatus is the status a full scan (no index) computes at now.
func fullScanStatus(t *testing.T, env map[string]string, session string, now time.Time) *report.Status {
	t.Helper()
	s := newTestService(t, env)
	s.store.Refresh(context.Background(), nil)
	prices, _, _ := s.table(context.Background())
	var st *report.Status
	s.store.View(func(snap *source.Snapshot) {
		st = report.BuildStatus(snap.Calls, &report.Query{Loc: time.UTC, Mode: pricing.ModeProvider, Prices: prices}, session, now)
	})
	return st
}

// TestStatuslineFromIndex: each run is a new process; the first reads the
// logs and leaves an index, the next reads nothing, and after an append
// only the appended bytes; each answers as a full scan does (today's cost
// as the generator priced it).
func TestStatuslineFromIndex(t *testing.T) {
	exp, env := generated(t, usagegen.Config{Seed: 9, Days: 3, ContentBytes: 100})
	env["USAGE_CACHE_DIR"] = t.TempDir()
	env["TZ"] = "UTC"
	env["NO_COLOR"] = "1"
	last, logPath := lastClaudeCall(t, env)
	now := time.UnixMilli(last.Time).Add(time.Minute).UTC()
	session := last.Origin.Session
	input := statusJSON(session, logPath)

	day := now.Format("2006-01-02")
	var today float64
	for _, totals := range []*usagegen.Totals{exp.Claude, exp.Codex} {
		for _, b := range totals.Days[day] {
			today += b.CostUSD
		}
	}
	full := fullScanStatus(t, env, session, now)
	if full.Block == nil || full.SessionCalls == 0 {
		t.Fatalf("the full scan finds no active block or no session calls: %+v", full)
	}
	want := fmt.Sprintf("🤖 Sonnet 4.5 | 💰 $%s session / $%s today / $%s block (%s left) | 🔥 ",
		money(full.SessionUSD), money(today), money(full.Block.CostUSD), hm(parseTime(full.Block.End).Sub(now)))

	first, read := statusRun(t, env, now, input)
	if !strings.HasPrefix(first, want) || read == 0 {
		t.Fatalf("first run (%d bytes read):\n got %s\nwant %s…", read, first, want)
	}
	second, read := statusRun(t, env, now, input)
	if second != first || read != 0 {
		t.Errorf("second run read %d bytes (want 0):\n got %s\nwant %s", read, second, first)
	}

	// One more response in the session, a minute later.
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var src string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, `"role":"assistant"`) && strings.Contains(l, `"usage":{`) {
			src = l
		}
	}
	ts := time.UnixMilli(last.Time).UTC()
	line := strings.NewReplacer(`"msg_`, `"msg_more_`, `"req_`, `"req_more_`,
		ts.Format("2006-01-02T15:04:05.000Z"), now.Format("2006-01-02T15:04:05.000Z")).Replace(src) + "\n"
	f, err := os.OpenFile(logPath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(line); err != nil {
		t.Fatal(err)
	}
	f.Close()
	later := now.Add(time.Minute)
	third, read := statusRun(t, env, later, input)
	if read != int64(len(line)) {
		t.Errorf("after the append: read %d bytes, want the %d appended", read, len(line))
	}
	full = fullScanStatus(t, env, session, later)
	want = fmt.Sprintf("$%s session / $%s today / $%s block", money(full.SessionUSD), money(full.TodayUSD), money(full.Block.CostUSD))
	if !strings.Contains(third, want) || third == first {
		t.Errorf("after the append:\n got %s\nwant …%s…", third, want)
	}
}

// TestStatuslineLook: colours unless NO_COLOR, a width bound drops the
// least important parts first, a budget shows its state, bad stdin says so
// in the line.
func TestStatuslineLook(t *testing.T) {
	_, env := generated(t, usagegen.Config{Seed: 9, Days: 3, ContentBytes: 100})
	env["USAGE_CACHE_DIR"] = t.TempDir()
	env["TZ"] = "UTC"
	last, logPath := lastClaudeCall(t, env)
	now := time.UnixMilli(last.Time).Add(time.Minute).UTC()
	input := statusJSON(last.Origin.Session, logPath)

	budgets := filepath.Join(t.TempDir(), "budgets.yaml")
	if err := os.WriteFile(budgets, []byte("budgets:\n  - {name: daily, period: day, limit_usd: 0.01}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env["USAGE_BUDGETS_FILE"] = budgets
	line, _ := statusRun(t, env, now, input)
	if !strings.Contains(line, "\x1b[31mdaily over ") || !strings.Contains(line, "\x1b[0m") {
		t.Errorf("coloured line with an over budget: %q", line)
	}
	env["NO_COLOR"] = "1"
	env["COLUMNS"] = "60"
	line, _ = statusRun(t, env, now, input)
	if strings.Contains(line, "\x1b[") || visible(line) > 60 || !strings.Contains(line, " today / ") || strings.Contains(line, "🤖") {
		t.Errorf("60 columns, no colour: %q (%d wide)", line, visible(line))
	}
	if line, _ := statusRun(t, env, now, "{not json"); !strings.HasPrefix(line, "usage: stdin is not Claude Code's statusline JSON") {
		t.Errorf("bad stdin: %q", line)
	}
}
