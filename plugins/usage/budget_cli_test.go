package main

import (
	"encoding/json"
	"fmt"
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

// TestProjectGroups: the budgets file's groups count several repositories
// as one project in get-usage too (pseudonymised unless names are asked
// for); a malformed budgets file is named in degraded and the usage is
// still answered.
func TestProjectGroups(t *testing.T) {
	dir := t.TempDir()
	for i, cwd := range []string{"/home/dev/api", "/home/dev/worker", "/home/dev/docs"} {
		sess := fmt.Sprintf("5f0c2f9e-7777-4a4a-9b9b-00000000000%d", i)
		id := fmt.Sprintf("msg_g%d", i)
		testplugin.WriteFile(t, filepath.Join(dir, "projects", "-home-dev-"+filepath.Base(cwd), sess+".jsonl"),
			claudeLine(false, cwd, sess, id, "req_"+id, "claude-sonnet-4-5", "2026-06-20T10:00:00.000Z", claudeUsage(1000*(i+1), 0, 0, 100, "")))
	}
	budgets := filepath.Join(t.TempDir(), "usage-budgets.yaml")
	testplugin.WriteFile(t, budgets, "groups:\n  billing: [api, /home/dev/worker]\n")
	s := newTestService(t, map[string]string{"CLAUDE_CONFIG_DIR": dir, "USAGE_BUDGETS_FILE": budgets})
	args := map[string]any{"period": "today", "by": "project", "timezone": "UTC", "include-project-names": true}
	_, u := usageOf(t, s, args)
	got := map[string]int64{}
	for _, r := range u.Rows {
		got[r.Key] = r.InputTokens
	}
	if len(got) != 2 || got["billing"] != 3000 || got["docs"] != 3000 {
		t.Errorf("by project with a group: %v, want billing 3000 (api + worker), docs 3000", got)
	}
	args["include-project-names"] = false
	res, u := usageOf(t, s, args)
	if len(u.Rows) != 2 || strings.Contains(res.Markdown, "billing") {
		t.Errorf("pseudonymised: %+v\n%s", u.Rows, res.Markdown)
	}
	testplugin.WriteFile(t, budgets, "groups: [billing]\n")
	res, u = usageOf(t, s, map[string]any{"period": "today", "timezone": "UTC"})
	if u.Totals.InputTokens != 6000 || len(u.Degraded) != 1 || u.Degraded[0].Provider != "budgets" || !strings.Contains(res.Markdown, "usage-budgets.yaml") {
		t.Errorf("malformed budgets file: totals %+v degraded %+v", u.Totals, u.Degraded)
	}
}
