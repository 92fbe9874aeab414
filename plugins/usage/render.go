package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/toolhost/toolhost/plugins/usage/internal/pricing"
	"github.com/toolhost/toolhost/plugins/usage/internal/report"
	"github.com/toolhost/toolhost/plugins/usage/internal/source"
	"github.com/toolhost/toolhost/sdk"
)

// usageData is get-usage's structured result.
type usageData struct {
	*window
	Pricing string `json:"pricing"`
	By      string `json:"by,omitempty"`
	*report.Usage
	Empty        bool              `json:"empty,omitempty"`
	Message      string            `json:"message,omitempty"`
	Degraded     []source.Degraded `json:"degraded"`
	SkippedLines int64             `json:"skipped_lines"`
	PricesAsOf   string            `json:"prices_as_of"`
	// PricesStale, when set, names the model the price table is older than.
	PricesStale *report.StalePrices `json:"prices_stale,omitempty"`
	Truncated   bool                `json:"truncated,omitempty"`
	// Budgets, when a budgets file is set, is their standing now.
	Budgets *budgetState `json:"budgets,omitempty"`
}

// savingsData is get-savings' structured result.
type savingsData struct {
	*window
	*report.Savings
	Empty        bool              `json:"empty,omitempty"`
	Message      string            `json:"message,omitempty"`
	Degraded     []source.Degraded `json:"degraded"`
	SkippedLines int64             `json:"skipped_lines"`
}

func periodWords(w *window) string {
	switch w.Label {
	case "today":
		return "today"
	case "last_7_days":
		return "in the last 7 days"
	case "last_30_days":
		return "in the last 30 days"
	case "month_to_date":
		return "this month"
	case "last_6_months":
		return "in the last 6 months"
	}
	return "from " + w.From + " to " + w.To
}

func degradedNote(d []source.Degraded) string {
	if len(d) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\n_Partial data:_\n")
	for _, x := range d {
		fmt.Fprintf(&b, "- %s: %s\n", x.Provider, x.Reason)
	}
	return b.String()
}

func renderUsage(w *window, a *usageArgs, u *report.Usage, prices *pricing.Table, stale *report.StalePrices, degraded []source.Degraded, skipped int64) *sdk.Result {
	if degraded == nil {
		degraded = []source.Degraded{}
	}
	d := &usageData{window: w, Pricing: a.Pricing, By: a.By, Usage: u, Degraded: degraded, SkippedLines: skipped,
		PricesAsOf: prices.AsOf, PricesStale: stale}
	if u.Totals.Calls == 0 {
		what := "no usage recorded " + periodWords(w) + " yet"
		if a.Provider != "" {
			what = "no " + a.Provider + " usage recorded " + periodWords(w) + " yet"
		}
		d.Usage = nil
		d.Empty = true
		d.Message = what + " — run some coding sessions, or widen the period (e.g. period=last_30_days)."
		var b strings.Builder
		b.WriteString(d.Message)
		staleNote(&b, stale)
		return &sdk.Result{Data: d, Markdown: b.String() + degradedNote(degraded)}
	}
	var b strings.Builder
	t := u.Totals
	fmt.Fprintf(&b, "**AI coding usage %s** (%s, %s pricing, prices as of %s): **%s** over %d calls",
		periodWords(w), w.Timezone, a.Pricing, prices.AsOf, rowCost(&t), t.Calls)
	if t.Sessions > 0 {
		fmt.Fprintf(&b, " in %d sessions", t.Sessions)
	}
	fmt.Fprintf(&b, " · tokens: %s in, %s out, %s cache write, %s cache read · cache hit %.1f%%",
		num(t.InputTokens), num(t.OutputTokens), num(t.CacheWriteTokens), num(t.CacheReadTokens), t.CacheHitPct)
	if t.OneShotPct != nil {
		fmt.Fprintf(&b, " · one-shot %.1f%%", *t.OneShotPct)
	}
	b.WriteString("\n")
	if a.By == "" {
		table(&b, "Model", u.TopModels)
		table(&b, "Project", u.TopProjects)
		table(&b, "Task", u.TopTasks)
	} else {
		table(&b, strings.ToUpper(a.By[:1])+a.By[1:], u.Rows)
		if u.RowsTotal > len(u.Rows) {
			fmt.Fprintf(&b, "\n_%d of %d rows; raise limit to see more._\n", len(u.Rows), u.RowsTotal)
		}
	}
	staleNote(&b, stale)
	readNotes(&b, u.Unpriced, skipped, degraded)
	return &sdk.Result{Data: d, Markdown: b.String()}
}

// staleNote flags a price table older than a model in the logs.
func staleNote(b *strings.Builder, s *report.StalePrices) {
	if s == nil {
		return
	}
	what := "its price may be out of date"
	if !s.Priced {
		what = "it has no price (n/a)"
	}
	fmt.Fprintf(b, "\n_Prices are as of %s, older than %s (first seen %s): %s; set USAGE_PRICE_REFRESH=1 or give prices in USAGE_PRICES_FILE._\n",
		s.AsOf, s.Model, s.FirstSeen, what)
}

// table writes ranked rows; a day's or session's models follow it as
// indented rows (the same breakdown the JSON has).
func table(b *strings.Builder, title string, rows []report.Row) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "\n| %s | Cost | Calls | Input | Output | Cache write | Cache read | Total |\n|---|---:|---:|---:|---:|---:|---:|---:|\n", title)
	line := func(key string, r *report.Row) {
		fmt.Fprintf(b, "| %s | %s | %d | %s | %s | %s | %s | %s |\n", key, rowCost(&r.Totals), r.Calls,
			num(r.InputTokens), num(r.OutputTokens), num(r.CacheWriteTokens), num(r.CacheReadTokens), num(r.TotalTokens))
	}
	for i := range rows {
		r := &rows[i]
		key := mdEscape(r.Key)
		if r.Project != "" {
			key += " (" + mdEscape(r.Provider) + ", " + mdEscape(r.Project) + ", " + r.Start[:16] + ", " + fmt.Sprintf("%.0f min", r.DurationMinutes) + ")"
		}
		line(key, r)
		if len(r.Models) > 1 {
			for j := range r.Models {
				line("&nbsp;&nbsp;└ "+mdEscape(r.Models[j].Key), &r.Models[j])
			}
		}
	}
}

// rowCost is a row's cost as a person should read it: "n/a" when none of
// its calls is priced, "$x + n/a" when some are not.
func rowCost(t *report.Totals) string {
	switch {
	case t.UnpricedCalls == 0:
		return usd(t.CostUSD)
	case t.UnpricedCalls == t.Calls:
		return "n/a"
	}
	return usd(t.CostUSD) + " + n/a"
}

// readNotes ends a report with what its reading left out: models without
// a price, malformed lines skipped, providers read degraded.
func readNotes(b *strings.Builder, unpriced []string, skipped int64, degraded []source.Degraded) {
	unpricedNote(b, unpriced)
	if skipped > 0 {
		fmt.Fprintf(b, "\n_%d malformed log lines skipped._\n", skipped)
	}
	b.WriteString(degradedNote(degraded))
}

// unpricedNote says which models have no price and what to do.
func unpricedNote(b *strings.Builder, unpriced []string) {
	if len(unpriced) == 0 {
		return
	}
	fmt.Fprintf(b, "\n_n/a: no price for %s, so their cost is not in the totals; give one in USAGE_PRICES_FILE or set USAGE_PRICE_REFRESH=1._\n", strings.Join(unpriced, ", "))
}

func renderSavings(w *window, s *report.Savings, degraded []source.Degraded, skipped int64) *sdk.Result {
	if degraded == nil {
		degraded = []source.Degraded{}
	}
	d := &savingsData{window: w, Savings: s, Degraded: degraded, SkippedLines: skipped}
	if s.Turns == 0 {
		d.Savings = nil
		d.Empty = true
		d.Message = "no usage recorded " + periodWords(w) + " yet — nothing to optimise."
		return &sdk.Result{Data: d, Markdown: d.Message + degradedNote(degraded)}
	}
	if s.Findings == nil {
		s.Findings = []report.Finding{}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**Savings %s** (%s): %s over %d turns, %d with edits.\n", periodWords(w), w.Timezone, usd(s.CostUSD), s.Turns, s.EditTurns)
	if len(s.Findings) == 0 {
		b.WriteString("\nNo findings: nothing obvious to save.\n")
	} else {
		b.WriteString("\n| Finding | Impact | What to do |\n|---|---:|---|\n")
		for _, f := range s.Findings {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", mdEscape(f.Title), usd(f.ImpactUSD), mdEscape(f.Detail))
		}
	}
	if len(s.OneShot) > 0 {
		b.WriteString("\n| Model | Edit turns | One-shot | Retry tax | Cost |\n|---|---:|---:|---:|---:|\n")
		for _, m := range s.OneShot {
			fmt.Fprintf(&b, "| %s | %d | %.1f%% | %s | %s |\n", mdEscape(m.Model), m.EditTurns, m.OneShotPct, usd(m.RetryTaxUSD), usd(m.CostUSD))
		}
	}
	if s.RoutingWaste.Note != "" {
		fmt.Fprintf(&b, "\n_Routing waste: %s._\n", s.RoutingWaste.Note)
	}
	unpricedNote(&b, s.Unpriced)
	b.WriteString(degradedNote(degraded))
	return &sdk.Result{Data: d, Markdown: b.String()}
}

func renderStatus(d *statusData) string {
	var b strings.Builder
	where := map[string]string{}
	for _, a := range d.Agents {
		where[a.Agent] = a.Where
	}
	b.WriteString("| Provider | Where | Found | Files | Lines | Skipped | Calls |\n|---|---|---|---:|---:|---:|---:|\n")
	for _, p := range d.Providers {
		fmt.Fprintf(&b, "| %s | %s | %v | %d | %d | %d | %d |\n", p.Provider, mdEscape(where[p.Provider]), p.Found, p.Files, p.Lines, p.SkippedLines, p.Calls)
	}
	header := false
	for _, a := range d.Agents {
		if a.Read {
			continue
		}
		if !header {
			b.WriteString("\nOther agents looked for (not read by this plugin):\n\n| Agent | Where | Found |\n|---|---|---|\n")
			header = true
		}
		found := "no"
		if a.Present {
			found = fmt.Sprintf("yes, %d entries — not read, not in the totals", a.Entries)
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", a.Agent, mdEscape(a.Where), found)
	}
	for _, p := range d.Providers {
		if !p.Found && len(p.LookedIn) > 0 {
			fmt.Fprintf(&b, "\n%s: no logs in %s.\n", p.Provider, strings.Join(p.LookedIn, ", "))
		}
	}
	c := d.Cache
	fmt.Fprintf(&b, "\nLast scan %s: %d files parsed, %s bytes read (%s in all over %d scans), %d calls indexed. Prices as of %s (%s).\n",
		c.LastScan, c.FilesParsed, num(c.BytesReadLast), num(c.BytesReadTotal), c.Scans, c.CallsIndexed, d.Prices.AsOf, strings.Join(d.Prices.Sources, " + "))
	b.WriteString(degradedNote(d.Degraded))
	return b.String()
}

// fit trims a usage result's rows until its JSON fits the caller's budget.
func fit(res *sdk.Result, budget int) *sdk.Result {
	d, ok := res.Data.(*usageData)
	if !ok || budget <= 0 || d.Usage == nil {
		return res
	}
	size := func(v any) int { b, _ := json.Marshal(v); return len(b) }
	if size(d) <= budget {
		return res
	}
	c := *d
	u := *d.Usage
	c.Usage = &u
	c.Truncated = true
	for size(&c) > budget {
		switch {
		case len(u.Rows) > 1:
			u.Rows = u.Rows[:len(u.Rows)/2]
		case len(u.TopProjects) > 1 || len(u.TopModels) > 1 || len(u.TopTasks) > 1:
			u.TopProjects = half(u.TopProjects)
			u.TopModels = half(u.TopModels)
			u.TopTasks = half(u.TopTasks)
		default:
			return &sdk.Result{Data: &c, Markdown: res.Markdown}
		}
	}
	return &sdk.Result{Data: &c, Markdown: res.Markdown}
}

func half(r []report.Row) []report.Row {
	if len(r) > 1 {
		return r[:len(r)/2]
	}
	return r
}

func usd(f float64) string {
	if f != 0 && f < 0.01 {
		return fmt.Sprintf("$%.4f", f)
	}
	return fmt.Sprintf("$%.2f", f)
}

// num formats an integer with thousands separators.
func num(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + num(-n)
	}
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

func mdEscape(s string) string { return mdCell.Replace(s) }

// mdCell escapes text from the logs (model, project and provider names) for
// a Markdown table cell: a | would end the cell and a line break the row.
var mdCell = strings.NewReplacer("|", `\|`, "\r\n", " ", "\n", " ", "\r", " ")

// blocksData is the blocks action's structured result.
type blocksData struct {
	*window
	Provider string `json:"provider"`
	Pricing  string `json:"pricing"`
	*report.Blocks
	Empty        bool              `json:"empty,omitempty"`
	Message      string            `json:"message,omitempty"`
	Degraded     []source.Degraded `json:"degraded"`
	SkippedLines int64             `json:"skipped_lines"`
}

func renderBlocks(w *window, a *blocksArgs, bl *report.Blocks, degraded []source.Degraded, skipped int64) *sdk.Result {
	if degraded == nil {
		degraded = []source.Degraded{}
	}
	d := &blocksData{window: w, Provider: a.Provider, Pricing: a.Pricing, Blocks: bl, Degraded: degraded, SkippedLines: skipped}
	if len(bl.Blocks) == 0 {
		d.Empty = true
		if a.Active {
			d.Message = "no active " + a.Provider + " usage window: no call in the last 5 hours."
		} else {
			d.Message = "no " + a.Provider + " usage windows " + periodWords(w) + " — run some coding sessions, or widen the period (e.g. period=last_30_days)."
		}
		return &sdk.Result{Data: d, Markdown: d.Message + degradedNote(degraded)}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s 5-hour usage windows %s** (%s, %s pricing)\n\n", a.Provider, periodWords(w), w.Timezone, a.Pricing)
	b.WriteString("| Window start | Status | Models | Calls | Input | Output | Cache write | Cache read | Total | Cost |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	when := func(s string) string {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return s
		}
		return t.In(w.loc).Format("2006-01-02 15:04")
	}
	var active *report.Block
	for i, x := range bl.Blocks {
		status := "done"
		switch {
		case x.Gap:
			fmt.Fprintf(&b, "| %s | idle until %s | | | | | | | | |\n", when(x.Start), when(x.End))
			continue
		case x.Active:
			status = "**active** until " + when(x.End)
			active = &bl.Blocks[i]
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %s | %s | %s | %s | %s | %s |\n", when(x.Start), status, mdEscape(strings.Join(x.Models, ", ")),
			x.Calls, num(x.InputTokens), num(x.OutputTokens), num(x.CacheWriteTokens), num(x.CacheReadTokens), num(x.TotalTokens), rowCost(&x.Totals))
	}
	if active != nil && active.BurnRate != nil {
		fmt.Fprintf(&b, "\nActive window: burning %s tokens/min, %s/hour; at this rate it ends at %s tokens and %s (%d minutes left).\n",
			num(int64(active.BurnRate.TokensPerMinute+0.5)), usd(active.BurnRate.CostPerHourUSD),
			num(active.Projection.TotalTokens), usd(active.Projection.CostUSD), active.Projection.RemainingMinutes)
	}
	if bl.BlocksTotal > len(bl.Blocks) && !a.Active {
		fmt.Fprintf(&b, "\n_%d of %d windows (the most recent); raise limit to see more._\n", len(bl.Blocks), bl.BlocksTotal)
	}
	readNotes(&b, bl.Unpriced, skipped, degraded)
	return &sdk.Result{Data: d, Markdown: b.String()}
}
