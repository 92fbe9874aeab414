package report

import (
	"cmp"
	"slices"
	"time"

	"github.com/toolhost/toolhost/plugins/usage/internal/pricing"
	"github.com/toolhost/toolhost/plugins/usage/internal/source"
)

// Status is what a statusline shows: the session's cost, today's, and the
// active five-hour window of Claude Code with its burn rate.
type Status struct {
	// SessionUSD is the cost of the session's calls (any day); SessionCalls
	// counts them (0: the logs hold nothing of it yet).
	SessionUSD   float64 `json:"session_cost_usd"`
	SessionCalls int     `json:"session_calls"`
	// TodayUSD is today's cost over every provider, in q.Loc's day.
	TodayUSD float64 `json:"today_cost_usd"`
	// Block is Claude Code's active window, nil when none is open.
	Block *Block `json:"active_block,omitempty"`
	// Unpriced names the models of today's or the session's calls that
	// have no price: their cost is not in the figures.
	Unpriced []string `json:"unpriced_models,omitempty"`
}

// BuildStatus sums session's calls and today's, and finds the active
// window (as BuildBlocks makes windows) of Claude Code's calls at now.
func BuildStatus(calls []*source.Call, q *Query, session string, now time.Time) *Status {
	pr := newPricer(q.Prices, q.Mode)
	st := &Status{}
	n := now.In(q.Loc)
	y, m, d := n.Date()
	from := time.Date(y, m, d, 0, 0, 0, 0, q.Loc).UnixMilli()
	to := time.Date(y, m, d+1, 0, 0, 0, 0, q.Loc).UnixMilli()
	for _, c := range calls {
		inSession := session != "" && c.Origin.Session == session
		today := c.Time >= from && c.Time < to
		if !inSession && !today {
			continue
		}
		ch := pr.cost(c)
		if inSession {
			st.SessionUSD += ch.usd
			st.SessionCalls++
		}
		if today {
			st.TodayUSD += ch.usd
		}
	}
	bq := *q
	bq.Provider, bq.From, bq.To, bq.Limit = "claude", now.Add(-2*BlockHours*time.Hour).UnixMilli(), now.Add(time.Hour).UnixMilli(), 0
	bl := BuildBlocks(recentChain(calls, now), &bq, now)
	for _, b := range bl.Blocks {
		if b.Active {
			st.Block = &b
		}
	}
	for _, m := range bl.Unpriced {
		pr.unpriced[m] = true
	}
	st.Unpriced = pr.unpricedList()
	return st
}

// recentChain is the Claude Code calls the active window can be made from,
// exactly as from all of them: windows chain from call to call, and a
// pause of five hours or more starts the chain anew, so the calls after
// the last such pause of the last two days suffice; without one, all.
func recentChain(calls []*source.Call, now time.Time) []*source.Call {
	since := now.Add(-48 * time.Hour).UnixMilli()
	var recent, all []*source.Call
	for _, c := range calls {
		if c.Origin.Provider != "claude" {
			continue
		}
		all = append(all, c)
		if c.Time >= since {
			recent = append(recent, c)
		}
	}
	slices.SortFunc(recent, func(a, b *source.Call) int { return cmp.Compare(a.Time, b.Time) })
	const span = BlockHours * int64(time.Hour/time.Millisecond)
	for i := len(recent) - 1; i > 0; i-- {
		if recent[i].Time-recent[i-1].Time > span {
			return recent[i:]
		}
	}
	return all
}

// StalePrices says that the price table is older than a model the logs
// hold: the model first seen after the table's date.
type StalePrices struct {
	AsOf      string `json:"as_of"`
	Model     string `json:"newest_model"`
	FirstSeen string `json:"first_seen"`
	// Priced is false when the table has no price for it at all.
	Priced bool `json:"priced"`
}

// CheckPrices finds the model first seen last in calls and, when that was
// after the day the table is dated (asOf, YYYY-MM-DD), says so; nil when
// the table is not older than any model seen (or is undated).
func CheckPrices(calls []*source.Call, t *pricing.Table) *StalePrices {
	asOf, err := time.Parse("2006-01-02", t.AsOf)
	if err != nil {
		return nil
	}
	first := map[string]int64{}
	var last *source.Origin // runs of calls share an origin: one lookup a run
	var lastFirst int64
	for _, c := range calls {
		if c.Origin == last && lastFirst <= c.Time {
			continue
		}
		f, ok := first[c.Model()]
		if !ok || c.Time < f {
			f = c.Time
			first[c.Model()] = f
		}
		last, lastFirst = c.Origin, f
	}
	var newest string
	for m, f := range first {
		if newest == "" || f > first[newest] || f == first[newest] && m < newest {
			newest = m
		}
	}
	if newest == "" || first[newest] < asOf.AddDate(0, 0, 1).UnixMilli() {
		return nil
	}
	_, priced := t.Lookup(newest)
	return &StalePrices{AsOf: t.AsOf, Model: newest, FirstSeen: time.UnixMilli(first[newest]).UTC().Format("2006-01-02"), Priced: priced}
}
