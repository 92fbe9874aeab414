package pricing

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCost(t *testing.T) {
	tab, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	sonnet, ok := tab.Lookup("claude-sonnet-4-5-20250929")
	if !ok {
		t.Fatal("sonnet 4.5 not priced")
	}
	tests := []struct {
		name string
		tk   Tokens
		mode Mode
		want float64
	}{
		{"short", Tokens{Input: 1000, Output: 2000}, ModeProvider, 0.033},
		{"long prompt, provider: all at long-context rates", Tokens{Input: 150000, Output: 1000, CacheRead: 100000}, ModeProvider, 0.9 + 0.0225 + 0.06},
		{"long prompt, ccusage: no bucket over 200k", Tokens{Input: 150000, Output: 1000, CacheRead: 100000}, ModeCCUsage, 0.495},
		{"one bucket over 200k, ccusage splits it", Tokens{Input: 300000}, ModeCCUsage, 1.2},
		{"one bucket over 200k, provider", Tokens{Input: 300000}, ModeProvider, 1.8},
		{"1h cache writes", Tokens{CacheWrite1h: 100000}, ModeProvider, 0.6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sonnet.Cost(tt.tk, tt.mode); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("got %.9f, want %.9f", got, tt.want)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	tab, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"claude-opus-4-5-20251101", "anthropic/claude-opus-4-5", "claude-opus-4-5@20251101", "GPT-5-codex", "claude-sonnet-4.5", "grok-4.5-build", "xai/grok-code-fast-1", "gemini-3.1-pro", "gemini-3.5-flash-high"} {
		if _, ok := tab.Lookup(name); !ok {
			t.Errorf("%s not found", name)
		}
	}
	for _, name := range []string{"claude-unknown-1", "gemini-3.6-flash-high"} {
		if _, ok := tab.Lookup(name); ok {
			t.Errorf("unknown model %s priced", name)
		}
	}
}

func TestParseLiteLLM(t *testing.T) {
	m, err := ParseLiteLLM([]byte(`{"sample_spec":{"max_tokens":1},"m":{"input_cost_per_token":3e-06,"output_cost_per_token":1.5e-05,
	"cache_creation_input_token_cost":3.75e-06,"cache_read_input_token_cost":3e-07,"input_cost_per_token_above_200k_tokens":6e-06}}`))
	if err != nil {
		t.Fatal(err)
	}
	p, ok := m["m"]
	if !ok || p.Input != 3 || p.Output != 15 || p.CacheWrite5m != 3.75 || p.CacheRead != 0.3 || p.LongContext == nil || p.LongContext.Input != 6 {
		t.Errorf("got %+v", p)
	}
	if _, ok := m["sample_spec"]; ok {
		t.Error("sample_spec kept")
	}
}

// TestAgentModelsPriced: every model id the agents themselves list
// (testdata/agent-models.tsv, each with where it is listed) has a price in
// the embedded table, and the table is dated.
func TestAgentModelsPriced(t *testing.T) {
	tab, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := time.Parse("2006-01-02", tab.AsOf); err != nil {
		t.Errorf("as_of %q is not a date: %v", tab.AsOf, err)
	}
	b, err := os.ReadFile(filepath.Join("testdata", "agent-models.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 || f[2] == "" {
			t.Fatalf("agent-models.tsv:%d: want model, agent and source separated by tabs, got %q", i+1, line)
		}
		n++
		p, ok := tab.Lookup(f[0])
		if !ok {
			t.Errorf("%s (listed by %s in %s) has no price: add it to prices.json", f[0], f[1], f[2])
			continue
		}
		if p.Input <= 0 || p.Output <= 0 {
			t.Errorf("%s: input or output price is zero: %+v", f[0], p)
		}
	}
	if n < 20 {
		t.Errorf("only %d model ids read", n)
	}
}

// TestFastAndProviderRules: a "-fast" model is the base price times the
// table's multiplier; ccusage's per-bucket long-context rule applies to
// Anthropic models only.
func TestFastAndProviderRules(t *testing.T) {
	tab, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	base, _ := tab.Lookup("claude-opus-4-6")
	fast, ok := tab.Lookup("claude-opus-4-6-fast")
	if !ok || fast.Input != 6*base.Input || fast.Output != 6*base.Output || fast.CacheRead != 6*base.CacheRead {
		t.Errorf("opus 4.6 fast: got %+v, want 6x %+v", fast, base)
	}
	if p, ok := tab.Lookup("claude-sonnet-4-5-fast"); !ok || p.Input != 3 {
		t.Errorf("a model without a fast multiplier: got %+v %v, want its base price", p, ok)
	}
	gem, _ := tab.Lookup("gemini-2.5-pro")
	tk := Tokens{Input: 250000, Output: 1000}
	whole := (250000*2.5 + 1000*15) / 1e6
	if got := gem.Cost(tk, ModeCCUsage); math.Abs(got-whole) > 1e-9 {
		t.Errorf("gemini in ccusage mode: got %.6f, want the whole request at the higher tier %.6f", got, whole)
	}
}
