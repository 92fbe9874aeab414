// Package report aggregates calls into the usage and savings reports:
// periods in a time zone, breakdowns, turns, one-shot rate, retry tax,
// routing waste, and the redaction of project names.
package report

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"time"

	"github.com/toolhost/toolhost/plugins/usage/internal/pricing"
	"github.com/toolhost/toolhost/plugins/usage/internal/source"
)

// Query selects and prices calls.
type Query struct {
	// From and To bound the calls' times, in Unix milliseconds, [From, To).
	From, To int64
	// Loc is the time zone of days.
	Loc *time.Location
	// By is the breakdown: "", project, model, task, provider, day or
	// session.
	By string
	// Limit caps the rows of each table.
	Limit int
	// Mode is the cost rule.
	Mode pricing.Mode
	// Provider, when set, keeps only that provider's calls.
	Provider string
	// IncludeNames shows project names instead of pseudonyms.
	IncludeNames bool
	// Prices is the price table.
	Prices *pricing.Table
	// Group, when set, names the project group a call's project belongs
	// to ("" for none): a group is shown as one project.
	Group func(o *source.Origin) string
}

// Totals are summed usage.
type Totals struct {
	CostUSD          float64  `json:"cost_usd"`
	Calls            int      `json:"calls"`
	Sessions         int      `json:"sessions,omitempty"`
	InputTokens      int64    `json:"input_tokens"`
	OutputTokens     int64    `json:"output_tokens"`
	CacheWriteTokens int64    `json:"cache_write_tokens"`
	CacheReadTokens  int64    `json:"cache_read_tokens"`
	TotalTokens      int64    `json:"total_tokens"`
	CacheHitPct      float64  `json:"cache_hit_pct"`
	OneShotPct       *float64 `json:"one_shot_pct,omitempty"`
	// UnpricedCalls counts calls on models with no price: their cost is
	// unknown and not in CostUSD.
	UnpricedCalls int `json:"unpriced_calls,omitempty"`
}

// Row is one line of a breakdown.
type Row struct {
	Key string `json:"key"`
	Totals
	// Models breaks a day or a session down by model.
	Models []Row `json:"models,omitempty"`
	// A session's provider, project (as projects are shown), first and
	// last call (RFC 3339 in the query's zone) and minutes between them.
	Provider        string  `json:"provider,omitempty"`
	Project         string  `json:"project,omitempty"`
	Start           string  `json:"start,omitempty"`
	End             string  `json:"end,omitempty"`
	DurationMinutes float64 `json:"duration_minutes,omitempty"`
}

// Usage is the get-usage report.
type Usage struct {
	Totals      Totals   `json:"totals"`
	TopModels   []Row    `json:"top_models,omitempty"`
	TopProjects []Row    `json:"top_projects,omitempty"`
	TopTasks    []Row    `json:"top_tasks,omitempty"`
	Rows        []Row    `json:"rows,omitempty"`
	RowsTotal   int      `json:"rows_total,omitempty"`
	Unpriced    []string `json:"unpriced_models,omitempty"`
}

// priced caches one model's price lookup.
type priced struct {
	price pricing.Price
	ok    bool
}

// pricer prices calls, memoising lookups by model name.
type pricer struct {
	t        *pricing.Table
	mode     pricing.Mode
	cache    map[string]priced
	lastName string
	last     priced
	unpriced map[string]bool
}

func newPricer(t *pricing.Table, mode pricing.Mode) *pricer {
	return &pricer{t: t, mode: mode, cache: map[string]priced{}, unpriced: map[string]bool{}}
}

func (p *pricer) lookup(model string) priced {
	if model == p.lastName && p.lastName != "" {
		return p.last
	}
	pr, ok := p.cache[model]
	if !ok {
		pr.price, pr.ok = p.t.Lookup(model)
		p.cache[model] = pr
	}
	p.lastName, p.last = model, pr
	return pr
}

// charge is a call's cost; ok is false when its model has no price (the
// cost is then unknown, not zero).
type charge struct {
	usd float64
	ok  bool
}

func (p *pricer) cost(c *source.Call) charge {
	pr := p.lookup(c.Model())
	if !pr.ok {
		p.unpriced[c.Model()] = true
		return charge{}
	}
	return charge{pr.price.Cost(c.Tokens(), p.mode), true}
}

func (p *pricer) unpricedList() []string {
	out := make([]string, 0, len(p.unpriced))
	for m := range p.unpriced {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// add sums one call into t.
func (t *Totals) add(c *source.Call, cost charge) {
	t.CostUSD += cost.usd
	if !cost.ok {
		t.UnpricedCalls++
	}
	t.Calls++
	t.InputTokens += int64(c.In)
	t.OutputTokens += int64(c.Out)
	t.CacheWriteTokens += int64(c.CW5m) + int64(c.CW1h)
	t.CacheReadTokens += int64(c.CR)
}

func (t *Totals) finish() {
	t.TotalTokens = t.InputTokens + t.OutputTokens + t.CacheWriteTokens + t.CacheReadTokens
	if prompt := t.InputTokens + t.CacheWriteTokens + t.CacheReadTokens; prompt > 0 {
		t.CacheHitPct = round2(100 * float64(t.CacheReadTokens) / float64(prompt))
	}
}

func round2(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }

// dayer maps times to day keys in a zone, remembering the current day's
// bounds so sorted or clustered calls cost one comparison each.
type dayer struct {
	loc        *time.Location
	start, end int64
	key        string
}

func (d *dayer) day(ms int64) string {
	if ms >= d.start && ms < d.end && d.key != "" {
		return d.key
	}
	t := time.UnixMilli(ms).In(d.loc)
	y, m, dd := t.Date()
	s := time.Date(y, m, dd, 0, 0, 0, 0, d.loc)
	d.start, d.end = s.UnixMilli(), s.AddDate(0, 0, 1).UnixMilli()
	d.key = s.Format("2006-01-02")
	return d.key
}

// Namer turns project identities into what outputs show.
type Namer struct {
	include bool
	cache   map[string]string
	group   func(o *source.Origin) string
	groups  map[*source.Origin]string
}

// NewNamer returns a Namer; include shows real names (the last path
// element), else the pseudonym project-<6 hex of sha256>.
func NewNamer(include bool) *Namer { return &Namer{include: include, cache: map[string]string{}} }

// Name returns the shown name of a call's project: its group's, when it
// is in one (pseudonymised as a project is).
func (n *Namer) Name(c *source.Call) string {
	if n.group != nil {
		g, ok := n.groups[c.Origin]
		if !ok {
			g = n.group(c.Origin)
			n.groups[c.Origin] = g
		}
		if g != "" {
			if n.include {
				return g
			}
			return Pseudonym("group:" + g)
		}
	}
	if n.include {
		if c.Origin.Name != "" {
			return c.Origin.Name
		}
		return "unknown"
	}
	if c.Origin.Project == "" {
		return "unknown" // no working directory logged: not a hash of ""
	}
	if v, ok := n.cache[c.Origin.Project]; ok {
		return v
	}
	v := Pseudonym(c.Origin.Project)
	n.cache[c.Origin.Project] = v
	return v
}

// sessionName is session-<first 8 hex digits of sha256(provider, id)>.
func sessionName(key string) string {
	h := sha256.Sum256([]byte(key))
	return "session-" + hex.EncodeToString(h[:4])
}

// Pseudonym is project-<first 6 hex digits of sha256(name)>.
func Pseudonym(name string) string {
	h := sha256.Sum256([]byte(name))
	return "project-" + hex.EncodeToString(h[:3])
}

// selected calls fn for each call of the query's period and provider.
func selected(calls []*source.Call, q *Query, fn func(c *source.Call)) {
	for _, c := range calls {
		if c.Time < q.From || c.Time >= q.To {
			continue
		}
		if q.Provider != "" && c.Origin.Provider != q.Provider {
			continue
		}
		fn(c)
	}
}

type acc struct {
	Totals
	models map[string]*Totals
	// Sessions: provider, project and the first and last call's time.
	provider, project string
	first, last       int64
}

// addModel sums one call into the group's per-model totals.
func (a *acc) addModel(c *source.Call, cost charge) {
	if a.models == nil {
		a.models = map[string]*Totals{}
	}
	mt := a.models[c.Model()]
	if mt == nil {
		mt = &Totals{}
		a.models[c.Model()] = mt
	}
	mt.add(c, cost)
}

// BuildUsage aggregates the calls of q's period.
func BuildUsage(calls []*source.Call, q *Query) *Usage {
	pr := newPricer(q.Prices, q.Mode)
	u := &Usage{}
	namer := NewNamer(q.IncludeNames)
	if q.Group != nil {
		namer.group, namer.groups = q.Group, map[*source.Origin]string{}
	}
	needTurns := q.By == "" || q.By == "task"
	var turns *turnSet
	if needTurns {
		turns = analyseTurns(calls, q, pr)
	}
	sessions := map[string]struct{}{}
	groups := map[string]*acc{}
	models, projects := map[string]*acc{}, map[string]*acc{}
	d := &dayer{loc: q.Loc}
	get := func(m map[string]*acc, k string) *acc {
		a := m[k]
		if a == nil {
			a = &acc{}
			m[k] = a
		}
		return a
	}
	selected(calls, q, func(c *source.Call) {
		cost := pr.cost(c)
		u.Totals.add(c, cost)
		switch q.By {
		case "":
			sessions[c.Origin.Provider+"\x00"+c.Origin.Session] = struct{}{}
			get(models, c.Model()).add(c, cost)
			get(projects, namer.Name(c)).add(c, cost)
		case "model":
			get(groups, c.Model()).add(c, cost)
		case "project":
			get(groups, namer.Name(c)).add(c, cost)
		case "provider":
			get(groups, c.Origin.Provider).add(c, cost)
		case "day":
			a := get(groups, d.day(c.Time))
			a.add(c, cost)
			a.addModel(c, cost)
		case "session":
			a := get(groups, c.Origin.Provider+"\x00"+c.Origin.Session)
			if a.Calls == 0 || c.Time < a.first {
				a.first = c.Time
			}
			if c.Time > a.last {
				a.last = c.Time
			}
			if a.provider == "" {
				a.provider, a.project = c.Origin.Provider, namer.Name(c)
			}
			a.add(c, cost)
			a.addModel(c, cost)
		}
	})
	u.Totals.finish()
	u.Totals.Sessions = len(sessions)
	if turns != nil {
		u.Totals.OneShotPct = turns.oneShotPct()
	}
	switch q.By {
	case "":
		u.TopModels, _ = ranked(models, q.Limit, false)
		u.TopProjects, _ = ranked(projects, q.Limit, false)
		u.TopTasks, _ = ranked(turns.tasks, q.Limit, false)
	case "task":
		u.Rows, u.RowsTotal = ranked(turns.tasks, q.Limit, false)
	case "day":
		u.Rows, u.RowsTotal = ranked(groups, q.Limit, true)
		sort.Slice(u.Rows, func(i, j int) bool { return u.Rows[i].Key < u.Rows[j].Key })
	case "session":
		// Session ids are not shown: a session is named by a pseudonym
		// of its id, and told apart by its project and times.
		named := make(map[string]*acc, len(groups))
		for k, a := range groups {
			named[sessionName(k)] = a
		}
		u.Rows, u.RowsTotal = ranked(named, q.Limit, false)
		for i := range u.Rows {
			a := named[u.Rows[i].Key]
			r := &u.Rows[i]
			r.Provider, r.Project = a.provider, a.project
			r.Start = time.UnixMilli(a.first).In(q.Loc).Format(time.RFC3339)
			r.End = time.UnixMilli(a.last).In(q.Loc).Format(time.RFC3339)
			r.DurationMinutes = round2(float64(a.last-a.first) / 60000)
		}
	default:
		u.Rows, u.RowsTotal = ranked(groups, q.Limit, false)
	}
	u.Unpriced = pr.unpricedList()
	return u
}

// ranked sorts groups by cost (then name) and keeps the first limit; for
// days the most recent limit days are kept.
func ranked(m map[string]*acc, limit int, recent bool) ([]Row, int) {
	rows := make([]Row, 0, len(m))
	for k, a := range m {
		r := Row{Key: k, Totals: a.Totals}
		r.finish()
		for mk, mt := range a.models {
			mr := Row{Key: mk, Totals: *mt}
			mr.finish()
			r.Models = append(r.Models, mr)
		}
		sort.Slice(r.Models, func(i, j int) bool { return r.Models[i].Key < r.Models[j].Key })
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool {
		if recent {
			return rows[i].Key > rows[j].Key
		}
		if rows[i].CostUSD != rows[j].CostUSD {
			return rows[i].CostUSD > rows[j].CostUSD
		}
		return rows[i].Key < rows[j].Key
	})
	n := len(rows)
	if limit > 0 && len(rows) > limit {
		rows = rows[:limit]
	}
	return rows, n
}

// NewCoster prices calls one at a time by t under mode: the cost, and false
// when the model has no price.
func NewCoster(t *pricing.Table, mode pricing.Mode) func(c *source.Call) (float64, bool) {
	pr := newPricer(t, mode)
	return func(c *source.Call) (float64, bool) {
		ch := pr.cost(c)
		return ch.usd, ch.ok
	}
}
