package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/toolhost/toolhost/plugins/usage/internal/budget"
	"github.com/toolhost/toolhost/plugins/usage/internal/pricing"
	"github.com/toolhost/toolhost/plugins/usage/internal/report"
	"github.com/toolhost/toolhost/plugins/usage/internal/source"
	"github.com/toolhost/toolhost/sdk"
)

// Error codes of this plugin.
const (
	codeBadTimezone sdk.Code = "invalid_timezone"
	codeBadDate     sdk.Code = "invalid_date"
)

// service is the resident state of the plugin: the parse cache, the price
// table, the memo of results and the in-flight coalescing of identical calls.
type service struct {
	env   source.Env
	now   func() time.Time
	store *source.Store
	// bg outlives any one call: a shared scan runs under it, so one
	// caller's cancellation cannot abort the scan the others wait for.
	bg     context.Context
	flight singleflight.Group
	// computes counts the reports actually computed (not coalesced or memoised).
	computes atomic.Int64

	pricesMu   sync.Mutex
	prices     *pricing.Table
	pricesAt   time.Time
	pricesWarn []source.Degraded

	memoMu sync.Mutex
	memo   map[string]memoEntry

	// memoryFloor, when set, makes each scan adjust the soft memory limit.
	memoryFloor int64

	// Test hooks: hookCompute runs at the start of a shared computation,
	// hookJoined after a caller joined one.
	hookCompute, hookJoined func()
}

type memoEntry struct {
	gen    uint64
	prices time.Time
	res    *sdk.Result
}

func newService(getenv func(string) string) *service {
	env := source.Env(getenv)
	workers, _ := strconv.Atoi(env("USAGE_WORKERS"))
	return &service{
		env:   env,
		now:   time.Now,
		store: source.NewStore(env, workers, source.Claude{}, source.Codex{}, source.Gemini{}, source.OpenCode{}, source.Qwen{}, source.Droid{}, source.Amp{}, source.Goose{}, source.Kimi{}, source.Kilo{}, source.Pi{}, source.Hermes{}, source.Copilot{}, source.Grok{}, source.OpenClaw{}, source.ZCode{}, source.Codebuff{}, source.Antigravity{}),
		bg:    context.Background(),
		memo:  map[string]memoEntry{},
	}
}

// usageArgs are get-usage's args.
type usageArgs struct {
	periodArgs
	By           string `json:"by"`
	Limit        int    `json:"limit"`
	IncludeNames bool   `json:"include-project-names"`
	Provider     string `json:"provider"`
}

// periodArgs are the args every report takes: its period and its pricing.
type periodArgs struct {
	Period   string `json:"period"`
	From     string `json:"from"`
	To       string `json:"to"`
	Timezone string `json:"timezone"`
	Pricing  string `json:"pricing"`
}

func (p *periodArgs) period() *periodArgs { return p }

// bindPeriod binds req's args into a (a report's args, periodArgs
// embedded; the host checked them and filled tool.yaml's defaults) and
// resolves their period; key names the report for the result cache (the
// action, its args and the window).
func (s *service) bindPeriod(req *sdk.Request, a interface{ period() *periodArgs }) (w *window, key string, err error) {
	if err := req.Bind(a); err != nil {
		return nil, "", err
	}
	p := a.period()
	if w, err = s.resolve(p.Period, p.From, p.To, p.Timezone); err != nil {
		return nil, "", err
	}
	b, _ := json.Marshal(struct {
		A any
		W *window
	}{a, w})
	return w, req.Action + " " + string(b), nil
}

// window is a resolved period.
type window struct {
	Label    string `json:"period"`
	From     string `json:"from"`
	To       string `json:"to"`
	Timezone string `json:"timezone"`
	from, to int64
	loc      *time.Location
}

// resolve turns a period or from/to into a time window in the zone.
func (s *service) resolve(period, from, to, tz string) (*window, error) {
	loc, name, err := s.zone(tz)
	if err != nil {
		return nil, err
	}
	now := s.now().In(loc)
	y, m, d := now.Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, loc)
	end := today.AddDate(0, 0, 1)
	var start time.Time
	label := period
	if from != "" || to != "" {
		if to != "" {
			t, err := time.ParseInLocation("2006-01-02", to, loc)
			if err != nil {
				return nil, &sdk.Error{Code: codeBadDate, Message: fmt.Sprintf("to %q is not YYYY-MM-DD", to)}
			}
			end = t.AddDate(0, 0, 1)
		}
		start = end.AddDate(0, -6, 0)
		if from != "" {
			t, err := time.ParseInLocation("2006-01-02", from, loc)
			if err != nil {
				return nil, &sdk.Error{Code: codeBadDate, Message: fmt.Sprintf("from %q is not YYYY-MM-DD", from)}
			}
			start = t
		}
		if !start.Before(end) {
			return nil, &sdk.Error{Code: codeBadDate, Message: "from is after to"}
		}
		label = start.Format("2006-01-02") + ".." + end.AddDate(0, 0, -1).Format("2006-01-02")
	} else {
		switch period { // tool.yaml's enum; the host refuses any other value
		case "today":
			start = today
		case "last_7_days":
			start = today.AddDate(0, 0, -6)
		case "last_30_days":
			start = today.AddDate(0, 0, -29)
		case "month_to_date":
			start = time.Date(y, m, 1, 0, 0, 0, 0, loc)
		case "last_6_months":
			start = today.AddDate(0, -6, 0)
		default:
			return nil, sdk.Errorf(sdk.CodeInvalidArgs, "unknown period %q", period)
		}
	}
	return &window{Label: label, From: start.Format("2006-01-02"), To: end.AddDate(0, 0, -1).Format("2006-01-02"),
		Timezone: name, from: start.UnixMilli(), to: end.UnixMilli(), loc: loc}, nil
}

func (s *service) zone(tz string) (*time.Location, string, error) {
	if tz == "" {
		tz = s.env("USAGE_TIMEZONE")
	}
	if tz == "" {
		tz = s.env("TZ")
	}
	if tz == "" {
		abbr, _ := s.now().Zone()
		return time.Local, "local (" + abbr + ")", nil
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, "", &sdk.Error{Code: codeBadTimezone, Message: fmt.Sprintf("unknown time zone %q", tz),
			NextStep: "pass an IANA name such as UTC or Europe/Berlin"}
	}
	return loc, loc.String(), nil
}

// table returns the price table, loading it on first use and again after a
// day (the LiteLLM cache's lifetime).
func (s *service) table(ctx context.Context) (*pricing.Table, time.Time, []source.Degraded) {
	s.pricesMu.Lock()
	defer s.pricesMu.Unlock()
	if s.prices != nil && s.now().Sub(s.pricesAt) < pricing.CacheTTL {
		return s.prices, s.pricesAt, s.pricesWarn
	}
	var warn []source.Degraded
	t, err := pricing.Embedded()
	if err != nil {
		t = &pricing.Table{}
		warn = append(warn, source.Degraded{Provider: "prices", Reason: err.Error()})
	}
	if v := s.env("USAGE_PRICE_REFRESH"); v != "" && v != "0" && v != "false" {
		url := s.env("USAGE_LITELLM_URL")
		if url == "" {
			url = pricing.LiteLLMURL
		}
		m, _, err := pricing.Refresh(ctx, nil, url, s.cacheFile(), s.now())
		if err != nil {
			warn = append(warn, source.Degraded{Provider: "prices", Reason: "litellm refresh failed, using embedded prices: " + err.Error()})
		} else {
			t.Merge("litellm", m)
		}
	}
	if f := s.env("USAGE_PRICES_FILE"); f != "" {
		if err := t.LoadOverride(f); err != nil {
			warn = append(warn, source.Degraded{Provider: "prices", Reason: "price override file " + filepath.Base(f) + " ignored"})
		}
	}
	s.prices, s.pricesAt, s.pricesWarn = t, s.now(), warn
	return t, s.pricesAt, warn
}

// cacheDir holds the plugin's caches: USAGE_CACHE_DIR, else
// toolhost-usage under XDG_CACHE_HOME or ~/.cache.
func (s *service) cacheDir() string {
	if dir := s.env("USAGE_CACHE_DIR"); dir != "" {
		return dir
	}
	base := s.env("XDG_CACHE_HOME")
	if base == "" {
		base = filepath.Join(s.env("HOME"), ".cache")
	}
	return filepath.Join(base, "toolhost-usage")
}

func (s *service) cacheFile() string { return filepath.Join(s.cacheDir(), "litellm-prices.json") }

// shared runs compute once for all identical concurrent calls (same key).
// The computation runs under the service's own context, so a caller that
// gives up gets "cancelled" while the others still get the result.
func (s *service) shared(ctx context.Context, key string, req *sdk.Request,
	compute func(ctx context.Context, progress source.Progress) (*sdk.Result, error)) (*sdk.Result, error) {
	ch := s.flight.DoChan(key, func() (any, error) {
		if s.hookCompute != nil {
			s.hookCompute()
		}
		progress := func(done, total int) {
			req.Progress(float64(done), float64(total), "parsing session logs")
		}
		return compute(s.bg, progress)
	})
	if s.hookJoined != nil {
		s.hookJoined()
	}
	select {
	case r := <-ch:
		if r.Err != nil {
			return nil, r.Err
		}
		return r.Val.(*sdk.Result), nil
	case <-ctx.Done():
		return nil, sdk.Errorf(sdk.CodeCancelled, "call cancelled; the shared scan goes on for other callers")
	}
}

// scanned refreshes the store and runs fn on the snapshot, memoising the
// result for key until the logs or the prices change.
func (s *service) scanned(ctx context.Context, key string, progress source.Progress,
	fn func(snap *source.Snapshot, prices *pricing.Table, warn []source.Degraded) (*sdk.Result, error)) (*sdk.Result, error) {
	prices, pricesAt, warn := s.table(ctx)
	s.store.Refresh(ctx, progress)
	s.adjustMemory()
	var res *sdk.Result
	var err error
	s.store.View(func(snap *source.Snapshot) {
		s.memoMu.Lock()
		m, ok := s.memo[key]
		s.memoMu.Unlock()
		if ok && m.gen == snap.Generation && m.prices.Equal(pricesAt) {
			res = m.res
			return
		}
		s.computes.Add(1)
		res, err = fn(snap, prices, warn)
		if err == nil {
			s.memoMu.Lock()
			if len(s.memo) > 256 {
				clear(s.memo)
			}
			s.memo[key] = memoEntry{gen: snap.Generation, prices: pricesAt, res: res}
			s.memoMu.Unlock()
		}
	})
	return res, err
}

// report runs build on a fresh snapshot, shared by identical concurrent
// calls and memoised for key; degraded holds the price table's warnings
// and the snapshot's.
func (s *service) report(ctx context.Context, key string, req *sdk.Request,
	build func(snap *source.Snapshot, prices *pricing.Table, degraded []source.Degraded) *sdk.Result) (*sdk.Result, error) {
	return s.shared(ctx, key, req, func(ctx context.Context, progress source.Progress) (*sdk.Result, error) {
		return s.scanned(ctx, key, progress, func(snap *source.Snapshot, prices *pricing.Table, warn []source.Degraded) (*sdk.Result, error) {
			degraded := append(append([]source.Degraded{}, warn...), snap.Degraded...)
			return build(snap, prices, append(degraded, source.UnreadAgents(source.LookForAgents(s.env))...)), nil
		})
	})
}

// getUsage is the get-usage action.
func (s *service) getUsage(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
	var a usageArgs
	w, key, err := s.bindPeriod(req, &a)
	if err != nil {
		return nil, err
	}
	cfg, _, berr := s.loadBudgets()
	var group func(o *source.Origin) string
	if cfg != nil && len(cfg.Groups) > 0 {
		group = cfg.GroupOf
		b, _ := json.Marshal(cfg.Groups)
		key += " groups " + string(b) // the budgets file's project groups shape the rows
	}
	res, err := s.report(ctx, key, req, func(snap *source.Snapshot, prices *pricing.Table, degraded []source.Degraded) *sdk.Result {
		q := &report.Query{From: w.from, To: w.to, Loc: w.loc, By: a.By, Limit: a.Limit,
			Mode: pricing.Mode(a.Pricing), Provider: a.Provider, IncludeNames: a.IncludeNames, Prices: prices, Group: group}
		u := report.BuildUsage(snap.Calls, q)
		return renderUsage(w, &a, u, prices, report.CheckPrices(snap.Calls, prices), degraded, snap.SkippedLines)
	})
	if err != nil {
		return nil, err
	}
	return fit(s.withBudgets(ctx, res, w.loc, cfg, berr), req.Caller.MaxResultBytes), nil
}

// withBudgets adds the budgets' standing to a get-usage result when a
// budgets file is set (a copy: the memoised result stays as it was); a
// budgets file that cannot be read is named in degraded, and the usage
// is still answered.
func (s *service) withBudgets(ctx context.Context, res *sdk.Result, loc *time.Location, cfg *budget.Config, berr error) *sdk.Result {
	d, ok := res.Data.(*usageData)
	if !ok {
		return res
	}
	if berr != nil {
		c := *d
		c.Degraded = append(append([]source.Degraded{}, d.Degraded...), source.Degraded{Provider: "budgets", Reason: berr.Error()})
		return &sdk.Result{Data: &c, Markdown: res.Markdown + degradedNote(c.Degraded[len(d.Degraded):])}
	}
	if cfg == nil || len(cfg.Budgets) == 0 {
		return res
	}
	path := budget.Path(s.env)
	prices, _, _ := s.table(ctx)
	c := *d
	s.store.View(func(snap *source.Snapshot) {
		c.Budgets = evalBudgets(cfg, path, snap.Calls, prices, loc, s.now())
	})
	var b strings.Builder
	b.WriteString(res.Markdown)
	fmt.Fprintf(&b, "\n\n**Budgets: %s**", c.Budgets.State)
	for _, r := range budget.Breached(c.Budgets.Budgets) {
		fmt.Fprintf(&b, " · %s %s: %s", mdEscape(r.Name), r.State, mdEscape(r.Why))
	}
	b.WriteString(" (the budget action has the table)\n")
	return &sdk.Result{Data: &c, Markdown: b.String()}
}

// savingsArgs are get-savings' args.
type savingsArgs struct {
	periodArgs
	IncludeNames bool `json:"include-project-names"`
}

// getSavings is the get-savings action.
func (s *service) getSavings(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
	var a savingsArgs
	w, key, err := s.bindPeriod(req, &a)
	if err != nil {
		return nil, err
	}
	return s.report(ctx, key, req, func(snap *source.Snapshot, prices *pricing.Table, degraded []source.Degraded) *sdk.Result {
		q := &report.Query{From: w.from, To: w.to, Loc: w.loc, Mode: pricing.Mode(a.Pricing),
			IncludeNames: a.IncludeNames, Prices: prices}
		sv := report.BuildSavings(snap.Calls, q)
		return renderSavings(w, sv, degraded, snap.SkippedLines)
	})
}

// status is the status action.
func (s *service) status(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
	prices, _, warn := s.table(ctx)
	s.store.Refresh(ctx, func(done, total int) { req.Progress(float64(done), float64(total), "parsing session logs") })
	var data statusData
	s.store.View(func(snap *source.Snapshot) {
		agents := source.LookForAgents(s.env)
		data = statusData{Providers: snap.Providers, Agents: agents,
			Degraded:     append(append(append([]source.Degraded{}, warn...), snap.Degraded...), source.UnreadAgents(agents)...),
			SkippedLines: snap.SkippedLines, Cache: snap.Stats,
			Prices: pricesInfo{AsOf: prices.AsOf, Sources: prices.Sources}}
	})
	if data.Degraded == nil {
		data.Degraded = []source.Degraded{}
	}
	return &sdk.Result{Data: data, Markdown: renderStatus(&data)}, nil
}

type pricesInfo struct {
	AsOf    string   `json:"as_of"`
	Sources []string `json:"sources"`
}

type statusData struct {
	Providers []source.ProviderStatus `json:"providers"`
	// Agents are every agent ccusage reads: where each was looked for,
	// whether its logs are here, and whether this plugin reads them.
	Agents       []source.AgentStatus `json:"agents"`
	Degraded     []source.Degraded    `json:"degraded"`
	SkippedLines int64                `json:"skipped_lines"`
	Cache        source.Stats         `json:"cache"`
	Prices       pricesInfo           `json:"prices"`
}

// blocksArgs are blocks' args.
type blocksArgs struct {
	periodArgs
	Provider string `json:"provider"`
	Active   bool   `json:"active"`
	Limit    int    `json:"limit"`
}

// blocks is the blocks action: the rolling five-hour usage windows.
func (s *service) blocks(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
	var a blocksArgs
	w, key, err := s.bindPeriod(req, &a)
	if err != nil {
		return nil, err
	}
	now := s.now()
	// The active window depends on the clock: the key holds the minute.
	key += " " + strconv.FormatInt(now.Unix()/60, 10)
	return s.report(ctx, key, req, func(snap *source.Snapshot, prices *pricing.Table, degraded []source.Degraded) *sdk.Result {
		q := &report.Query{From: w.from, To: w.to, Loc: w.loc, Limit: a.Limit, Mode: pricing.Mode(a.Pricing),
			Provider: a.Provider, Prices: prices}
		bl := report.BuildBlocks(snap.Calls, q, now)
		if a.Active {
			kept := []report.Block{}
			for _, b := range bl.Blocks {
				if b.Active {
					kept = append(kept, b)
				}
			}
			bl.Blocks = kept
		}
		return renderBlocks(w, &a, bl, degraded, snap.SkippedLines)
	})
}
