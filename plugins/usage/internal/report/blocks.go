package report

import (
	"sort"
	"time"

	"github.com/toolhost/toolhost/plugins/usage/internal/source"
)

// BlockHours is the length of a usage window: Claude's subscription limits
// reset five hours after the window's first request.
const BlockHours = 5

// Block is one rolling usage window, or the idle gap between two.
type Block struct {
	// ID is the start time (RFC 3339, UTC), "gap-<start>" for a gap.
	ID string `json:"id"`
	// Start is the first call's time floored to the hour (UTC); End is
	// Start plus five hours (a gap ends where the next window's call is).
	Start string `json:"start"`
	End   string `json:"end"`
	// LastCall is the time of the window's last call.
	LastCall string `json:"last_call,omitempty"`
	Active   bool   `json:"active"`
	Gap      bool   `json:"gap,omitempty"`
	Totals
	Models []string `json:"models"`
	// BurnRate and Projection are given for the active window only.
	BurnRate   *BurnRate   `json:"burn_rate,omitempty"`
	Projection *Projection `json:"projection,omitempty"`

	first, last int64
	startMs     int64
	endMs       int64
}

// BurnRate is how fast the active window spends, measured from its first
// to its last call.
type BurnRate struct {
	TokensPerMinute float64 `json:"tokens_per_minute"`
	CostPerHourUSD  float64 `json:"cost_per_hour_usd"`
}

// Projection is where the active window ends at its burn rate.
type Projection struct {
	TotalTokens      int64   `json:"total_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	RemainingMinutes int64   `json:"remaining_minutes"`
}

// Blocks is the blocks report.
type Blocks struct {
	Blocks      []Block  `json:"blocks"`
	BlocksTotal int      `json:"blocks_total"`
	Unpriced    []string `json:"unpriced_models,omitempty"`
}

// BuildBlocks splits the provider's calls into five-hour windows the way
// ccusage's blocks report does: a window starts at its first call's hour
// (UTC) and takes every call until one comes five hours or more after the
// window's start, or more than five hours after the previous call; such a
// pause is a gap block. A window is active when now is before its end and
// less than five hours after its last call. Windows are made from all
// calls, then those starting in q's period are kept (the most recent
// q.Limit, oldest first).
func BuildBlocks(calls []*source.Call, q *Query, now time.Time) *Blocks {
	pr := newPricer(q.Prices, q.Mode)
	var sel []*source.Call
	for _, c := range calls {
		if q.Provider == "" || c.Origin.Provider == q.Provider {
			sel = append(sel, c)
		}
	}
	sort.SliceStable(sel, func(i, j int) bool { return sel[i].Time < sel[j].Time })
	const span = BlockHours * int64(time.Hour/time.Millisecond)
	var all []*Block
	var cur *Block
	seen := map[string]bool{}
	for _, c := range sel {
		if cur != nil && (c.Time-cur.startMs > span || c.Time-cur.last > span) {
			if c.Time-cur.last > span {
				all = append(all, &Block{Gap: true, startMs: cur.last + span, endMs: c.Time})
			}
			cur = nil
		}
		if cur == nil {
			start := c.Time - c.Time%int64(time.Hour/time.Millisecond)
			cur = &Block{startMs: start, endMs: start + span, first: c.Time}
			all = append(all, cur)
			clear(seen)
		}
		cur.last = c.Time
		cur.add(c, pr.cost(c))
		if m := c.Model(); !seen[m] {
			seen[m] = true
			cur.Models = append(cur.Models, m)
		}
	}
	nowMs := now.UnixMilli()
	out := &Blocks{Blocks: []Block{}}
	for _, b := range all {
		if b.startMs < q.From || b.startMs >= q.To {
			continue
		}
		b.finish()
		b.Start = time.UnixMilli(b.startMs).UTC().Format(time.RFC3339)
		b.End = time.UnixMilli(b.endMs).UTC().Format(time.RFC3339)
		if b.Gap {
			b.ID = "gap-" + b.Start
			b.Models = []string{}
			out.Blocks = append(out.Blocks, *b)
			continue
		}
		b.ID = b.Start
		b.LastCall = time.UnixMilli(b.last).UTC().Format(time.RFC3339)
		b.Active = nowMs < b.endMs && nowMs-b.last < span
		if b.Active {
			b.BurnRate, b.Projection = burn(b, nowMs)
		}
		out.Blocks = append(out.Blocks, *b)
	}
	out.BlocksTotal = len(out.Blocks)
	if q.Limit > 0 && len(out.Blocks) > q.Limit {
		out.Blocks = out.Blocks[len(out.Blocks)-q.Limit:]
	}
	out.Unpriced = pr.unpricedList()
	return out
}

// burn is the window's burn rate (tokens and cost per unit of time between
// its first and last call) and the projection to its end; nil when the
// window has one instant of activity.
func burn(b *Block, nowMs int64) (*BurnRate, *Projection) {
	minutes := float64(b.last-b.first) / 60000
	if minutes <= 0 {
		return nil, nil
	}
	r := &BurnRate{TokensPerMinute: float64(b.TotalTokens) / minutes, CostPerHourUSD: b.CostUSD / minutes * 60}
	remaining := max(0, float64(b.endMs-nowMs)/60000)
	p := &Projection{
		TotalTokens:      b.TotalTokens + int64(r.TokensPerMinute*remaining+0.5),
		CostUSD:          b.CostUSD + r.CostPerHourUSD/60*remaining,
		RemainingMinutes: int64(remaining + 0.5),
	}
	return r, p
}
