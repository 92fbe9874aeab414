package report

import (
	"sort"

	"github.com/toolhost/toolhost/plugins/usage/internal/pricing"
	"github.com/toolhost/toolhost/plugins/usage/internal/source"
)

// turn is a user message and the assistant calls after it.
type turn struct {
	calls    []*source.Call
	cost     float64
	model    string
	edit     bool
	retries  int
	retryTax float64
	task     string
}

type turnSet struct {
	turns []*turn
	tasks map[string]*acc
}

// analyseTurns groups the period's calls into turns and classifies them.
// A retry is an edit of a file already edited in the turn after a
// non-read-only shell step (a build, a test run, a script) ran in between.
// The retry tax of a turn is the cost of the calls from the first retried
// edit to the end of the turn.
func analyseTurns(calls []*source.Call, q *Query, pr *pricer) *turnSet {
	byID := map[uint64]*turn{}
	var order []*turn
	selected(calls, q, func(c *source.Call) {
		t := byID[c.TurnID()]
		if t == nil {
			t = &turn{model: c.Model()}
			byID[c.TurnID()] = t
			order = append(order, t)
		}
		cost := pr.cost(c)
		t.calls = append(t.calls, c)
		t.cost += cost.usd
	})
	ts := &turnSet{turns: order, tasks: map[string]*acc{}}
	for _, t := range order {
		sort.SliceStable(t.calls, func(i, j int) bool { return t.calls[i].Time < t.calls[j].Time })
		edited := map[uint64]bool{}
		dirty := map[uint64]bool{}
		var tests, git, delegate, reads, shell bool
		firstRetry := -1
		for i, c := range t.calls {
			for _, s := range c.Steps() {
				switch s.Kind {
				case source.StepEdit:
					t.edit = true
					if dirty[s.File] {
						t.retries++
						dirty[s.File] = false
						if firstRetry < 0 {
							firstRetry = i
						}
					}
					edited[s.File] = true
				case source.StepShell, source.StepTest:
					if s.Kind == source.StepTest {
						tests = true
					} else {
						shell = true
					}
					for f := range edited {
						dirty[f] = true
					}
				case source.StepGit:
					git = true
				case source.StepDelegate:
					delegate = true
				case source.StepRead, source.StepShellRead:
					reads = true
				}
			}
		}
		if firstRetry >= 0 {
			for _, c := range t.calls[firstRetry:] {
				t.retryTax += pr.cost(c).usd
			}
		}
		switch {
		case t.edit && t.retries > 0:
			t.task = "debugging"
		case t.edit:
			t.task = "coding"
		case tests:
			t.task = "testing"
		case git:
			t.task = "git"
		case delegate:
			t.task = "delegation"
		case reads || shell:
			t.task = "exploration"
		default:
			t.task = "conversation"
		}
		a := ts.tasks[t.task]
		if a == nil {
			a = &acc{}
			ts.tasks[t.task] = a
		}
		for _, c := range t.calls {
			a.add(c, pr.cost(c))
		}
	}
	return ts
}

// oneShotPct is the share of edit turns without a retry, or nil without
// edit turns.
func (ts *turnSet) oneShotPct() *float64 {
	var edits, ok int
	for _, t := range ts.turns {
		if t.edit {
			edits++
			if t.retries == 0 {
				ok++
			}
		}
	}
	if edits == 0 {
		return nil
	}
	v := round2(100 * float64(ok) / float64(edits))
	return &v
}

// ModelOneShot is one model's one-shot record.
type ModelOneShot struct {
	Model        string  `json:"model"`
	EditTurns    int     `json:"edit_turns"`
	OneShotTurns int     `json:"one_shot_turns"`
	OneShotPct   float64 `json:"one_shot_pct"`
	RetryTaxUSD  float64 `json:"retry_tax_usd"`
	CostUSD      float64 `json:"cost_usd"`
}

// Finding is one optimisation with its dollar impact.
type Finding struct {
	Title     string  `json:"title"`
	ImpactUSD float64 `json:"impact_usd"`
	Detail    string  `json:"detail"`
}

// Savings is the get-savings report.
type Savings struct {
	CostUSD      float64        `json:"cost_usd"`
	Turns        int            `json:"turns"`
	EditTurns    int            `json:"edit_turns"`
	Findings     []Finding      `json:"findings"`
	RetryTax     RetryTax       `json:"retry_tax"`
	RoutingWaste RoutingWaste   `json:"routing_waste"`
	OneShot      []ModelOneShot `json:"one_shot_by_model"`
	Unpriced     []string       `json:"unpriced_models,omitempty"`
}

// RetryTax is money spent re-doing edits.
type RetryTax struct {
	TotalUSD float64            `json:"total_usd"`
	Retries  int                `json:"retries"`
	ByModel  map[string]float64 `json:"by_model,omitempty"`
}

// RoutingWaste is what edit turns cost above the same tokens priced at the
// cheapest model that one-shots at least MinOneShotPct of at least
// MinTurns edit turns.
type RoutingWaste struct {
	TotalUSD      float64            `json:"total_usd"`
	BaselineModel string             `json:"baseline_model,omitempty"`
	ByModel       map[string]float64 `json:"by_model,omitempty"`
	Note          string             `json:"note,omitempty"`
}

// Routing-waste thresholds.
const (
	MinOneShotPct = 90.0
	MinTurns      = 10
)

// BuildSavings analyses the calls of q's period for savings.
func BuildSavings(calls []*source.Call, q *Query) *Savings {
	pr := newPricer(q.Prices, q.Mode)
	ts := analyseTurns(calls, q, pr)
	s := &Savings{RetryTax: RetryTax{ByModel: map[string]float64{}}, RoutingWaste: RoutingWaste{ByModel: map[string]float64{}}}
	per := map[string]*ModelOneShot{}
	var lcPremium, oneHour float64
	for _, t := range ts.turns {
		s.Turns++
		s.CostUSD += t.cost
		s.RetryTax.TotalUSD += t.retryTax
		s.RetryTax.Retries += t.retries
		if t.retryTax > 0 {
			s.RetryTax.ByModel[t.model] += t.retryTax
		}
		for _, c := range t.calls {
			if p := pr.lookup(c.Model()); p.ok {
				lcPremium += p.price.LongContextPremium(c.Tokens(), q.Mode)
				oneHour += float64(c.CW1h) * (p.price.CacheWrite1h - p.price.CacheWrite5m) / 1e6
			}
		}
		if !t.edit {
			continue
		}
		s.EditTurns++
		m := per[t.model]
		if m == nil {
			m = &ModelOneShot{Model: t.model}
			per[t.model] = m
		}
		m.EditTurns++
		m.CostUSD += t.cost
		m.RetryTaxUSD += t.retryTax
		if t.retries == 0 {
			m.OneShotTurns++
		}
	}
	for _, m := range per {
		m.OneShotPct = round2(100 * float64(m.OneShotTurns) / float64(m.EditTurns))
		s.OneShot = append(s.OneShot, *m)
	}
	sort.Slice(s.OneShot, func(i, j int) bool { return s.OneShot[i].CostUSD > s.OneShot[j].CostUSD })
	// Routing waste against the cheapest reliable model.
	base, baseCost := "", 0.0
	for _, m := range s.OneShot {
		if m.EditTurns < MinTurns || m.OneShotPct < MinOneShotPct {
			continue
		}
		p := pr.lookup(m.Model)
		if !p.ok {
			continue
		}
		ref := p.price.Cost(pricing.Tokens{Input: 1e6, Output: 1e6, CacheRead: 1e6, CacheWrite5m: 1e6}, pricing.ModeProvider)
		if base == "" || ref < baseCost {
			base, baseCost = m.Model, ref
		}
	}
	if base != "" {
		s.RoutingWaste.BaselineModel = base
		bp := pr.lookup(base).price
		for _, t := range ts.turns {
			if !t.edit || t.model == base {
				continue
			}
			var alt float64
			for _, c := range t.calls {
				alt += bp.Cost(c.Tokens(), q.Mode)
			}
			if w := t.cost - alt; w > 0 {
				s.RoutingWaste.TotalUSD += w
				s.RoutingWaste.ByModel[t.model] += w
			}
		}
	} else {
		s.RoutingWaste.Note = "no model one-shot at least 90% of at least 10 edit turns in this period"
	}
	if s.RetryTax.TotalUSD > 0 {
		s.Findings = append(s.Findings, Finding{Title: "Retry tax", ImpactUSD: s.RetryTax.TotalUSD,
			Detail: "edits redone after a failed build or test run; ask for a plan or a failing test first"})
	}
	if s.RoutingWaste.TotalUSD > 0 {
		s.Findings = append(s.Findings, Finding{Title: "Routing waste", ImpactUSD: s.RoutingWaste.TotalUSD,
			Detail: "edit turns priced on " + base + ", which one-shots them reliably"})
	}
	if lcPremium > 0 {
		s.Findings = append(s.Findings, Finding{Title: "Long-context premium", ImpactUSD: lcPremium,
			Detail: "requests over 200k prompt tokens are billed at long-context rates; compact or start a new session sooner"})
	}
	if oneHour > 0 {
		s.Findings = append(s.Findings, Finding{Title: "1-hour cache writes", ImpactUSD: oneHour,
			Detail: "1h cache writes cost more than 5m ones; use the 5m cache unless sessions pause for long"})
	}
	sort.Slice(s.Findings, func(i, j int) bool { return s.Findings[i].ImpactUSD > s.Findings[j].ImpactUSD })
	s.Unpriced = pr.unpricedList()
	return s
}
