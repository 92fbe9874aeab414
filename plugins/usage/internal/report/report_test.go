package report

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/toolhost/toolhost/plugins/usage/internal/pricing"
	"github.com/toolhost/toolhost/plugins/usage/internal/source"
)

// rates are the published USD per million tokens of the models the
// planter uses (Anthropic's price page), written here and not read from
// the plugin's table, so a wrong table entry fails the test.
var rates = map[string]struct{ in, out, cw5m, cw1h, cr, lcIn, lcOut float64 }{
	"claude-haiku-4-5":  {1, 5, 1.25, 2, 0.1, 0, 0},
	"claude-sonnet-4-5": {3, 15, 3.75, 6, 0.3, 6, 22.5},
}

// use is one request's tokens.
type use struct{ in, out, cw1h int64 }

func (u use) cost(model string) float64 {
	r := rates[model]
	return (float64(u.in)*r.in + float64(u.out)*r.out + float64(u.cw1h)*r.cw1h) / 1e6
}

// planter writes one Claude Code session (transcript lines in Claude Code's
// layout: a user prompt opens a turn, each assistant response is a line
// with its tool uses, tool results come back as user lines) and records
// what it planted.
type planter struct {
	b     strings.Builder
	t     time.Time
	n     int
	calls []plantedCall
}

type plantedCall struct {
	model string
	u     use
}

const plantCwd = "/home/dev/shop"

func (p *planter) line(s string) {
	p.t = p.t.Add(10 * time.Second)
	p.b.WriteString(s)
	p.b.WriteByte('\n')
}

func (p *planter) head() string {
	return fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":%q,"sessionId":"5f0c2f9e-3333-4a4a-9b9b-000000000003","version":"2.1.50","gitBranch":"main",`, plantCwd)
}

func (p *planter) prompt(text string) {
	p.n++
	p.line(p.head() + fmt.Sprintf(`"type":"user","message":{"role":"user","content":%q},"uuid":"u%d","timestamp":%q}`, text, p.n, p.ts()))
}

func (p *planter) ts() string { return p.t.UTC().Format("2006-01-02T15:04:05.000Z") }

// call writes one response; tool is "" (text), "edit FILE" or "bash CMD".
func (p *planter) call(model string, u use, tool string) {
	p.n++
	block := `{"type":"text","text":"done"}`
	kind, arg, _ := strings.Cut(tool, " ")
	switch kind {
	case "edit":
		block = fmt.Sprintf(`{"type":"tool_use","id":"toolu_%d","name":"Edit","input":{"file_path":"%s/%s","old_string":"a","new_string":"b"}}`, p.n, plantCwd, arg)
	case "bash":
		block = fmt.Sprintf(`{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":%q,"description":"run"}}`, p.n, arg)
	}
	usage := fmt.Sprintf(`{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":%d},"output_tokens":%d,"service_tier":"standard"}`,
		u.in, u.cw1h, u.cw1h, u.out)
	p.line(p.head() + fmt.Sprintf(`"message":{"model":%q,"id":"msg_%d","type":"message","role":"assistant","content":[%s],"stop_reason":"tool_use","stop_sequence":null,"usage":%s},"requestId":"req_%d","type":"assistant","uuid":"a%d","timestamp":%q}`,
		model, p.n, block, usage, p.n, p.n, p.ts()))
	if kind != "" {
		p.line(p.head() + fmt.Sprintf(`"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_%d","type":"tool_result","content":"ok","is_error":false}]},"uuid":"r%d","timestamp":%q,"toolUseResult":{"stdout":"ok","stderr":"","interrupted":false}}`, p.n, p.n, p.ts()))
	}
	p.calls = append(p.calls, plantedCall{model, u})
}

// load writes the session and returns the calls the plugin's parser finds.
func (p *planter) load(t *testing.T) []*source.Call {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "projects", "-home-dev-shop", "5f0c2f9e-3333-4a4a-9b9b-000000000003.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(p.b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"CLAUDE_CONFIG_DIR": dir, "HOME": dir}
	st := source.NewStore(func(k string) string { return env[k] }, 1, source.Claude{})
	st.Refresh(context.Background(), nil)
	var calls []*source.Call
	st.View(func(s *source.Snapshot) {
		calls = s.Calls
		if len(s.Degraded) > 0 || s.SkippedLines > 0 {
			t.Fatalf("planted log not read cleanly: %+v, %d skipped", s.Degraded, s.SkippedLines)
		}
	})
	if len(calls) != len(p.calls) {
		t.Fatalf("parser found %d calls, planted %d", len(calls), len(p.calls))
	}
	return calls
}

// TestSavingsFindings plants each finding with a known dollar impact and
// checks the savings report names exactly those, in order of impact:
//   - ten one-shot edit turns on claude-haiku-4-5 (the cheap reliable
//     model: the routing baseline);
//   - on claude-sonnet-4-5 one edit turn with a retry (edit, a test run,
//     the same file edited again) and one one-shot edit turn;
//   - a 250k-token prompt (long context) and a request writing the 1-hour
//     cache, both in turns without tools.
func TestSavingsFindings(t *testing.T) {
	const haiku, sonnet = "claude-haiku-4-5", "claude-sonnet-4-5"
	p := &planter{t: time.Date(2026, 6, 10, 9, 0, 0, 0, time.UTC)}
	small := use{in: 1000, out: 100}
	for i := range 10 {
		p.prompt(fmt.Sprintf("fix typo %d", i))
		p.call(haiku, small, fmt.Sprintf("edit doc%d.md", i))
	}
	// Turn A: the retry. Retry tax: the retried edit and what follows.
	p.prompt("make the test pass")
	a := []struct {
		u    use
		tool string
	}{{small, "edit cart.go"}, {small, "bash go test ./..."}, {use{in: 2000, out: 200}, "edit cart.go"}, {use{in: 500, out: 50}, ""}}
	var turnA, taxA, turnAOnHaiku float64
	for i, c := range a {
		p.call(sonnet, c.u, c.tool)
		turnA += c.u.cost(sonnet)
		turnAOnHaiku += c.u.cost(haiku)
		if i >= 2 {
			taxA += c.u.cost(sonnet)
		}
	}
	// Turn B: one-shot.
	p.prompt("add a field")
	p.call(sonnet, small, "edit order.go")
	// Turn C: long context. Turn D: a 1-hour cache write.
	long := use{in: 250_000, out: 1000}
	p.prompt("summarise the repository")
	p.call(sonnet, long, "")
	hour := use{in: 100, out: 100, cw1h: 10_000}
	p.prompt("and now?")
	p.call(sonnet, hour, "")
	calls := p.load(t)

	prices, err := pricing.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	r := rates[sonnet]
	lcProvider := (float64(long.in)*(r.lcIn-r.in) + float64(long.out)*(r.lcOut-r.out)) / 1e6 // the whole request at the higher tier
	lcCCUsage := float64(long.in-200_000) * (r.lcIn - r.in) / 1e6                            // only the input above 200k
	oneHour := float64(hour.cw1h) * (r.cw1h - r.cw5m) / 1e6
	waste := turnA - turnAOnHaiku + small.cost(sonnet) - small.cost(haiku)
	haikuCost := 10 * small.cost(haiku)
	sonnetEdits := turnA + small.cost(sonnet)
	for _, tc := range []struct {
		mode pricing.Mode
		lc   float64
	}{{pricing.ModeProvider, lcProvider}, {pricing.ModeCCUsage, lcCCUsage}} {
		t.Run(string(tc.mode), func(t *testing.T) {
			q := &Query{From: p.t.Add(-24 * time.Hour).UnixMilli(), To: p.t.Add(time.Hour).UnixMilli(), Loc: time.UTC, Mode: tc.mode, Prices: prices}
			got := BuildSavings(calls, q)
			total := haikuCost + sonnetEdits + long.cost(sonnet) + tc.lc + hour.cost(sonnet)
			want := &Savings{
				CostUSD: total, Turns: 14, EditTurns: 12,
				Findings: []Finding{
					{Title: "Long-context premium", ImpactUSD: tc.lc},
					{Title: "1-hour cache writes", ImpactUSD: oneHour},
					{Title: "Routing waste", ImpactUSD: waste},
					{Title: "Retry tax", ImpactUSD: taxA},
				},
				RetryTax:     RetryTax{TotalUSD: taxA, Retries: 1, ByModel: map[string]float64{sonnet: taxA}},
				RoutingWaste: RoutingWaste{TotalUSD: waste, BaselineModel: haiku, ByModel: map[string]float64{sonnet: waste}},
				OneShot: []ModelOneShot{
					{Model: sonnet, EditTurns: 2, OneShotTurns: 1, OneShotPct: 50, RetryTaxUSD: taxA, CostUSD: sonnetEdits},
					{Model: haiku, EditTurns: 10, OneShotTurns: 10, OneShotPct: 100, CostUSD: haikuCost},
				},
			}
			// Impacts: long context $0.7575 (provider) or $0.15 (ccusage),
			// 1-hour cache $0.0225, routing $0.0165, retries $0.01125.
			opts := []cmp.Option{cmpopts.EquateApprox(0, 1e-9), cmpopts.EquateEmpty(), cmpopts.IgnoreFields(Finding{}, "Detail")}
			if diff := cmp.Diff(want, got, opts...); diff != "" {
				t.Errorf("savings (-want +got):\n%s", diff)
			}
		})
	}

	// Tasks: the retried turn is debugging, edits are coding, the rest
	// conversation; one-shot 11 of 12 edit turns.
	q := &Query{From: p.t.Add(-24 * time.Hour).UnixMilli(), To: p.t.Add(time.Hour).UnixMilli(), Loc: time.UTC, Mode: pricing.ModeProvider, Prices: prices, Limit: 10}
	u := BuildUsage(calls, q)
	tasks := map[string]int{}
	for _, r := range u.TopTasks {
		tasks[r.Key] = r.Calls
	}
	if diff := cmp.Diff(map[string]int{"debugging": 4, "coding": 11, "conversation": 2}, tasks); diff != "" {
		t.Errorf("tasks by calls (-want +got):\n%s", diff)
	}
	if u.Totals.OneShotPct == nil || math.Abs(*u.Totals.OneShotPct-round2(100*11/12.0)) > 1e-9 {
		t.Errorf("got one-shot %v, want %.2f", u.Totals.OneShotPct, round2(100*11/12.0))
	}
}

// TestRoutingWasteNeedsAReliableModel: with fewer than ten edit turns on
// any model there is no baseline, no routing-waste finding, and a note
// says why.
func TestRoutingWasteNeedsAReliableModel(t *testing.T) {
	p := &planter{t: time.Date(2026, 6, 10, 9, 0, 0, 0, time.UTC)}
	for i := range 9 {
		p.prompt("edit")
		p.call("claude-haiku-4-5", use{in: 1000, out: 100}, fmt.Sprintf("edit f%d.go", i))
	}
	p.prompt("edit")
	p.call("claude-sonnet-4-5", use{in: 1000, out: 100}, "edit g.go")
	calls := p.load(t)
	prices, err := pricing.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	got := BuildSavings(calls, &Query{From: 0, To: math.MaxInt64, Loc: time.UTC, Mode: pricing.ModeProvider, Prices: prices})
	if got.RoutingWaste.BaselineModel != "" || got.RoutingWaste.TotalUSD != 0 || got.RoutingWaste.Note == "" || len(got.Findings) != 0 {
		t.Errorf("got routing waste %+v, findings %+v; want none, with a note", got.RoutingWaste, got.Findings)
	}
}
