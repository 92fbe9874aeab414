// Command compare checks the usage plugin's daily totals against ccusage's
// on the same logs: tokens equal per day, cost within a tolerance.
//
//	compare -ccusage cc.json -usage ours.json [-tolerance 0.01]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"sort"

	"github.com/toolhost/toolhost/tests/usagegen"
)

type ccDay struct {
	// Date is "date" in `ccusage claude daily`, "period" in the unified
	// `ccusage daily` of ccusage 20.
	Date        string  `json:"date"`
	Period      string  `json:"period"`
	Input       int64   `json:"inputTokens"`
	Output      int64   `json:"outputTokens"`
	CacheCreate int64   `json:"cacheCreationTokens"`
	CacheRead   int64   `json:"cacheReadTokens"`
	Cost        float64 `json:"totalCost"`
}

func main() {
	ccPath := flag.String("ccusage", "", "ccusage daily --json output")
	ourPath := flag.String("usage", "", "usage get-usage --by day output")
	tol := flag.Float64("tolerance", 0.01, "largest daily cost difference, USD")
	flag.Parse()
	var cc struct{ Daily []ccDay }
	var ours struct{ Rows []usagegen.Row }
	if err := load(*ccPath, &cc); err != nil {
		fail(err)
	}
	if err := load(*ourPath, &ours); err != nil {
		fail(err)
	}
	for i := range cc.Daily {
		if cc.Daily[i].Date == "" {
			cc.Daily[i].Date = cc.Daily[i].Period
		}
	}
	got := map[string]usagegen.Row{}
	for _, r := range ours.Rows {
		got[r.Key] = r
	}
	bad, maxDiff := 0, 0.0
	var ccTotal, ourTotal float64
	sort.Slice(cc.Daily, func(i, j int) bool { return cc.Daily[i].Date < cc.Daily[j].Date })
	for _, d := range cc.Daily {
		r, ok := got[d.Date]
		delete(got, d.Date)
		diff := math.Abs(r.Cost - d.Cost)
		maxDiff = math.Max(maxDiff, diff)
		ccTotal += d.Cost
		ourTotal += r.Cost
		if !ok || r.Input != d.Input || r.Output != d.Output || r.CacheWrite != d.CacheCreate || r.CacheRead != d.CacheRead || diff > *tol {
			bad++
			fmt.Printf("MISMATCH %s: ccusage in %d out %d cw %d cr %d $%.6f; usage in %d out %d cw %d cr %d $%.6f\n",
				d.Date, d.Input, d.Output, d.CacheCreate, d.CacheRead, d.Cost, r.Input, r.Output, r.CacheWrite, r.CacheRead, r.Cost)
		}
	}
	for k := range got {
		bad++
		fmt.Printf("MISMATCH %s: only in usage\n", k)
	}
	fmt.Printf("compare: %d days, %d mismatched; tokens equal per day: %v; max daily cost difference $%.6f (tolerance $%.2f); totals ccusage $%.4f usage $%.4f\n",
		len(cc.Daily), bad, bad == 0, maxDiff, *tol, ccTotal, ourTotal)
	if bad > 0 || len(cc.Daily) == 0 {
		os.Exit(1)
	}
}

func load(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("compare: %s: %w", path, err)
	}
	return nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(2)
}
