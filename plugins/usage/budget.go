package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toolhost/toolhost/plugins/usage/internal/budget"
	"github.com/toolhost/toolhost/plugins/usage/internal/pricing"
	"github.com/toolhost/toolhost/plugins/usage/internal/report"
	"github.com/toolhost/toolhost/plugins/usage/internal/source"
	"github.com/toolhost/toolhost/sdk"
)

// Error codes of the budget action.
const (
	codeBadBudgets  sdk.Code = "invalid_budgets"
	codeBudgetWarn  sdk.Code = "budget_warn"
	codeBudgetOver  sdk.Code = "budget_over"
	forecastRuleDoc          = "linear: the spend so far divided by the share of the period passed; it warns only once a quarter of the period has passed"
)

// budgetState is the budgets' standing a report carries.
type budgetState struct {
	// File is the budgets file's name (its folder is not shown).
	File    string          `json:"file"`
	State   string          `json:"state"`
	Budgets []budget.Result `json:"budgets"`
	// Forecast says how forecast_usd is computed.
	Forecast string `json:"forecast"`
}

// loadBudgets reads the budgets file: nil, nil when there is none at the
// default place; an error when the file is malformed, or when
// USAGE_BUDGETS_FILE names a file that is not there.
func (s *service) loadBudgets() (*budget.Config, string, error) {
	path := budget.Path(s.env)
	cfg, err := budget.Load(path)
	if errors.Is(err, budget.ErrNoFile) {
		if s.env("USAGE_BUDGETS_FILE") != "" {
			return nil, path, &sdk.Error{Code: codeBadBudgets, Message: fmt.Sprintf("USAGE_BUDGETS_FILE names %s, which does not exist", path),
				NextStep: "create it (see the usage README, Budgets) or unset USAGE_BUDGETS_FILE"}
		}
		return nil, path, nil
	}
	if err != nil {
		return nil, path, &sdk.Error{Code: codeBadBudgets, Message: err.Error(), NextStep: "fix the budgets file; the usage README's Budgets section shows the format"}
	}
	return cfg, path, nil
}

// evalBudgets gives the budgets' standing on snap's calls at now.
func evalBudgets(cfg *budget.Config, path string, calls []*source.Call, prices *pricing.Table, loc *time.Location, now time.Time) *budgetState {
	rs := cfg.Evaluate(calls, report.NewCoster(prices, pricing.ModeProvider), loc, now)
	return &budgetState{File: baseName(path), State: budget.Worst(rs), Budgets: rs, Forecast: forecastRuleDoc}
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// budgetArgs are the budget action's args.
type budgetArgs struct {
	Timezone string `json:"timezone"`
	Check    bool   `json:"check"`
}

// budgetAction is the budget action: each budget's spend, forecast and
// state; with check, a budget at warn or over fails the call (exit 1).
func (s *service) budgetAction(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
	var a budgetArgs
	if err := req.Bind(&a); err != nil {
		return nil, err
	}
	loc, tzName, err := s.zone(a.Timezone)
	if err != nil {
		return nil, err
	}
	cfg, path, err := s.loadBudgets()
	if err != nil {
		return nil, err
	}
	if cfg == nil || len(cfg.Budgets) == 0 {
		msg := fmt.Sprintf("no budgets set: write them in %s (see the usage README, Budgets), e.g.\n\n"+
			"    budgets:\n      - {period: day, limit_usd: 20}\n      - {period: month, limit_usd: 300, provider: claude}\n", path)
		return &sdk.Result{Data: &budgetState{File: baseName(path), State: budget.StateOK, Budgets: []budget.Result{}, Forecast: forecastRuleDoc},
			Markdown: msg}, nil
	}
	prices, _, warn := s.table(ctx)
	s.store.Refresh(ctx, func(done, total int) { req.Progress(float64(done), float64(total), "parsing session logs") })
	now := s.now()
	var st *budgetState
	var degraded []source.Degraded
	s.store.View(func(snap *source.Snapshot) {
		st = evalBudgets(cfg, path, snap.Calls, prices, loc, now)
		degraded = append(append([]source.Degraded{}, warn...), snap.Degraded...)
	})
	md := renderBudgets(st, tzName, degraded)
	if a.Check && st.State != budget.StateOK {
		code := codeBudgetWarn
		if st.State == budget.StateOver {
			code = codeBudgetOver
		}
		var lines []string
		for _, r := range budget.Breached(st.Budgets) {
			lines = append(lines, fmt.Sprintf("%s budget %s: %s", r.Name, r.State, r.Why))
		}
		return nil, &sdk.Error{Code: code, Message: strings.Join(lines, "; "),
			NextStep: "see where the money went with get-usage --by project, or raise the limit in " + baseName(path)}
	}
	return &sdk.Result{Data: st, Markdown: md}, nil
}

// renderBudgets is the budget report's Markdown.
func renderBudgets(st *budgetState, tz string, degraded []source.Degraded) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Budgets: %s** (%s, from %s)\n\n", st.State, tz, st.File)
	b.WriteString("| Budget | Period | Spent | Limit | Spent % | Forecast | State | Why |\n|---|---|---:|---:|---:|---:|---|---|\n")
	for _, r := range st.Budgets {
		spent := usd(r.SpentUSD)
		if r.UnpricedCalls > 0 {
			spent += " + n/a"
		}
		fmt.Fprintf(&b, "| %s | %s (%.0f%% gone) | %s | %s | %.0f%% | %s | %s | %s |\n", mdEscape(r.Name), r.Period, r.ElapsedPct,
			spent, usd(r.LimitUSD), r.SpentPct, usd(r.ForecastUSD), r.State, mdEscape(r.Why))
	}
	fmt.Fprintf(&b, "\n_Forecast: %s._\n", st.Forecast)
	b.WriteString(degradedNote(degraded))
	return b.String()
}
