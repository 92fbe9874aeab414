package pricing

import (
	"math"
	"testing"
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
	for _, name := range []string{"claude-opus-4-5-20251101", "anthropic/claude-opus-4-5", "claude-opus-4-5@20251101", "GPT-5-codex"} {
		if _, ok := tab.Lookup(name); !ok {
			t.Errorf("%s not found", name)
		}
	}
	if _, ok := tab.Lookup("claude-unknown-1"); ok {
		t.Error("unknown model priced")
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
