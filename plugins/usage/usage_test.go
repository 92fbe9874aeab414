package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/sdk"
	"github.com/toolhost/toolhost/tests/usagegen"
)

// testNow is after the generator's default days (2026-06-01 on).
var testNow = time.Date(2026, 6, 20, 12, 0, 0, 0, time.UTC)

func newTestService(t *testing.T, env map[string]string) *service {
	t.Helper()
	if env["HOME"] == "" {
		env["HOME"] = t.TempDir()
	}
	s := newService(func(k string) string { return env[k] })
	s.now = func() time.Time { return testNow }
	return s
}

// generated writes logs once per test and returns the expected totals and
// an environment pointing at them.
func generated(t *testing.T, cfg usagegen.Config) (*usagegen.Expected, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	exp, err := usagegen.Generate(dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return exp, map[string]string{"CLAUDE_CONFIG_DIR": exp.ClaudeDir, "CODEX_HOME": exp.CodexDir, "HOME": filepath.Join(dir, "home")}
}

type row struct {
	Key              string  `json:"key"`
	CostUSD          float64 `json:"cost_usd"`
	Calls            int     `json:"calls"`
	InputTokens      int64   `json:"input_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	CacheWriteTokens int64   `json:"cache_write_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens"`
	Models           []row   `json:"models"`
}

type usageOut struct {
	Period   string `json:"period"`
	Empty    bool   `json:"empty"`
	Message  string `json:"message"`
	Totals   row    `json:"totals"`
	Rows     []row  `json:"rows"`
	Degraded []struct {
		Provider string `json:"provider"`
		Reason   string `json:"reason"`
	} `json:"degraded"`
	SkippedLines int64    `json:"skipped_lines"`
	Unpriced     []string `json:"unpriced_models"`
}

func call(t *testing.T, s *service, action string, args map[string]any) (*sdk.Result, []byte) {
	t.Helper()
	req, err := sdk.NewRequestFor(action, args)
	if err != nil {
		t.Fatal(err)
	}
	h := s.actions()[action]
	res, err := h(context.Background(), req)
	if err != nil {
		t.Fatalf("%s %v: %v", action, args, err)
	}
	b, err := json.Marshal(res.Data)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

func usageOf(t *testing.T, s *service, args map[string]any) (*sdk.Result, usageOut) {
	t.Helper()
	res, b := call(t, s, "get-usage", args)
	var u usageOut
	if err := json.Unmarshal(b, &u); err != nil {
		t.Fatal(err)
	}
	return res, u
}

func sameCost(got, want float64) bool { return math.Abs(got-want) < 1e-6 }

// TestExactTotals checks tokens per day and model exactly and cost to
// $0.000001 in both pricing modes, per provider and for all together.
func TestExactTotals(t *testing.T) {
	exp, env := generated(t, usagegen.Config{Seed: 7, Days: 6, SessionsPerDay: 3, ContentBytes: 200})
	s := newTestService(t, env)
	for _, mode := range []string{"provider", "ccusage"} {
		for _, prov := range []string{"claude", "codex", ""} {
			t.Run(mode+"/"+prov, func(t *testing.T) {
				want := exp.All
				switch prov {
				case "claude":
					want = exp.Claude
				case "codex":
					want = exp.Codex
				}
				args := map[string]any{"from": exp.From, "to": exp.To, "by": "day", "timezone": "UTC", "limit": 100, "pricing": mode}
				if prov != "" {
					args["provider"] = prov
				}
				_, u := usageOf(t, s, args)
				if len(u.Rows) != len(want.Days) {
					t.Fatalf("got %d days, want %d", len(u.Rows), len(want.Days))
				}
				for _, day := range u.Rows {
					wd := want.Days[day.Key]
					if len(day.Models) != len(wd) {
						t.Errorf("%s: got %d models, want %d", day.Key, len(day.Models), len(wd))
					}
					for _, m := range day.Models {
						w := wd[m.Key]
						if w == nil {
							t.Errorf("%s: unexpected model %s", day.Key, m.Key)
							continue
						}
						wantCost := w.CostUSD
						if mode == "ccusage" {
							wantCost = w.CostCCUsage
						}
						if m.InputTokens != w.Input || m.OutputTokens != w.Output || m.CacheWriteTokens != w.CacheWrite ||
							m.CacheReadTokens != w.CacheRead || m.Calls != w.Calls {
							t.Errorf("%s %s: got in %d out %d cw %d cr %d calls %d, want %d %d %d %d %d", day.Key, m.Key,
								m.InputTokens, m.OutputTokens, m.CacheWriteTokens, m.CacheReadTokens, m.Calls,
								w.Input, w.Output, w.CacheWrite, w.CacheRead, w.Calls)
						}
						if !sameCost(m.CostUSD, wantCost) {
							t.Errorf("%s %s: got cost %.9f, want %.9f", day.Key, m.Key, m.CostUSD, wantCost)
						}
					}
				}
				total := want.Total.CostUSD
				if mode == "ccusage" {
					total = want.Total.CostCCUsage
				}
				if !sameCost(u.Totals.CostUSD, total) || u.Totals.Calls != want.Total.Calls {
					t.Errorf("totals: got $%.9f %d calls, want $%.9f %d calls", u.Totals.CostUSD, u.Totals.Calls, total, want.Total.Calls)
				}
			})
		}
	}
	t.Run("skipped lines", func(t *testing.T) {
		_, u := usageOf(t, s, map[string]any{"from": exp.From, "to": exp.To, "timezone": "UTC"})
		if u.SkippedLines != int64(exp.MalformedLines) {
			t.Errorf("got skipped_lines %d, want %d", u.SkippedLines, exp.MalformedLines)
		}
		if exp.MalformedLines == 0 {
			t.Error("the generator wrote no malformed line; the test proves nothing")
		}
	})
	t.Run("by model", func(t *testing.T) {
		_, u := usageOf(t, s, map[string]any{"from": exp.From, "to": exp.To, "by": "model", "timezone": "UTC"})
		for _, r := range u.Rows {
			w := exp.All.Models[r.Key]
			if w == nil || r.InputTokens != w.Input || r.OutputTokens != w.Output || !sameCost(r.CostUSD, w.CostUSD) {
				t.Errorf("model %s: got %+v, want %+v", r.Key, r, w)
			}
		}
	})
}

// TestRedaction: no project name or absolute path in any output unless
// names are asked for; then names but still no paths.
func TestRedaction(t *testing.T) {
	exp, env := generated(t, usagegen.Config{Seed: 3, Days: 3, ContentBytes: 100})
	s := newTestService(t, env)
	forbidden := append(append([]string{"/home/", exp.ClaudeDir, exp.CodexDir}, exp.ProjectPaths...), exp.ProjectNames...)
	base := map[string]any{"from": exp.From, "to": exp.To, "timezone": "UTC"}
	cases := []struct {
		name, action string
		args         map[string]any
	}{
		{"headline", "get-usage", nil},
		{"by project", "get-usage", map[string]any{"by": "project"}},
		{"by task", "get-usage", map[string]any{"by": "task"}},
		{"by day", "get-usage", map[string]any{"by": "day"}},
		{"savings", "get-savings", map[string]any{"period": "last_30_days"}},
		{"status", "status", map[string]any{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := map[string]any{}
			if c.action == "get-usage" {
				for k, v := range base {
					args[k] = v
				}
			}
			for k, v := range c.args {
				args[k] = v
			}
			res, b := call(t, s, c.action, args)
			out := string(b) + res.Markdown
			for _, f := range forbidden {
				if strings.Contains(out, f) {
					t.Errorf("output contains %q", f)
				}
			}
			if c.name == "by project" && !strings.Contains(out, "project-") {
				t.Errorf("no pseudonym in %s", out)
			}
		})
	}
	t.Run("names asked for", func(t *testing.T) {
		res, b := call(t, s, "get-usage", map[string]any{"from": exp.From, "to": exp.To, "by": "project", "include-project-names": true})
		out := string(b) + res.Markdown
		if strings.Contains(out, "/home/") {
			t.Error("absolute path in output")
		}
		found := false
		for _, n := range exp.ProjectNames {
			found = found || strings.Contains(out, n)
		}
		if !found {
			t.Error("no project name although include-project-names is true")
		}
	})
}

// TestEmptyState: no logs → a friendly message, not an error or zeros.
func TestEmptyState(t *testing.T) {
	s := newTestService(t, map[string]string{})
	res, u := usageOf(t, s, map[string]any{"period": "today"})
	if !u.Empty || !strings.Contains(u.Message, "no usage recorded today yet") {
		t.Errorf("got %+v", u)
	}
	if strings.Contains(res.Markdown, "|") {
		t.Errorf("empty state rendered a table: %s", res.Markdown)
	}
	_, b := call(t, s, "get-savings", nil)
	if !strings.Contains(string(b), "no usage recorded in the last 7 days yet") {
		t.Errorf("got %s", b)
	}
}

// TestIsolation: an unreadable Codex file degrades Codex only.
func TestIsolation(t *testing.T) {
	exp, env := generated(t, usagegen.Config{Seed: 5, Days: 2, ContentBytes: 100})
	dir := filepath.Join(exp.CodexDir, "sessions", "2026", "06", "01")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "missing"), filepath.Join(dir, "rollout-broken.jsonl")); err != nil {
		t.Fatal(err)
	}
	s := newTestService(t, env)
	_, u := usageOf(t, s, map[string]any{"from": exp.From, "to": exp.To, "by": "provider", "timezone": "UTC"})
	if len(u.Degraded) != 1 || u.Degraded[0].Provider != "codex" || !strings.Contains(u.Degraded[0].Reason, "rollout-broken.jsonl") {
		t.Fatalf("got degraded %+v", u.Degraded)
	}
	if strings.Contains(u.Degraded[0].Reason, "/") {
		t.Errorf("reason names a path: %q", u.Degraded[0].Reason)
	}
	got := map[string]row{}
	for _, r := range u.Rows {
		got[r.Key] = r
	}
	if got["claude"].InputTokens != exp.Claude.Total.Input || got["codex"].InputTokens != exp.Codex.Total.Input {
		t.Errorf("got %+v, want claude %d codex %d input tokens", got, exp.Claude.Total.Input, exp.Codex.Total.Input)
	}
}

// TestDidYouMean: a near-miss enum value gets suggestions from the
// manifest's checker (the plugin no longer repeats tool.yaml's enums).
func TestDidYouMean(t *testing.T) {
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"period": "last_7_day"}, "last_7_days"},
		{map[string]any{"by": "models"}, "model"},
		{map[string]any{"pricing": "ccusge"}, "ccusage"},
		{map[string]any{"by": "weekly"}, ""}, // nothing close: the message lists them all
	}
	for _, tt := range tests {
		_, err := sdk.NewRequestFor("get-usage", tt.args) // the host's check of tool.yaml's enums
		e := sdk.AsError(err)
		if tt.want == "" {
			if err == nil || e.Code != sdk.CodeInvalidArgs || !strings.Contains(e.Message, `"project", "model", "task", "provider", "day", "session"`) {
				t.Errorf("%v: got %v, want invalid_args listing every value", tt.args, err)
			}
			continue
		}
		if err == nil || e.Code != sdk.CodeInvalidArgs || len(e.DidYouMean) == 0 || e.DidYouMean[0] != tt.want {
			t.Errorf("%v: got %v (%v), want did_you_mean %s", tt.args, err, e.DidYouMean, tt.want)
		}
	}
}

// TestCoalescing: identical concurrent calls share one computation, and a
// caller that gives up does not abort it for the others.
func TestCoalescing(t *testing.T) {
	exp, env := generated(t, usagegen.Config{Seed: 9, Days: 2, ContentBytes: 100})
	s := newTestService(t, env)
	entered := make(chan struct{})
	release := make(chan struct{})
	var joined sync.WaitGroup
	s.hookCompute = func() { close(entered); <-release }
	s.hookJoined = func() { joined.Done() }
	args := map[string]any{"from": exp.From, "to": exp.To, "by": "day", "timezone": "UTC"}
	const n = 6
	joined.Add(n + 1)
	ctxA, cancelA := context.WithCancel(context.Background())
	errA := make(chan error, 1)
	go func() {
		req, _ := sdk.NewRequestFor("get-usage", args)
		_, err := s.getUsage(ctxA, req)
		errA <- err
	}()
	<-entered
	results := make(chan error, n)
	for range n {
		go func() {
			req, _ := sdk.NewRequestFor("get-usage", args)
			res, err := s.getUsage(context.Background(), req)
			if err == nil && res.Data.(*usageData).Usage == nil {
				err = fmt.Errorf("empty result")
			}
			results <- err
		}()
	}
	joined.Wait()
	cancelA()
	if err := <-errA; sdk.AsError(err).Code != sdk.CodeCancelled {
		t.Errorf("cancelled caller: got %v, want cancelled", err)
	}
	close(release)
	for range n {
		if err := <-results; err != nil {
			t.Errorf("waiting caller: %v", err)
		}
	}
	if got := s.computes.Load(); got != 1 {
		t.Errorf("got %d computations, want 1", got)
	}
}

// TestWarmAppend: a warm call reads only appended bytes and sees them.
func TestWarmAppend(t *testing.T) {
	exp, env := generated(t, usagegen.Config{Seed: 11, Days: 2, ContentBytes: 100, CodexSessionsPerDay: -1})
	s := newTestService(t, env)
	args := map[string]any{"from": exp.From, "to": exp.To, "timezone": "UTC"}
	_, before := usageOf(t, s, args)
	_, b := call(t, s, "status", nil)
	var st statusData
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	if st.Cache.BytesReadLast != 0 || st.Cache.FilesParsed != 0 {
		t.Errorf("unchanged logs: got %d bytes read, %d files parsed, want 0", st.Cache.BytesReadLast, st.Cache.FilesParsed)
	}
	readBefore := st.Cache.BytesReadTotal
	// Append one request to one session file.
	var file string
	_ = filepath.Walk(exp.ClaudeDir, func(p string, info os.FileInfo, err error) error {
		if file == "" && err == nil && strings.HasSuffix(p, ".jsonl") && !strings.Contains(p, "subagents") {
			file = p
		}
		return nil
	})
	line := fmt.Sprintf(`{"cwd":"/home/dev/work/x","sessionId":"s","message":{"id":"msg_new","model":"claude-haiku-4-5-20251001","usage":{"input_tokens":1000,"output_tokens":2000,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}},"requestId":"req_new","type":"assistant","timestamp":"%sT12:00:00.000Z"}`+"\n", exp.To)
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(line); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, after := usageOf(t, s, args)
	if got, want := after.Totals.InputTokens-before.Totals.InputTokens, int64(1000); got != want {
		t.Errorf("got %d more input tokens, want %d", got, want)
	}
	if !sameCost(after.Totals.CostUSD-before.Totals.CostUSD, 0.011) {
		t.Errorf("got $%.6f more, want $0.011", after.Totals.CostUSD-before.Totals.CostUSD)
	}
	_, b = call(t, s, "status", nil)
	_ = json.Unmarshal(b, &st)
	if got := st.Cache.BytesReadTotal - readBefore; got != int64(len(line)) {
		t.Errorf("warm call after an append read %d bytes, want the %d appended", got, len(line))
	}
}

// TestWatched: with the folders watched, an unchanged warm call reads and
// parses nothing, an append is read alone, and a new session file is found.
func TestWatched(t *testing.T) {
	exp, env := generated(t, usagegen.Config{Seed: 13, Days: 2, ContentBytes: 100, CodexSessionsPerDay: -1})
	s := newTestService(t, env)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := s.store.Watch(ctx); err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"from": exp.From, "to": exp.To, "timezone": "UTC"}
	_, before := usageOf(t, s, args)
	if before.Totals.InputTokens != exp.Claude.Total.Input {
		t.Fatalf("got %d input tokens, want %d", before.Totals.InputTokens, exp.Claude.Total.Input)
	}
	line := func(id string, in int) string {
		return fmt.Sprintf(`{"cwd":"/w/x","sessionId":"s","message":{"id":"%s","model":"claude-haiku-4-5-20251001","usage":{"input_tokens":%d,"output_tokens":0}},"requestId":"r%s","type":"assistant","timestamp":"%sT12:00:00.000Z"}`+"\n", id, in, id, exp.To)
	}
	var file string
	_ = filepath.Walk(exp.ClaudeDir, func(p string, info os.FileInfo, err error) error {
		if file == "" && err == nil && strings.HasSuffix(p, ".jsonl") {
			file = p
		}
		return nil
	})
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	appended := line("w1", 1000)
	f.WriteString(appended)
	f.Close()
	newFile := filepath.Join(filepath.Dir(file), "new-session.jsonl")
	testplugin.WriteFile(t, newFile, line("w2", 20))
	// Events arrive asynchronously: poll until both are seen. The bound is
	// a hang guard, not a speed one: 200 polls, as it was (4-5 s here),
	// failed whenever the watcher's goroutine ran later than that.
	var after usageOut
	for guard := time.Now().Add(2 * time.Minute); time.Now().Before(guard); time.Sleep(10 * time.Millisecond) {
		_, after = usageOf(t, s, args)
		if after.Totals.InputTokens == before.Totals.InputTokens+1020 {
			break
		}
	}
	if got := after.Totals.InputTokens - before.Totals.InputTokens; got != 1020 {
		t.Fatalf("got %d more input tokens, want 1020", got)
	}
	_, b := call(t, s, "status", nil)
	var st statusData
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	if !st.Cache.Watching || st.Cache.FilesParsed != 0 || st.Cache.BytesReadLast != 0 {
		t.Errorf("unchanged warm call: got %+v, want watching, nothing parsed or read", st.Cache)
	}
}

// TestSavings: the savings report finds the generator's retried edits and
// one-shot turns, and the headline carries tasks and a one-shot rate.
func TestSavings(t *testing.T) {
	exp, env := generated(t, usagegen.Config{Seed: 17, Days: 4, ContentBytes: 100, CodexSessionsPerDay: -1})
	s := newTestService(t, env)
	_, b := call(t, s, "get-savings", map[string]any{"period": "last_30_days", "timezone": "UTC"})
	var sv struct {
		CostUSD  float64 `json:"cost_usd"`
		Findings []struct {
			Title     string  `json:"title"`
			ImpactUSD float64 `json:"impact_usd"`
		} `json:"findings"`
		RetryTax struct {
			TotalUSD float64 `json:"total_usd"`
			Retries  int     `json:"retries"`
		} `json:"retry_tax"`
		OneShot []struct {
			Model      string  `json:"model"`
			EditTurns  int     `json:"edit_turns"`
			OneShotPct float64 `json:"one_shot_pct"`
		} `json:"one_shot_by_model"`
	}
	if err := json.Unmarshal(b, &sv); err != nil {
		t.Fatal(err)
	}
	if !sameCost(sv.CostUSD, exp.Claude.Total.CostUSD) {
		t.Errorf("got cost $%.6f, want $%.6f", sv.CostUSD, exp.Claude.Total.CostUSD)
	}
	if sv.RetryTax.Retries == 0 || sv.RetryTax.TotalUSD <= 0 {
		t.Errorf("got retry tax %+v, want retries found", sv.RetryTax)
	}
	for i := 1; i < len(sv.Findings); i++ {
		if sv.Findings[i].ImpactUSD > sv.Findings[i-1].ImpactUSD {
			t.Errorf("findings not ranked by impact: %+v", sv.Findings)
		}
	}
	if len(sv.OneShot) == 0 {
		t.Fatal("no one-shot rates")
	}
	for _, m := range sv.OneShot {
		if m.EditTurns == 0 || m.OneShotPct <= 0 || m.OneShotPct >= 100 && m.EditTurns > 5 {
			t.Errorf("implausible one-shot record %+v (the generator retries about a third of edit turns)", m)
		}
	}
	res, u := usageOf(t, s, map[string]any{"period": "last_30_days", "timezone": "UTC"})
	if !strings.Contains(res.Markdown, "| Task |") || !strings.Contains(res.Markdown, "one-shot") {
		t.Errorf("headline lacks tasks or one-shot rate:\n%s", res.Markdown)
	}
	if u.Totals.Calls != exp.Claude.Total.Calls {
		t.Errorf("got %d calls, want %d", u.Totals.Calls, exp.Claude.Total.Calls)
	}
}

// TestByteBudget: a result over the caller's byte budget is trimmed to fit
// and says so, never cut into invalid JSON.
func TestByteBudget(t *testing.T) {
	exp, env := generated(t, usagegen.Config{Seed: 19, Days: 8, ContentBytes: 100})
	s := newTestService(t, env)
	for _, budget := range []int{0, 3000, 2000} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			req, _ := sdk.NewRequestFor("get-usage", map[string]any{"from": exp.From, "to": exp.To, "by": "day", "timezone": "UTC"})
			req.Caller.MaxResultBytes = budget
			res, err := s.getUsage(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(res.Data)
			var u struct {
				Rows      []row `json:"rows"`
				Truncated bool  `json:"truncated"`
			}
			if err := json.Unmarshal(b, &u); err != nil {
				t.Fatal(err)
			}
			if budget == 0 {
				if u.Truncated || len(u.Rows) != len(exp.All.Days) {
					t.Errorf("no budget: got %d rows truncated=%v, want all %d", len(u.Rows), u.Truncated, len(exp.All.Days))
				}
				return
			}
			// Past one row the host answers result_too_large, naming narrow_with.
			if (len(b) > budget && len(u.Rows) > 1) || !u.Truncated || len(u.Rows) == 0 {
				t.Errorf("budget %d: got %d bytes, %d rows, truncated=%v", budget, len(b), len(u.Rows), u.Truncated)
			}
		})
	}
}

// TestManifestDefaultsReachTheHandler: the handler takes its defaults from
// tool.yaml through the host's check (sdk.NewRequestFor here), not from
// its own code: with no limit a breakdown has tool.yaml's 20 rows.
func TestManifestDefaultsReachTheHandler(t *testing.T) {
	exp, env := generated(t, usagegen.Config{Seed: 4, Days: 30, ContentBytes: 50})
	s := newTestService(t, env)
	args := map[string]any{"from": exp.From, "to": exp.To, "by": "day", "timezone": "UTC"}
	if _, u := usageOf(t, s, args); len(u.Rows) != 20 {
		t.Fatalf("no limit: got %d rows, want tool.yaml's default 20", len(u.Rows))
	}
	args["limit"] = 100
	if _, u := usageOf(t, s, args); len(u.Rows) != len(exp.Claude.Days) || len(u.Rows) <= 20 {
		t.Fatalf("limit 100: got %d rows, want one per day of the logs (%d)", len(u.Rows), len(exp.Claude.Days))
	}
}
