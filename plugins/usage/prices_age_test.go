package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestPricesSayWhenTheyAreOld: the answer names the price table's date; a
// model first seen in the logs after that date flags the table (unpriced:
// n/a, with the fix), and one seen before it does not.
func TestPricesSayWhenTheyAreOld(t *testing.T) {
	tests := []struct {
		name      string
		calls     [][2]string
		wantStale string // the newest model flagged, "" for none
		priced    bool
	}{
		{"models older than the table", [][2]string{{"2026-11-20T10:00:00.000Z", "claude-sonnet-4-5"}}, "", false},
		{"a new unpriced model", [][2]string{{"2026-11-20T10:00:00.000Z", "claude-sonnet-4-5"},
			{"2026-12-05T10:00:00.000Z", "claude-opus-5-20261204"}}, "claude-opus-5-20261204", false},
		{"a priced model first seen after the table", [][2]string{{"2026-12-03T10:00:00.000Z", "claude-sonnet-4-5"}}, "claude-sonnet-4-5", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestService(t, claudeHome(t, tt.calls))
			s.now = func() time.Time { return time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC) }
			res, b := call(t, s, "get-usage", map[string]any{"period": "last_30_days", "timezone": "UTC"})
			var got struct {
				AsOf  string `json:"prices_as_of"`
				Stale *struct {
					AsOf      string `json:"as_of"`
					Model     string `json:"newest_model"`
					FirstSeen string `json:"first_seen"`
					Priced    bool   `json:"priced"`
				} `json:"prices_stale"`
				Unpriced []string `json:"unpriced_models"`
			}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if got.AsOf == "" || !strings.Contains(res.Markdown, "prices as of "+got.AsOf) {
				t.Errorf("the answer does not name the table's date %q:\n%s", got.AsOf, res.Markdown)
			}
			if tt.wantStale == "" {
				if got.Stale != nil || strings.Contains(res.Markdown, "older than") {
					t.Errorf("flagged: %+v\n%s", got.Stale, res.Markdown)
				}
				return
			}
			if got.Stale == nil || got.Stale.Model != tt.wantStale || got.Stale.Priced != tt.priced || got.Stale.AsOf != got.AsOf {
				t.Fatalf("stale: %+v, want %s priced %v", got.Stale, tt.wantStale, tt.priced)
			}
			if !strings.Contains(res.Markdown, "older than "+tt.wantStale+" (first seen "+got.Stale.FirstSeen+")") {
				t.Errorf("no flag in the Markdown:\n%s", res.Markdown)
			}
			if !tt.priced && (len(got.Unpriced) != 1 || !strings.Contains(res.Markdown, "n/a") || !strings.Contains(res.Markdown, "USAGE_PRICES_FILE")) {
				t.Errorf("unpriced %v:\n%s", got.Unpriced, res.Markdown)
			}
		})
	}
}
