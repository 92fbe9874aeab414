package usagegen

// rate is USD per million tokens. This table is the generator's own copy of
// the providers' published prices: it must not share code with the plugin,
// or the expected totals would be computed by the code under test.
type rate struct {
	in, out, cw5m, cw1h, cr float64
	// long-context rates, applied above 200k prompt tokens (0 = no tier)
	lcIn, lcOut, lcCW5m, lcCW1h, lcCR float64
}

const longContextThreshold = 200000

var claudeModels = []string{
	"claude-sonnet-4-5-20250929",
	"claude-sonnet-4-20250514",
	"claude-opus-4-1-20250805",
	"claude-opus-4-5-20251101",
	"claude-haiku-4-5-20251001",
}

var codexModels = []string{"gpt-5-codex", "gpt-5"}

var rates = map[string]rate{
	"claude-sonnet-4-5-20250929": {in: 3, out: 15, cw5m: 3.75, cw1h: 6, cr: 0.3, lcIn: 6, lcOut: 22.5, lcCW5m: 7.5, lcCW1h: 12, lcCR: 0.6},
	"claude-sonnet-4-20250514":   {in: 3, out: 15, cw5m: 3.75, cw1h: 6, cr: 0.3, lcIn: 6, lcOut: 22.5, lcCW5m: 7.5, lcCW1h: 12, lcCR: 0.6},
	"claude-opus-4-1-20250805":   {in: 15, out: 75, cw5m: 18.75, cw1h: 30, cr: 1.5},
	"claude-opus-4-5-20251101":   {in: 5, out: 25, cw5m: 6.25, cw1h: 10, cr: 0.5},
	"claude-haiku-4-5-20251001":  {in: 1, out: 5, cw5m: 1.25, cw1h: 2, cr: 0.1},
	"gpt-5-codex":                {in: 1.25, out: 10, cr: 0.125},
	"gpt-5":                      {in: 1.25, out: 10, cr: 0.125},
}

// usage is one request's true tokens.
type usage struct {
	in, out, cw5m, cw1h, cr int64
}

// costReal is the provider's rule: the whole request at long-context rates
// once its prompt exceeds the threshold.
func costReal(model string, u usage) float64 {
	r := rates[model]
	prompt := u.in + u.cw5m + u.cw1h + u.cr
	if r.lcIn > 0 && prompt > longContextThreshold {
		return (float64(u.in)*r.lcIn + float64(u.out)*r.lcOut + float64(u.cw5m)*r.lcCW5m +
			float64(u.cw1h)*r.lcCW1h + float64(u.cr)*r.lcCR) / 1e6
	}
	return costBase(model, u)
}

// costBase is the request at the base rates, whatever its size.
func costBase(model string, u usage) float64 {
	r := rates[model]
	return (float64(u.in)*r.in + float64(u.out)*r.out + float64(u.cw5m)*r.cw5m +
		float64(u.cw1h)*r.cw1h + float64(u.cr)*r.cr) / 1e6
}

// costPerBucket is ccusage's rule: each bucket split at the threshold.
func costPerBucket(model string, u usage) float64 {
	r := rates[model]
	split := func(n int64, lo, hi float64) float64 {
		if n > longContextThreshold && hi > 0 {
			return float64(longContextThreshold)*lo + float64(n-longContextThreshold)*hi
		}
		return float64(n) * lo
	}
	return (split(u.in, r.in, r.lcIn) + split(u.out, r.out, r.lcOut) + split(u.cw5m, r.cw5m, r.lcCW5m) +
		split(u.cw1h, r.cw1h, r.lcCW1h) + split(u.cr, r.cr, r.lcCR)) / 1e6
}
