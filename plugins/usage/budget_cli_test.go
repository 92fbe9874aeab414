package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/tests/usagegen"
)

// TestBudgetCheckExitCodes runs the real binary on logs generated up to
// now, with week budgets set around the spend so far: below the limit
// exits 0, at the limit warns and over it fails, both exit 1 with --check
// (and 0 without); get-usage carries the state.
func TestBudgetCheckExitCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := testplugin.Plugin(t, "usage")
	now := time.Now().UTC()
	start := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, -2)
	_, env := generated(t, usagegen.Config{Seed: 4, Start: start, Days: 3, ContentBytes: 100})
	file := filepath.Join(t.TempDir(), "usage-budgets.yaml")
	setLimit := func(limit float64) {
		doc := "week_starts: " + strings.ToLower(start.Weekday().String()) + "\nbudgets:\n  - {name: team week, period: week, limit_usd: " +
			strconv.FormatFloat(limit, 'f', -1, 64) + "}\n"
		if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) (string, int) {
		cmd := exec.Command(bin, args...)
		cmd.Env = []string{"HOME=" + env["HOME"], "CLAUDE_CONFIG_DIR=" + env["CLAUDE_CONFIG_DIR"], "CODEX_HOME=" + env["CODEX_HOME"],
			"TZ=UTC", "USAGE_BUDGETS_FILE=" + file}
		out, _, code := testplugin.Run(t, cmd)
		return string(out), code
	}
	var report struct {
		State   string `json:"state"`
		Budgets []struct {
			Spent    float64 `json:"spent_usd"`
			Forecast float64 `json:"forecast_usd"`
			State    string  `json:"state"`
		} `json:"budgets"`
	}
	setLimit(1e9)
	out, code := run("budget")
	if err := json.Unmarshal([]byte(out), &report); err != nil || code != 0 || len(report.Budgets) != 1 {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	spent := report.Budgets[0].Spent
	if spent <= 0 || report.State != "ok" {
		t.Fatalf("no spend this week in the generated logs, or not ok: %s", out)
	}
	tests := []struct {
		name      string
		limit     float64
		args      []string
		wantCode  int
		wantInOut string
	}{
		{"far below", spent * 100, []string{"budget", "--check"}, 0, `"state": "ok"`},
		{"at the limit warns", spent, []string{"budget", "--check"}, 1, `"budget_warn"`},
		{"over", spent * 0.9, []string{"budget", "--check"}, 1, `"budget_over"`},
		{"over without check", spent * 0.9, []string{"budget"}, 0, `"state": "over"`},
		{"get-usage says so", spent * 0.9, []string{"get-usage", "--period", "last_7_days"}, 0, `"state": "over"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setLimit(tt.limit)
			out, code := run(tt.args...)
			if code != tt.wantCode || !strings.Contains(out, tt.wantInOut) {
				t.Errorf("exit %d, want %d with %s: %s", code, tt.wantCode, tt.wantInOut, out)
			}
		})
	}
	if err := os.WriteFile(file, []byte("budgets:\n  - {period: fortnight, limit_usd: 5}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, code := run("budget", "--check"); code != 1 || !strings.Contains(out, `period \"fortnight\" is not day, week or month`) {
		t.Errorf("bad file: exit %d: %s", code, out)
	}
}
