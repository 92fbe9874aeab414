// Package budget reads spending limits from a small YAML file and says,
// for each limit, what was spent in its period so far, where the period
// ends at the pace so far, and whether that is ok, a warning or over.
package budget

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/toolhost/toolhost/plugins/usage/internal/source"
)

// The states of a budget, from best to worst.
const (
	StateOK   = "ok"
	StateWarn = "warn"
	StateOver = "over"
)

// DefaultWarnAt is the share of a limit spent at which a budget warns.
const DefaultWarnAt = 0.8

// forecastFrom is the share of a period that must have passed before the
// forecast alone can make a budget warn: a burst in a period's first hours
// says little about its end.
const forecastFrom = 0.25

// Config is the budgets file.
type Config struct {
	// WarnAt is the share of a limit at which budgets warn (default 0.8).
	WarnAt float64 `yaml:"warn_at"`
	// WeekStarts is the first day of a week budget's week (default monday).
	WeekStarts string `yaml:"week_starts"`
	// Groups name sets of projects counted as one (a project is its
	// folder's name or its full path).
	Groups map[string][]string `yaml:"groups"`
	// Budgets are the limits.
	Budgets []Limit `yaml:"budgets"`

	weekStart time.Weekday
}

// Limit is one budget: a ceiling on the spend of a period, overall or for
// one provider or project (or group).
type Limit struct {
	Name     string  `yaml:"name"`
	Period   string  `yaml:"period"`
	LimitUSD float64 `yaml:"limit_usd"`
	Provider string  `yaml:"provider"`
	Project  string  `yaml:"project"`
	WarnAt   float64 `yaml:"warn_at"`
}

// Path is the budgets file: USAGE_BUDGETS_FILE, else
// $XDG_CONFIG_HOME/toolhost/usage-budgets.yaml, else under ~/.config.
func Path(env source.Env) string {
	if p := env("USAGE_BUDGETS_FILE"); p != "" {
		return p
	}
	base := env("XDG_CONFIG_HOME")
	if base == "" {
		if env.Home() == "" {
			return ""
		}
		base = filepath.Join(env.Home(), ".config")
	}
	return filepath.Join(base, "toolhost", "usage-budgets.yaml")
}

// ErrNoFile: there is no budgets file (no budgets set; not an error to a
// report that only shows budgets when there are some).
var ErrNoFile = errors.New("no budgets file")

var weekdays = map[string]time.Weekday{"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday,
	"wednesday": time.Wednesday, "thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday}

// Load reads and checks the budgets file at path. A missing file is
// ErrNoFile; a malformed one an error naming the file, the entry and the
// fix.
func Load(path string) (*Config, error) {
	if path == "" {
		return nil, ErrNoFile
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoFile
	}
	if err != nil {
		return nil, fmt.Errorf("read budgets file: %w", err)
	}
	return Parse(filepath.Base(path), b)
}

// Parse checks a budgets document; name is the file's name for errors.
func Parse(name string, b []byte) (*Config, error) {
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("budgets file %s: %w (see the usage README, Budgets, for the format)", name, err)
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("budgets file %s: "+format, append([]any{name}, a...)...)
	}
	if c.WarnAt == 0 {
		c.WarnAt = DefaultWarnAt
	}
	if c.WarnAt <= 0 || c.WarnAt > 1 {
		return nil, bad("warn_at %v must be a share of the limit, above 0 and at most 1 (0.8 warns at 80%%)", c.WarnAt)
	}
	c.weekStart = time.Monday
	if c.WeekStarts != "" {
		d, ok := weekdays[strings.ToLower(c.WeekStarts)]
		if !ok {
			return nil, bad("week_starts %q is not a day of the week (monday, sunday, …)", c.WeekStarts)
		}
		c.weekStart = d
	}
	for g, members := range c.Groups {
		if len(members) == 0 {
			return nil, bad("group %q lists no projects; list the projects' folder names or paths", g)
		}
	}
	for i := range c.Budgets {
		l := &c.Budgets[i]
		where := fmt.Sprintf("budget %d", i+1)
		if l.Name != "" {
			where += fmt.Sprintf(" (%s)", l.Name)
		}
		switch l.Period {
		case "day", "week", "month":
		case "":
			return nil, bad("%s has no period; set period: day, week or month", where)
		default:
			return nil, bad("%s: period %q is not day, week or month", where, l.Period)
		}
		if !(l.LimitUSD > 0) || math.IsInf(l.LimitUSD, 0) {
			return nil, bad("%s: limit_usd must be a positive amount in US dollars (limit_usd: 20)", where)
		}
		if l.WarnAt == 0 {
			l.WarnAt = c.WarnAt
		}
		if l.WarnAt <= 0 || l.WarnAt > 1 {
			return nil, bad("%s: warn_at %v must be above 0 and at most 1", where, l.WarnAt)
		}
		if l.Provider != "" && l.Project != "" {
			return nil, bad("%s sets both provider and project; one budget limits one of them (write two budgets)", where)
		}
		if l.Name == "" {
			l.Name = l.Period
			switch {
			case l.Provider != "":
				l.Name += " " + l.Provider
			case l.Project != "":
				l.Name += " " + l.Project
			}
		}
	}
	return &c, nil
}

// Result is one budget's standing.
type Result struct {
	Name     string `json:"name"`
	Period   string `json:"period"`
	Provider string `json:"provider,omitempty"`
	Project  string `json:"project,omitempty"`
	// Start and End bound the period (RFC 3339 in the zone).
	Start string `json:"period_start"`
	End   string `json:"period_end"`
	// ElapsedPct is how much of the period has passed.
	ElapsedPct float64 `json:"elapsed_pct"`
	LimitUSD   float64 `json:"limit_usd"`
	SpentUSD   float64 `json:"spent_usd"`
	// ForecastUSD is the spend at the period's end at the pace so far:
	// spent / elapsed time × the period's length.
	ForecastUSD float64 `json:"forecast_usd"`
	SpentPct    float64 `json:"spent_pct"`
	State       string  `json:"state"`
	// Why says what set the state.
	Why string `json:"why"`
	// UnpricedCalls counts calls with no price: their cost is unknown and
	// not in SpentUSD.
	UnpricedCalls int `json:"unpriced_calls,omitempty"`
}

// Coster prices one call; ok is false when its model has no price.
type Coster func(c *source.Call) (usd float64, ok bool)

// bounds is the period holding now, in loc.
func (c *Config) bounds(period string, now time.Time, loc *time.Location) (time.Time, time.Time) {
	n := now.In(loc)
	y, m, d := n.Date()
	day := time.Date(y, m, d, 0, 0, 0, 0, loc)
	switch period {
	case "week":
		back := (int(n.Weekday()) - int(c.weekStart) + 7) % 7
		start := day.AddDate(0, 0, -back)
		return start, start.AddDate(0, 0, 7)
	case "month":
		start := time.Date(y, m, 1, 0, 0, 0, 0, loc)
		return start, start.AddDate(0, 1, 0)
	}
	return day, day.AddDate(0, 0, 1)
}

// GroupOf is the project group holding o's project (by its folder name or
// full path), "" when none does; of several, the first by name.
func (c *Config) GroupOf(o *source.Origin) string {
	if c == nil || len(c.Groups) == 0 {
		return ""
	}
	names := make([]string, 0, len(c.Groups))
	for g := range c.Groups {
		names = append(names, g)
	}
	sort.Strings(names)
	for _, g := range names {
		for _, p := range c.Groups[g] {
			if p == o.Name || p == o.Project {
				return g
			}
		}
	}
	return ""
}

// matches reports whether the call counts towards l.
func (c *Config) matches(l *Limit, call *source.Call) bool {
	o := call.Origin
	switch {
	case l.Provider != "":
		return o.Provider == l.Provider
	case l.Project != "":
		if members, ok := c.Groups[l.Project]; ok {
			for _, p := range members {
				if p == o.Name || p == o.Project {
					return true
				}
			}
			return false
		}
		return l.Project == o.Name || l.Project == o.Project
	}
	return true
}

// Evaluate gives each budget's standing at now: the spend of its period's
// calls up to now, the linear forecast to the period's end, and the state —
// over when the spend exceeds the limit in whole cents (a limit set to the
// spend as shown is reached, not exceeded); warn when it reaches warn_at of
// it, or when the forecast exceeds the limit once a quarter of the period
// has passed; else ok.
func (c *Config) Evaluate(calls []*source.Call, cost Coster, loc *time.Location, now time.Time) []Result {
	out := make([]Result, 0, len(c.Budgets))
	nowMs := now.UnixMilli()
	for i := range c.Budgets {
		l := &c.Budgets[i]
		start, end := c.bounds(l.Period, now, loc)
		r := Result{Name: l.Name, Period: l.Period, Provider: l.Provider, Project: l.Project,
			Start: start.Format(time.RFC3339), End: end.Format(time.RFC3339), LimitUSD: l.LimitUSD}
		from := start.UnixMilli()
		for _, call := range calls {
			if call.Time < from || call.Time > nowMs || !c.matches(l, call) {
				continue
			}
			usd, ok := cost(call)
			if !ok {
				r.UnpricedCalls++
			}
			r.SpentUSD += usd
		}
		elapsed := now.Sub(start)
		share := float64(elapsed) / float64(end.Sub(start))
		r.ElapsedPct = round(100 * share)
		r.ForecastUSD = r.SpentUSD
		if share > 0 {
			r.ForecastUSD = r.SpentUSD / share
		}
		r.SpentPct = round(100 * r.SpentUSD / l.LimitUSD)
		switch {
		case cents(r.SpentUSD) > cents(l.LimitUSD):
			r.State, r.Why = StateOver, fmt.Sprintf("spent $%.2f of $%.2f", r.SpentUSD, l.LimitUSD)
		case r.SpentUSD >= l.WarnAt*l.LimitUSD:
			r.State, r.Why = StateWarn, fmt.Sprintf("spent %.0f%% of $%.2f (warns at %.0f%%)", r.SpentPct, l.LimitUSD, 100*l.WarnAt)
		case share >= forecastFrom && r.ForecastUSD > l.LimitUSD:
			r.State, r.Why = StateWarn, fmt.Sprintf("on pace for $%.2f by the %s's end, over $%.2f", r.ForecastUSD, l.Period, l.LimitUSD)
		default:
			r.State, r.Why = StateOK, fmt.Sprintf("spent %.0f%% of $%.2f", r.SpentPct, l.LimitUSD)
		}
		r.SpentUSD, r.ForecastUSD = round6(r.SpentUSD), round6(r.ForecastUSD)
		out = append(out, r)
	}
	return out
}

// Worst is the worst state of rs (ok when there are none).
func Worst(rs []Result) string {
	rank := map[string]int{StateOK: 0, StateWarn: 1, StateOver: 2}
	w := StateOK
	for _, r := range rs {
		if rank[r.State] > rank[w] {
			w = r.State
		}
	}
	return w
}

// Breached are the budgets not ok, worst first.
func Breached(rs []Result) []Result {
	var out []Result
	for _, r := range rs {
		if r.State != StateOK {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].State == StateOver && out[j].State != StateOver })
	return out
}

func cents(f float64) int64    { return int64(math.Round(f * 100)) }
func round(f float64) float64  { return math.Round(f*100) / 100 }
func round6(f float64) float64 { return math.Round(f*1e6) / 1e6 }
