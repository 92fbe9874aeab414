package pricing

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/toolhost/toolhost/plugins/usage/internal/regular"
)

// LiteLLMURL is LiteLLM's public price file.
const LiteLLMURL = "https://raw.githubusercontent.com/BerriAI/litellm/main/model_prices_and_context_window.json"

// CacheTTL is how long a fetched LiteLLM file is used before it is fetched
// again.
const CacheTTL = 24 * time.Hour

// litellmEntry is the part of one LiteLLM entry this package reads (USD per
// token).
type litellmEntry struct {
	Input          *float64 `json:"input_cost_per_token"`
	Output         *float64 `json:"output_cost_per_token"`
	CacheWrite     *float64 `json:"cache_creation_input_token_cost"`
	CacheWrite1h   *float64 `json:"cache_creation_input_token_cost_above_1hr"`
	CacheRead      *float64 `json:"cache_read_input_token_cost"`
	InputHigh      *float64 `json:"input_cost_per_token_above_200k_tokens"`
	OutputHigh     *float64 `json:"output_cost_per_token_above_200k_tokens"`
	CacheWriteHigh *float64 `json:"cache_creation_input_token_cost_above_200k_tokens"`
	CacheReadHigh  *float64 `json:"cache_read_input_token_cost_above_200k_tokens"`
}

// Refresh returns LiteLLM's prices, from cacheFile when it is younger than
// CacheTTL, else fetched from url (and written to cacheFile). fetched says
// whether the network was used.
func Refresh(ctx context.Context, client *http.Client, url, cacheFile string, now time.Time) (models map[string]Price, fetched bool, err error) {
	if st, err := regular.Stat(cacheFile); err == nil && now.Sub(st.ModTime()) < CacheTTL {
		b, err := regular.ReadFile(cacheFile, maxPriceFile)
		if err == nil {
			if m, err := ParseLiteLLM(b); err == nil {
				return m, false, nil
			}
		}
	}
	if client == nil {
		client = &http.Client{Timeout: 20 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, false, fmt.Errorf("pricing: refresh: %w", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, false, fmt.Errorf("pricing: refresh: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, false, fmt.Errorf("pricing: refresh: HTTP %d", resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxPriceFile))
	if err != nil {
		return nil, false, fmt.Errorf("pricing: refresh: %w", err)
	}
	m, err := ParseLiteLLM(b)
	if err != nil {
		return nil, false, err
	}
	writeCache(cacheFile, b)
	return m, true, nil
}

// writeCache replaces the cache file by renaming a new file made beside it
// with a fresh name (created exclusively, so a symlink planted at a fixed
// temporary name is never followed); a failure leaves the old cache.
func writeCache(cacheFile string, b []byte) {
	if err := os.MkdirAll(filepath.Dir(cacheFile), 0o700); err != nil {
		return
	}
	f, err := os.CreateTemp(filepath.Dir(cacheFile), filepath.Base(cacheFile)+".*.tmp")
	if err != nil {
		return
	}
	_, werr := f.Write(b)
	if cerr := f.Close(); werr != nil || cerr != nil || os.Rename(f.Name(), cacheFile) != nil {
		os.Remove(f.Name())
	}
}

// ParseLiteLLM converts LiteLLM's price file (USD per token) to prices (USD
// per million tokens). Entries without input and output prices are left out.
func ParseLiteLLM(b []byte) (map[string]Price, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("pricing: litellm file: %w", err)
	}
	out := make(map[string]Price, len(raw))
	for name, v := range raw {
		var e litellmEntry
		if json.Unmarshal(v, &e) != nil || e.Input == nil || e.Output == nil {
			continue
		}
		p := Price{Rates: Rates{Input: mt(e.Input), Output: mt(e.Output), CacheWrite5m: mt(e.CacheWrite),
			CacheWrite1h: mt(e.CacheWrite1h), CacheRead: mt(e.CacheRead)}}
		if p.CacheWrite1h == 0 {
			p.CacheWrite1h = p.CacheWrite5m
		}
		if e.InputHigh != nil {
			lc := &LongContext{Threshold: 200000, Rates: Rates{Input: mt(e.InputHigh), Output: mt(e.OutputHigh),
				CacheWrite5m: mt(e.CacheWriteHigh), CacheRead: mt(e.CacheReadHigh)}}
			if lc.Output == 0 {
				lc.Output = p.Output
			}
			if lc.CacheWrite5m == 0 {
				lc.CacheWrite5m = p.CacheWrite5m
			}
			if lc.CacheRead == 0 {
				lc.CacheRead = p.CacheRead
			}
			lc.CacheWrite1h = p.CacheWrite1h * 2
			p.LongContext = lc
		}
		out[name] = p
	}
	return out, nil
}

// mt converts USD per token to USD per million tokens, rounded to 1e-9 so
// 3e-06 gives 3, not 3.0000000000000004.
func mt(v *float64) float64 {
	if v == nil {
		return 0
	}
	x := *v * 1e6
	return float64(int64(x*1e9+0.5)) / 1e9
}
