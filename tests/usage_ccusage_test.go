package tests

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/tests/usagegen"
)

// TestUsageMatchesCCUsage runs ccusage 20.0.24 (pinned in package.json,
// --offline) and the usage plugin (CLI mode, pricing ccusage) on the same
// home, testdata/usage-home (one fixture per agent in the layout the
// agent writes: see its README), and compares per provider, day and model:
// tokens exactly, cost to $0.000001. The differences that remain are listed
// in knownDiffs with their reason (and in plugins/usage/README.md).
func TestUsageMatchesCCUsage(t *testing.T) {
	node, modules := npmClients(t)
	cli := filepath.Join(modules, "ccusage", "src", "cli.js")
	if _, err := os.Stat(cli); err != nil {
		t.Fatalf("ccusage is not installed (%v): run `npm ci --prefix tests`", err)
	}
	home := usageHome(t)
	env := nodeEnv(node, home)
	plugin := filepath.Join(realPlugins, "usage", "usage")
	for _, provider := range []string{"claude", "codex", "gemini", "opencode", "qwen", "droid", "amp", "goose", "kimi", "kilo", "pi", "hermes", "copilot", "grok", "openclaw", "zcode", "codebuff", "antigravity"} {
		t.Run(provider, func(t *testing.T) {
			theirs := ccusageDaily(t, node, env, cli, provider)
			if provider == "pi" || provider == "openclaw" {
				// ccusage names pi's and OpenClaw's models "[pi] <model>",
				// "[openclaw] <model>"; this plugin names them as logged, as
				// for every other agent.
				for k, v := range theirs {
					if n := strings.Replace(k, " ["+provider+"] ", " ", 1); n != k {
						delete(theirs, k)
						theirs[n] = v
					}
				}
			}
			ours := usageDaily(t, plugin, env, provider)
			if len(theirs) == 0 {
				t.Fatal("ccusage found nothing: the fixture home is not read")
			}
			keys := map[string]bool{}
			for k := range theirs {
				keys[k] = true
			}
			for k := range ours {
				keys[k] = true
			}
			sorted := make([]string, 0, len(keys))
			for k := range keys {
				sorted = append(sorted, k)
			}
			sort.Strings(sorted)
			for _, k := range sorted {
				a, b := ours[k], theirs[k]
				if d, ok := knownDiffs[provider+" "+k]; ok {
					b.Input += d.input
					b.Output += d.output
					b.Cost += d.cost
				}
				if a.Input != b.Input || a.Output != b.Output || a.CacheWrite != b.CacheWrite || a.CacheRead != b.CacheRead {
					t.Errorf("%s tokens: ours in %d out %d cw %d cr %d, ccusage in %d out %d cw %d cr %d",
						k, a.Input, a.Output, a.CacheWrite, a.CacheRead, b.Input, b.Output, b.CacheWrite, b.CacheRead)
				}
				if math.Abs(a.Cost-b.Cost) > 1e-6 {
					t.Errorf("%s cost: ours $%.6f, ccusage $%.6f", k, a.Cost, b.Cost)
				}
			}
		})
	}
}

// knownDiff is how far ours is from ccusage's figure, and why.
type knownDiff struct {
	input, output int64
	cost          float64
	why           string
}

// knownDiffs are the remaining differences, keyed "provider day model".
var knownDiffs = map[string]knownDiff{
	// ccusage prices Gemini's thoughts as output but leaves them out of
	// its outputTokens; Google bills them as output, so they are ours.
	"gemini 2026-06-08 gemini-2.5-pro":         {output: 200, why: "thoughts are output tokens"},
	"gemini 2026-06-08 gemini-3.1-pro-preview": {output: 550, why: "thoughts are output tokens"},
	// ccusage takes Qwen's promptTokenCount, which includes the cached
	// prompt, as input and the cached part again as cache read (billing it
	// at both rates); ours moves it out of input. It bills thoughts as
	// output but leaves them out of outputTokens, as for Gemini.
	"qwen 2026-06-09 qwen3-coder-plus": {input: -20000, output: 40, cost: -0.02,
		why: "the cached prompt counts once (ccusage also counts it as input); thoughts are output tokens"},
	// ccusage bills Droid's thinkingTokens as output but leaves them out
	// of outputTokens.
	"droid 2026-06-10 claude-sonnet-4-5": {output: 900, why: "thinking tokens are output tokens"},
	// ccusage bills the part of a Goose session's total above input plus
	// output (reasoning) as output but leaves it out of outputTokens.
	"goose 2026-06-12 gpt-5": {output: 400, why: "reasoning tokens are output tokens"},
	// ccusage takes a Kilo message's logged cost and leaves its reasoning
	// tokens out of outputTokens; the fixture logs list-price costs.
	"kilo 2026-06-14 gpt-5": {output: 50, why: "reasoning tokens are output tokens"},
	// ccusage bills a Hermes session's reasoning_tokens as output but
	// leaves them out of outputTokens.
	"hermes 2026-06-16 claude-haiku-4-5": {output: 200, why: "reasoning tokens are output tokens"},
	// ccusage takes a Copilot OpenTelemetry chat span's input_tokens less
	// the cache reads only; the GenAI conventions (and Copilot's own
	// session-state metrics) count cache writes inside input too, so ours
	// moves them out of input as it does for session-state.
	"copilot 2026-06-18 claude-sonnet-4.5": {input: -19000, cost: -0.057,
		why: "a cache write counts once (ccusage also counts it as input)"},
	// ccusage bills an Antigravity response's field-9 output (the
	// response's text beside field 10's) as output but leaves it out of
	// outputTokens.
	"antigravity 2026-06-19 claude-opus-4-6":        {output: 500, why: "response output tokens are output tokens"},
	"antigravity 2026-06-19 gemini-2.5-pro":         {output: 900, why: "response output tokens are output tokens"},
	"antigravity 2026-06-19 gemini-3-flash-preview": {output: 1100, why: "response output tokens are output tokens"},
	"antigravity 2026-06-19 gemini-3.1-pro":         {output: 2000, why: "response output tokens are output tokens"},
	// ccusage prices gemini-3.6-flash-high, a model the price table does
	// not name; this plugin shows it n/a (unpriced_models), never a guess.
	"antigravity 2026-06-19 gemini-3.6-flash-high": {output: 100, cost: -0.001125,
		why: "response output tokens are output tokens; an unpriced model is n/a"},
}

// dayUsage is one day and model's figures.
type dayUsage struct {
	Input, Output, CacheWrite, CacheRead int64
	Cost                                 float64
}

// ccusageDaily runs `ccusage PROVIDER daily --json --offline` and returns
// its figures keyed "day model" (Codex gives cost per day only: "day").
func ccusageDaily(t *testing.T, node string, env []string, cli, provider string) map[string]dayUsage {
	t.Helper()
	out := runCmd(t, env, node, cli, provider, "daily", "--json", "--offline", "-z", "UTC", "--no-color")
	var doc struct {
		Daily []struct {
			Date      string            `json:"date"`
			CostUSD   float64           `json:"costUSD"`
			Breakdown []ccusageModelRow `json:"modelBreakdowns"`
			Models    map[string]struct {
				Input      int64 `json:"inputTokens"`
				Output     int64 `json:"outputTokens"`
				CacheWrite int64 `json:"cacheCreationTokens"`
				CacheRead  int64 `json:"cacheReadTokens"`
			} `json:"models"`
		} `json:"daily"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("ccusage output: %v\n%s", err, out)
	}
	got := map[string]dayUsage{}
	for _, d := range doc.Daily {
		for _, m := range d.Breakdown {
			got[d.Date+" "+m.Model] = dayUsage{m.Input, m.Output, m.CacheWrite, m.CacheRead, m.Cost}
		}
		for name, m := range d.Models {
			got[d.Date+" "+name] = dayUsage{m.Input, m.Output, m.CacheWrite, m.CacheRead, math.NaN()}
		}
		if d.Models != nil {
			got[d.Date] = dayUsage{Cost: d.CostUSD}
		}
	}
	return got
}

// usageDaily runs the plugin's get-usage by day (pricing ccusage) and
// returns the same keys as ccusageDaily.
func usageDaily(t *testing.T, plugin string, env []string, provider string) map[string]dayUsage {
	t.Helper()
	args := fmt.Sprintf(`{"from":"2026-01-01","to":"2026-12-31","by":"day","timezone":"UTC","pricing":"ccusage","provider":%q,"limit":100}`, provider)
	out := runCmd(t, env, plugin, "get-usage", "--json", args)
	var doc struct {
		Rows []struct {
			Key    string         `json:"key"`
			Cost   float64        `json:"cost_usd"`
			Models []usagegen.Row `json:"models"`
		} `json:"rows"`
		Degraded []json.RawMessage `json:"degraded"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("usage output: %v\n%s", err, out)
	}
	if len(doc.Degraded) > 0 {
		t.Errorf("degraded: %s", out)
	}
	got := map[string]dayUsage{}
	for _, d := range doc.Rows {
		for _, m := range d.Models {
			cost := m.Cost
			if provider == "codex" {
				cost = math.NaN() // compared per day
			}
			got[d.Key+" "+m.Key] = dayUsage{m.Input, m.Output, m.CacheWrite, m.CacheRead, cost}
		}
		if provider == "codex" {
			got[d.Key] = dayUsage{Cost: d.Cost}
		}
	}
	return got
}

// runCmd runs a command with env and returns its stdout.
func runCmd(t *testing.T, env []string, name string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, lastLines(stderr.String(), 20))
	}
	return stdout.Bytes()
}

// ccBlock is one window of `ccusage blocks --json`.
type ccBlock struct {
	ID          string  `json:"id"`
	StartTime   string  `json:"startTime"`
	EndTime     string  `json:"endTime"`
	IsActive    bool    `json:"isActive"`
	IsGap       bool    `json:"isGap"`
	Entries     int     `json:"entries"`
	CostUSD     float64 `json:"costUSD"`
	TokenCounts struct {
		Input      int64 `json:"inputTokens"`
		Output     int64 `json:"outputTokens"`
		CacheWrite int64 `json:"cacheCreationInputTokens"`
		CacheRead  int64 `json:"cacheReadInputTokens"`
	} `json:"tokenCounts"`
	BurnRate *struct {
		TokensPerMinute float64 `json:"tokensPerMinute"`
		CostPerHour     float64 `json:"costPerHour"`
	} `json:"burnRate"`
	Projection *struct {
		TotalTokens      int64   `json:"totalTokens"`
		TotalCost        float64 `json:"totalCost"`
		RemainingMinutes int64   `json:"remainingMinutes"`
	} `json:"projection"`
}

// ourBlock is one window of the plugin's blocks action.
type ourBlock struct {
	ID         string  `json:"id"`
	End        string  `json:"end"`
	Active     bool    `json:"active"`
	Gap        bool    `json:"gap"`
	Calls      int     `json:"calls"`
	CostUSD    float64 `json:"cost_usd"`
	Input      int64   `json:"input_tokens"`
	Output     int64   `json:"output_tokens"`
	CacheWrite int64   `json:"cache_write_tokens"`
	CacheRead  int64   `json:"cache_read_tokens"`
	BurnRate   *struct {
		TokensPerMinute float64 `json:"tokens_per_minute"`
		CostPerHour     float64 `json:"cost_per_hour_usd"`
	} `json:"burn_rate"`
	Projection *struct {
		TotalTokens      int64   `json:"total_tokens"`
		CostUSD          float64 `json:"cost_usd"`
		RemainingMinutes int64   `json:"remaining_minutes"`
	} `json:"projection"`
}

// blockDiffs are ccusage's blocks that differ from ours, and why: its
// blocks and session reports count the /btw sidechain replay that its
// daily report drops (one call: 10 in, 500 out, 1,000 cache write, 20,000
// cache read on claude-sonnet-4-5, $0.01728).
var blockDiffs = map[string]ourBlock{
	"2026-06-05T10:00:00.000Z": {Calls: 1, Input: 10, Output: 500, CacheWrite: 1000, CacheRead: 20000, CostUSD: 0.01728},
}

// TestUsageBlocksMatchCCUsage compares the blocks action with `ccusage
// blocks` (ccusage 20.0.24, --offline) on the fixture home — windows,
// gaps, calls, tokens and cost — and on a home whose last calls are an
// hour old, where the window is active: burn rate and projection too.
func TestUsageBlocksMatchCCUsage(t *testing.T) {
	node, modules := npmClients(t)
	cli := filepath.Join(modules, "ccusage", "src", "cli.js")
	plugin := filepath.Join(realPlugins, "usage", "usage")
	fixture := usageHome(t)
	// A live home: three calls 100, 70 and 40 minutes ago in one window
	// (Claude Code's transcript line as in testdata/usage-home).
	live := t.TempDir()
	now := time.Now().UTC()
	var lines strings.Builder
	for i, ago := range []time.Duration{100, 70, 40} {
		ts := now.Add(-ago * time.Minute).Format("2006-01-02T15:04:05.000Z")
		fmt.Fprintf(&lines, `{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/live","sessionId":"5f0c2f9e-2222-4a4a-9b9b-000000000002","version":"2.1.50","gitBranch":"main",`+
			`"message":{"model":"claude-sonnet-4-5-20250929","id":"msg_live%d","type":"message","role":"assistant","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,`+
			`"usage":{"input_tokens":%d,"cache_creation_input_tokens":2000,"cache_read_input_tokens":30000,"cache_creation":{"ephemeral_5m_input_tokens":2000,"ephemeral_1h_input_tokens":0},"output_tokens":%d,"service_tier":"standard"}},`+
			`"requestId":"req_live%d","type":"assistant","uuid":"u-live%d","timestamp":%q}`+"\n", i, 100*(i+1), 700*(i+1), i, i, ts)
	}
	if err := os.MkdirAll(filepath.Join(live, ".claude", "projects", "-home-dev-live"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(live, ".claude", "projects", "-home-dev-live", "5f0c2f9e-2222-4a4a-9b9b-000000000002.jsonl"), []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, home, from, to string
	}{
		{"fixture", fixture, "2026-01-01", "2026-12-31"},
		{"active", live, now.AddDate(0, 0, -1).Format("2006-01-02"), now.AddDate(0, 0, 1).Format("2006-01-02")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := nodeEnv(node, tc.home)
			var theirs struct {
				Blocks []ccBlock `json:"blocks"`
			}
			out := runCmd(t, env, node, cli, "claude", "blocks", "--json", "--offline", "--mode", "calculate", "-z", "UTC", "--no-color")
			if err := json.Unmarshal(out, &theirs); err != nil {
				t.Fatalf("ccusage output: %v\n%s", err, out)
			}
			var ours struct {
				Blocks []ourBlock `json:"blocks"`
			}
			out = runCmd(t, env, plugin, "blocks", "--json", fmt.Sprintf(`{"from":%q,"to":%q,"timezone":"UTC","pricing":"ccusage","limit":100}`, tc.from, tc.to))
			if err := json.Unmarshal(out, &ours); err != nil {
				t.Fatalf("usage output: %v\n%s", err, out)
			}
			if len(theirs.Blocks) == 0 || len(ours.Blocks) != len(theirs.Blocks) {
				t.Fatalf("got %d windows, ccusage %d:\nours %+v\ntheirs %+v", len(ours.Blocks), len(theirs.Blocks), ours.Blocks, theirs.Blocks)
			}
			active := 0
			for i, b := range theirs.Blocks {
				o := ours.Blocks[i]
				d := blockDiffs[b.ID]
				if b.IsActive {
					active++
				}
				if rfc(strings.TrimPrefix(o.ID, "gap-")) != rfc(strings.TrimPrefix(b.ID, "gap-")) || o.Gap != b.IsGap || o.Active != b.IsActive || rfc(o.End) != rfc(b.EndTime) {
					t.Errorf("window %d: ours %s gap=%v active=%v end %s, ccusage %s gap=%v active=%v end %s", i, o.ID, o.Gap, o.Active, o.End, b.ID, b.IsGap, b.IsActive, b.EndTime)
				}
				if o.Calls+d.Calls != b.Entries || o.Input+d.Input != b.TokenCounts.Input || o.Output+d.Output != b.TokenCounts.Output ||
					o.CacheWrite+d.CacheWrite != b.TokenCounts.CacheWrite || o.CacheRead+d.CacheRead != b.TokenCounts.CacheRead {
					t.Errorf("window %s: ours %+v, ccusage %+v", b.ID, o, b)
				}
				if math.Abs(o.CostUSD+d.CostUSD-b.CostUSD) > 1e-6 {
					t.Errorf("window %s cost: ours $%.6f, ccusage $%.6f", b.ID, o.CostUSD, b.CostUSD)
				}
				if (o.BurnRate == nil) != (b.BurnRate == nil) || (o.Projection == nil) != (b.Projection == nil) {
					t.Fatalf("window %s: burn rate or projection given by one side only: ours %+v, ccusage %+v", b.ID, o, b)
				}
				if b.BurnRate == nil {
					continue
				}
				if math.Abs(o.BurnRate.TokensPerMinute-b.BurnRate.TokensPerMinute) > 1e-6 || math.Abs(o.BurnRate.CostPerHour-b.BurnRate.CostPerHour) > 1e-6 {
					t.Errorf("window %s burn rate: ours %+v, ccusage %+v", b.ID, *o.BurnRate, *b.BurnRate)
				}
				// The two ran moments apart: a minute of burn either way.
				p, q := o.Projection, b.Projection
				if d := p.RemainingMinutes - q.RemainingMinutes; d < -1 || d > 1 ||
					math.Abs(float64(p.TotalTokens-q.TotalTokens)) > 1.5*b.BurnRate.TokensPerMinute ||
					math.Abs(p.CostUSD-q.TotalCost) > 1.5*b.BurnRate.CostPerHour/60+0.005 {
					t.Errorf("window %s projection: ours %+v, ccusage %+v", b.ID, *p, *q)
				}
			}
			if tc.name == "active" && active != 1 {
				t.Errorf("got %d active windows in ccusage's report, want 1 (the live home's)", active)
			}
		})
	}
}

// rfc normalises an RFC 3339 time for comparison.
func rfc(s string) string {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return s
	}
	return t.UTC().Format(time.RFC3339)
}

// TestUsageSessionsMatchCCUsage compares get-usage by session with
// `ccusage PROVIDER session` (20.0.24, --offline) on the fixture home, per
// session and model: tokens and cost. Claude Code and OpenCode only:
// ccusage's Codex sessions count an archived copy of a rollout as a second
// session, and its Gemini sessions list a sub-agent's chat apart from its
// parent's (we roll it in, as Claude Code's sub-agents are) — both listed
// in plugins/usage/README.md.
func TestUsageSessionsMatchCCUsage(t *testing.T) {
	node, modules := npmClients(t)
	cli := filepath.Join(modules, "ccusage", "src", "cli.js")
	plugin := filepath.Join(realPlugins, "usage", "usage")
	home := usageHome(t)
	env := nodeEnv(node, home)
	// ccusage's session report counts the /btw sidechain replay its daily
	// report drops (see blockDiffs).
	diffs := map[string]dayUsage{
		"claude 5f0c2f9e-1111-4a4a-9b9b-000000000001 claude-sonnet-4-5-20250929": {Input: 10, Output: 500, CacheWrite: 1000, CacheRead: 20000, Cost: 0.01728},
	}
	for _, provider := range []string{"claude", "opencode"} {
		t.Run(provider, func(t *testing.T) {
			var theirs struct {
				Sessions []struct {
					SessionID string            `json:"sessionId"`
					Breakdown []ccusageModelRow `json:"modelBreakdowns"`
				} `json:"sessions"`
			}
			out := runCmd(t, env, node, cli, provider, "session", "--json", "--offline", "--mode", "calculate", "-z", "UTC", "--no-color")
			if err := json.Unmarshal(out, &theirs); err != nil {
				t.Fatalf("ccusage output: %v\n%s", err, out)
			}
			var ours struct {
				Rows []struct {
					Key    string         `json:"key"`
					Models []usagegen.Row `json:"models"`
				} `json:"rows"`
			}
			out = runCmd(t, env, plugin, "get-usage", "--json",
				fmt.Sprintf(`{"from":"2026-01-01","to":"2026-12-31","by":"session","timezone":"UTC","pricing":"ccusage","provider":%q,"limit":100}`, provider))
			if err := json.Unmarshal(out, &ours); err != nil {
				t.Fatalf("usage output: %v\n%s", err, out)
			}
			if len(theirs.Sessions) == 0 || len(ours.Rows) != len(theirs.Sessions) {
				t.Fatalf("got %d sessions, ccusage %d", len(ours.Rows), len(theirs.Sessions))
			}
			got := map[string]dayUsage{}
			for _, r := range ours.Rows {
				for _, m := range r.Models {
					got[r.Key+" "+m.Key] = dayUsage{m.Input, m.Output, m.CacheWrite, m.CacheRead, m.Cost}
				}
			}
			for _, s := range theirs.Sessions {
				// Sessions are shown by a pseudonym of their id.
				h := sha256.Sum256([]byte(provider + "\x00" + s.SessionID))
				name := "session-" + hex.EncodeToString(h[:4])
				for _, m := range s.Breakdown {
					o, ok := got[name+" "+m.Model]
					if !ok {
						t.Errorf("session %s model %s: missing from ours (%v)", s.SessionID, m.Model, got)
						continue
					}
					d := diffs[provider+" "+s.SessionID+" "+m.Model]
					if o.Input+d.Input != m.Input || o.Output+d.Output != m.Output || o.CacheWrite+d.CacheWrite != m.CacheWrite || o.CacheRead+d.CacheRead != m.CacheRead {
						t.Errorf("session %s model %s tokens: ours %+v, ccusage %+v", s.SessionID, m.Model, o, m)
					}
					if math.Abs(o.Cost+d.Cost-m.Cost) > 1e-6 {
						t.Errorf("session %s model %s cost: ours $%.6f, ccusage $%.6f", s.SessionID, m.Model, o.Cost, m.Cost)
					}
				}
			}
		})
	}
}

// usageHome is a copy of testdata/usage-home, the fixture home with all
// eighteen agents' logs (Kimi Code's beside Kimi CLI's).
func usageHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	if err := os.CopyFS(home, os.DirFS(filepath.Join(repoRoot, "tests", "testdata", "usage-home"))); err != nil {
		t.Fatal(err)
	}
	return home
}

// nodeEnv is the environment both tools run in: the home, UTC, and the
// pinned Node first on PATH.
func nodeEnv(node, home string) []string {
	return []string{"HOME=" + home, "TZ=UTC", "PATH=" + filepath.Dir(node) + string(os.PathListSeparator) + os.Getenv("PATH")}
}

// ccusageModelRow is one model's line in a ccusage row (its
// modelBreakdowns), daily or per session.
type ccusageModelRow struct {
	Model      string  `json:"modelName"`
	Input      int64   `json:"inputTokens"`
	Output     int64   `json:"outputTokens"`
	CacheWrite int64   `json:"cacheCreationTokens"`
	CacheRead  int64   `json:"cacheReadTokens"`
	Cost       float64 `json:"cost"`
}
