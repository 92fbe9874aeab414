// Package pricing holds the model price table (embedded, dated; optionally
// refreshed from LiteLLM's public price file; overridden by a user file) and
// the two cost rules: the provider's real one and ccusage's per-bucket one.
package pricing

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/toolhost/toolhost/plugins/usage/internal/regular"
)

//go:embed prices.json
var embedded []byte

// Rates are USD per million tokens.
type Rates struct {
	Input        float64 `json:"input"`
	Output       float64 `json:"output"`
	CacheWrite5m float64 `json:"cache_write_5m,omitempty"`
	CacheWrite1h float64 `json:"cache_write_1h,omitempty"`
	CacheRead    float64 `json:"cache_read,omitempty"`
}

// LongContext is a model's long-context tier: the rates that apply once a
// request's prompt exceeds Threshold tokens.
type LongContext struct {
	Threshold int64 `json:"threshold"`
	Rates
}

// Price is one model's prices.
type Price struct {
	// Provider is the model's vendor ("anthropic", "openai", "google");
	// empty means taken from the name. It decides ccusage's long-context
	// rule (per token bucket for Anthropic, whole request otherwise).
	Provider string `json:"provider,omitempty"`
	Rates
	LongContext *LongContext `json:"long_context,omitempty"`
	// Fast is the multiplier of the model's fast (priority) mode, applied
	// to a model logged with a "-fast" suffix; 0 means 1.
	Fast float64 `json:"fast,omitempty"`
}

// File is the JSON shape of the embedded table and of a user override file.
type File struct {
	AsOf   string           `json:"as_of,omitempty"`
	Source string           `json:"source,omitempty"`
	Models map[string]Price `json:"models"`
}

// Tokens are one request's token counts by bucket.
type Tokens struct {
	Input        int64
	Output       int64
	CacheWrite5m int64
	CacheWrite1h int64
	CacheRead    int64
}

// Mode is a cost rule.
type Mode string

// The cost rules.
const (
	// ModeProvider is the provider's real rule: once a request's prompt
	// (input + cache writes + cache reads) exceeds the long-context
	// threshold, the whole request is billed at long-context rates.
	ModeProvider Mode = "provider"
	// ModeCCUsage reproduces ccusage: for Claude models each token bucket
	// of a request is split at the threshold, tokens above it at
	// long-context rates; other providers' models as ModeProvider (ccusage
	// bills a Gemini request over 200k wholly at the higher tier).
	ModeCCUsage Mode = "ccusage"
)

// Table is a model price table. The zero value prices nothing.
type Table struct {
	// AsOf dates the embedded prices.
	AsOf string
	// Sources says which layers were applied ("embedded", "litellm",
	// "override").
	Sources []string
	models  map[string]Price
}

// Embedded returns the table compiled into the binary.
func Embedded() (*Table, error) {
	var f File
	if err := json.Unmarshal(embedded, &f); err != nil {
		return nil, fmt.Errorf("pricing: embedded table: %w", err)
	}
	t := &Table{AsOf: f.AsOf, Sources: []string{"embedded"}, models: map[string]Price{}}
	for k, v := range f.Models {
		t.models[strings.ToLower(k)] = v
	}
	return t, nil
}

// Merge lays prices over the table's: a model named in both takes the new
// price. source names the layer in Sources.
func (t *Table) Merge(source string, models map[string]Price) {
	if t.models == nil {
		t.models = map[string]Price{}
	}
	for k, v := range models {
		t.models[strings.ToLower(k)] = v
	}
	t.Sources = append(t.Sources, source)
}

// maxPriceFile bounds a price file read (LiteLLM's is a few megabytes).
const maxPriceFile = 64 << 20

// LoadOverride reads a user price file (the shape of File) and merges it.
func (t *Table) LoadOverride(path string) error {
	b, err := regular.ReadFile(path, maxPriceFile)
	if err != nil {
		return fmt.Errorf("pricing: override file: %w", err)
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("pricing: override file: %w", err)
	}
	t.Merge("override", f.Models)
	return nil
}

var dateSuffix = regexp.MustCompile(`-(\d{8}|\d{4}-\d{2}-\d{2})$`)

// Lookup finds a model's price: the exact name, then without a provider
// prefix ("anthropic/…"), a "@…" or "-latest" tail, or a date suffix, and
// a Claude version written with dots as with dashes. A
// name ending in "-fast" (fast mode, as the usage source names it) is the
// base model's price times its fast multiplier, unless the table names it.
func (t *Table) Lookup(model string) (Price, bool) {
	m := strings.ToLower(strings.TrimSpace(model))
	if base, ok := strings.CutSuffix(m, "-fast"); ok {
		if p, ok := t.lookup(m); ok {
			return p, true
		}
		p, ok := t.lookup(base)
		if !ok {
			return p, false
		}
		return p.fast(), true
	}
	return t.lookup(m)
}

// fast is the price of the model's fast mode.
func (p Price) fast() Price {
	f := p.Fast
	if f <= 0 {
		return p
	}
	p.Rates = p.Rates.times(f)
	if p.LongContext != nil {
		lc := *p.LongContext
		lc.Rates = lc.Rates.times(f)
		p.LongContext = &lc
	}
	p.Fast = 0
	return p
}

func (r Rates) times(f float64) Rates {
	return Rates{Input: r.Input * f, Output: r.Output * f, CacheWrite5m: r.CacheWrite5m * f,
		CacheWrite1h: r.CacheWrite1h * f, CacheRead: r.CacheRead * f}
}

// lookup is Lookup without the fast suffix; m is lower case.
func (t *Table) lookup(m string) (Price, bool) {
	p, ok := t.find(m)
	if ok && p.Provider == "" {
		p.Provider = providerOf(m)
	}
	return p, ok
}

// providerOf guesses a model's vendor from its name.
func providerOf(m string) string {
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	switch {
	case strings.HasPrefix(m, "claude"):
		return "anthropic"
	case strings.HasPrefix(m, "gemini"):
		return "google"
	case strings.HasPrefix(m, "grok"):
		return "xai"
	case strings.HasPrefix(m, "gpt"), strings.HasPrefix(m, "o1"), strings.HasPrefix(m, "o3"), strings.HasPrefix(m, "o4"), strings.HasPrefix(m, "codex"):
		return "openai"
	}
	return ""
}

// find matches a lower-case name.
func (t *Table) find(m string) (Price, bool) {
	if p, ok := t.models[m]; ok {
		return p, true
	}
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
		if p, ok := t.models[m]; ok {
			return p, true
		}
	}
	if i := strings.IndexByte(m, '@'); i >= 0 {
		m = m[:i]
	}
	m = strings.TrimSuffix(m, "-latest")
	if p, ok := t.models[m]; ok {
		return p, true
	}
	// Claude's ids write versions with dashes; Copilot CLI and others write
	// them with dots (claude-sonnet-4.5).
	if strings.HasPrefix(m, "claude") && strings.Contains(m, ".") {
		if p, ok := t.find(strings.ReplaceAll(m, ".", "-")); ok {
			return p, true
		}
	}
	// Grok Build CLI names its models "<model>-build" (grok-4.5-build),
	// billed as the API model.
	if base, ok := strings.CutSuffix(m, "-build"); ok && strings.HasPrefix(m, "grok") {
		if p, ok := t.models[base]; ok {
			return p, true
		}
	}
	// Antigravity names Gemini models without the API's "-preview" and
	// with the thinking level it ran them at (gemini-3.1-pro,
	// gemini-3.5-flash-high), billed as the API model.
	if strings.HasPrefix(m, "gemini") {
		base := m
		for _, level := range []string{"-extra-low", "-low", "-medium", "-high"} {
			if b, ok := strings.CutSuffix(m, level); ok {
				base = b
				break
			}
		}
		for _, n := range []string{base, base + "-preview"} {
			if p, ok := t.models[n]; ok {
				return p, true
			}
		}
	}
	m = dateSuffix.ReplaceAllString(m, "")
	p, ok := t.models[m]
	return p, ok
}

// Cost prices one request under mode.
func (p Price) Cost(tk Tokens, mode Mode) float64 {
	lc := p.LongContext
	if lc == nil || lc.Threshold <= 0 {
		return linear(p.Rates, tk)
	}
	if mode == ModeCCUsage && p.Provider == "anthropic" {
		th := lc.Threshold
		return (tiered(tk.Input, p.Input, lc.Input, th) +
			tiered(tk.Output, p.Output, lc.Output, th) +
			tiered(tk.CacheWrite5m, p.CacheWrite5m, lc.CacheWrite5m, th) +
			tiered(tk.CacheWrite1h, p.CacheWrite1h, lc.CacheWrite1h, th) +
			tiered(tk.CacheRead, p.CacheRead, lc.CacheRead, th)) / 1e6
	}
	if tk.Input+tk.CacheWrite5m+tk.CacheWrite1h+tk.CacheRead > lc.Threshold {
		return linear(lc.Rates, tk)
	}
	return linear(p.Rates, tk)
}

// LongContextPremium is what the request cost above the same tokens at base
// rates (0 when no long-context tier applied).
func (p Price) LongContextPremium(tk Tokens, mode Mode) float64 {
	d := p.Cost(tk, mode) - linear(p.Rates, tk)
	if d < 0 {
		return 0
	}
	return d
}

func linear(r Rates, tk Tokens) float64 {
	return (float64(tk.Input)*r.Input + float64(tk.Output)*r.Output +
		float64(tk.CacheWrite5m)*r.CacheWrite5m + float64(tk.CacheWrite1h)*r.CacheWrite1h +
		float64(tk.CacheRead)*r.CacheRead) / 1e6
}

// tiered is ccusage's per-bucket rule, in rate-per-million units.
func tiered(n int64, base, high float64, th int64) float64 {
	if n <= 0 {
		return 0
	}
	if n > th && high > 0 {
		return float64(th)*base + float64(n-th)*high
	}
	return float64(n) * base
}
