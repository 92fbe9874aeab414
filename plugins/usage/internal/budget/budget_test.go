package budget

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/plugins/usage/internal/source"
)

// spendAt makes calls of usd dollars each (priced by dollars below) at the
// given times, for one provider and project.
func spendAt(provider, project string, usd float64, times ...time.Time) []*source.Call {
	o := &source.Origin{Provider: provider, Project: "/home/u/" + project, Name: project, Session: "s", Model: "m"}
	var out []*source.Call
	for _, t := range times {
		out = append(out, &source.Call{Time: t.UnixMilli(), Origin: o, In: uint32(usd * 1e6)})
	}
	return out
}

// dollars prices a call at one dollar a million input tokens; model "free"
// has no price.
func dollars(c *source.Call) (float64, bool) {
	if c.Model() == "free" {
		return 0, false
	}
	return float64(c.In) / 1e6, true
}

func mustParse(t *testing.T, doc string) *Config {
	t.Helper()
	c, err := Parse("usage-budgets.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestStates: generated spend that crosses each threshold of a day budget
// gives ok, warn (share spent, forecast, exactly the limit) and over; the
// forecast alone warns only after a quarter of the period.
func TestStates(t *testing.T) {
	day := time.Date(2026, 6, 2, 0, 0, 0, 0, time.UTC)
	// $12 spent by 18:00: three-quarters of the day, so the pace gives $16.
	calls := spendAt("claude", "api", 3, day.Add(1*time.Hour), day.Add(6*time.Hour), day.Add(12*time.Hour), day.Add(17*time.Hour))
	calls = append(calls, spendAt("claude", "api", 100, day.Add(-time.Hour))...) // yesterday: not counted
	now := day.Add(18 * time.Hour)
	tests := []struct {
		limit     float64
		now       time.Time
		wantState string
		wantWhy   string
	}{
		{100, now, StateOK, "spent 12%"},
		{20, now, StateOK, "spent 60%"},              // forecast $16 under $20
		{15.5, now, StateWarn, "on pace for $16.00"}, // 77% spent, forecast over
		{14, now, StateWarn, "spent 86%"},
		{12, now, StateWarn, "spent 100%"}, // a budget of exactly today's spend warns
		{11.99, now, StateOver, "spent $12.00 of $11.99"},
		// At 05:00 $3 is spent: the pace says $14.40, but a fifth of the day
		// says little, so the forecast does not warn yet.
		{10, day.Add(5 * time.Hour), StateOK, "spent 30%"},
	}
	for _, tt := range tests {
		c := mustParse(t, "budgets:\n  - period: day\n    limit_usd: "+strconv.FormatFloat(tt.limit, 'f', -1, 64)+"\n")
		rs := c.Evaluate(calls, dollars, time.UTC, tt.now)
		if len(rs) != 1 {
			t.Fatalf("limit %v: %d results", tt.limit, len(rs))
		}
		r := rs[0]
		if r.State != tt.wantState || !strings.Contains(r.Why, tt.wantWhy) {
			t.Errorf("limit $%v at %s: %s (%s), want %s (%s)", tt.limit, tt.now.Format("15:04"), r.State, r.Why, tt.wantState, tt.wantWhy)
		}
	}
	r := mustParse(t, "budgets:\n  - {period: day, limit_usd: 100}\n").Evaluate(calls, dollars, time.UTC, now)[0]
	if r.SpentUSD != 12 || r.ForecastUSD != 16 || r.ElapsedPct != 75 {
		t.Errorf("spent %v forecast %v elapsed %v%%, want 12, 16, 75%%", r.SpentUSD, r.ForecastUSD, r.ElapsedPct)
	}
}

// TestScopes: week and month periods, per provider, per project and per
// project group, and the worst state overall.
func TestScopes(t *testing.T) {
	now := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC) // a Wednesday
	var calls []*source.Call
	calls = append(calls, spendAt("claude", "billing-api", 10, now.Add(-time.Hour))...)
	calls = append(calls, spendAt("codex", "billing-worker", 5, now.Add(-time.Hour))...)
	calls = append(calls, spendAt("claude", "docs", 7, now.Add(-49*time.Hour))...)    // Monday: this week
	calls = append(calls, spendAt("claude", "docs", 50, now.Add(-4*24*time.Hour))...) // last Saturday: this month
	calls = append(calls, spendAt("claude", "docs", 1000, now.Add(-40*24*time.Hour))...)
	c := mustParse(t, `
week_starts: monday
groups:
  billing: [billing-api, /home/u/billing-worker]
budgets:
  - {name: all month, period: month, limit_usd: 1000}
  - {name: claude week, period: week, limit_usd: 20, provider: claude}
  - {name: codex day, period: day, limit_usd: 4, provider: codex}
  - {name: billing day, period: day, limit_usd: 100, project: billing}
  - {name: docs week, period: week, limit_usd: 8, project: docs}
`)
	want := map[string]struct {
		spent float64
		state string
	}{
		"all month":   {72, StateOK},
		"claude week": {17, StateWarn},
		"codex day":   {5, StateOver},
		"billing day": {15, StateOK},
		"docs week":   {7, StateWarn},
	}
	rs := c.Evaluate(calls, dollars, time.UTC, now)
	for _, r := range rs {
		w := want[r.Name]
		if r.SpentUSD != w.spent || r.State != w.state {
			t.Errorf("%s: spent %v %s, want %v %s", r.Name, r.SpentUSD, r.State, w.spent, w.state)
		}
	}
	if Worst(rs) != StateOver || len(Breached(rs)) != 3 || Breached(rs)[0].Name != "codex day" {
		t.Errorf("worst %s, breached %+v", Worst(rs), Breached(rs))
	}
}

// TestUnpricedCalls are counted, not priced as free.
func TestUnpricedCalls(t *testing.T) {
	now := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	calls := spendAt("claude", "p", 1, now.Add(-time.Hour))
	calls[0].Origin.Model = "free"
	r := mustParse(t, "budgets:\n  - {period: day, limit_usd: 5}\n").Evaluate(calls, dollars, time.UTC, now)[0]
	if r.UnpricedCalls != 1 || r.SpentUSD != 0 {
		t.Errorf("got %+v", r)
	}
}

// TestBadFiles: each mistake is named with its fix.
func TestBadFiles(t *testing.T) {
	tests := []struct{ doc, want string }{
		{"budgets:\n  - {limit_usd: 5}\n", "budget 1 has no period; set period: day, week or month"},
		{"budgets:\n  - {period: year, limit_usd: 5}\n", `period "year" is not day, week or month`},
		{"budgets:\n  - {name: x, period: day}\n", "budget 1 (x): limit_usd must be a positive amount"},
		{"budgets:\n  - {period: day, limit_usd: -3}\n", "limit_usd must be a positive amount"},
		{"budgets:\n  - {period: day, limit_usd: 5, provider: claude, project: a}\n", "sets both provider and project"},
		{"warn_at: 80\nbudgets: []\n", "warn_at 80 must be a share"},
		{"week_starts: someday\n", `week_starts "someday" is not a day`},
		{"groups:\n  g: []\n", `group "g" lists no projects`},
		{"budget:\n  - {period: day}\n", "field budget not found"},
		{"budgets: 5\n", "cannot unmarshal"},
	}
	for _, tt := range tests {
		_, err := Parse("usage-budgets.yaml", []byte(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "usage-budgets.yaml") {
			t.Errorf("%q: got %v, want %q", tt.doc, err, tt.want)
		}
	}
	if _, err := Load(""); err != ErrNoFile {
		t.Errorf("no path: %v", err)
	}
}
