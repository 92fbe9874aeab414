package tests

import (
	"encoding/json"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// TestSpendReviewTakesDaysAndSaysWhenThereAreNoLogs: spend-review, run
// through MCP run_agent, reviews the days from..to it is given (the
// generated logs' days, whose cost the generator knows), and on a machine
// with no AI-coding logs at all says that no logs were found and where the
// usage tool looked, instead of an empty period.
func TestSpendReviewTakesDaysAndSaysWhenThereAreNoLogs(t *testing.T) {
	t.Run("from and to", func(t *testing.T) {
		e, exp, _ := realEnv(t)
		cs := goClient(t, e, "2025-11-25", nil)
		sc, isErr := callTool(t, cs, "run_agent", map[string]any{"agent": "spend-review", "action": "weekly-review",
			"args": map[string]any{"from": exp.From, "to": exp.To, "record": false}})
		if isErr {
			t.Fatalf("weekly-review: %v", sc)
		}
		var got struct {
			Period  string `json:"period"`
			From    string `json:"from"`
			To      string `json:"to"`
			Savings struct {
				CostUSD float64 `json:"cost_usd"`
			} `json:"savings"`
		}
		must(t, json.Unmarshal([]byte(mustString(t, sc)), &got))
		if got.From != exp.From || got.To != exp.To || got.Period != exp.From+".."+exp.To {
			t.Errorf("reviewed %q (%s to %s), want %s..%s", got.Period, got.From, got.To, exp.From, exp.To)
		}
		if math.Abs(got.Savings.CostUSD-exp.All.Total.CostUSD) > 1e-6 {
			t.Errorf("cost from %s to %s: got $%v, want $%v", exp.From, exp.To, got.Savings.CostUSD, exp.All.Total.CostUSD)
		}
	})

	t.Run("no logs at all", func(t *testing.T) {
		e, _, _ := realEnv(t)
		empty := t.TempDir()
		claude, codex, gemini := filepath.Join(empty, "claude"), filepath.Join(empty, "codex"), filepath.Join(empty, "gemini")
		e.vars = append(e.vars, "CLAUDE_CONFIG_DIR="+claude, "CODEX_HOME="+codex, "USAGE_GEMINI_DIR="+gemini,
			"USAGE_OPENCODE_DB="+filepath.Join(empty, "opencode.db"))
		cs := goClient(t, e, "2025-11-25", nil)
		sc, isErr := callTool(t, cs, "run_agent", map[string]any{"agent": "spend-review", "action": "weekly-review",
			"args": map[string]any{"period": "last_30_days"}})
		if isErr {
			t.Fatalf("weekly-review: %v", sc)
		}
		text := mustString(t, sc)
		var got struct {
			NoLogs []struct {
				Provider string   `json:"provider"`
				LookedIn []string `json:"looked_in"`
			} `json:"no_logs"`
			Recorded any `json:"recorded"`
		}
		must(t, json.Unmarshal([]byte(text), &got))
		looked := map[string]string{}
		for _, p := range got.NoLogs {
			looked[p.Provider] = strings.Join(p.LookedIn, " ")
		}
		for provider, dir := range map[string]string{"claude": filepath.Join(claude, "projects"), "codex": filepath.Join(codex, "sessions"),
			"gemini": filepath.Join(gemini, "tmp"), "opencode": filepath.Join(empty, "opencode.db")} {
			if !strings.Contains(looked[provider], dir) {
				t.Errorf("%s: looked in %q, want %s named", provider, looked[provider], dir)
			}
		}
		if got.Recorded != nil {
			t.Errorf("recorded %v with no logs", got.Recorded)
		}
		cmd := exec.Command(hostBin, "call", "spend-review", "weekly-review", "--arg", "period=last_30_days", "--markdown")
		cmd.Env = e.vars
		out, _, code := testplugin.Run(t, cmd)
		md := string(out)
		if code != 0 || !strings.Contains(md, "No AI-coding logs were found") || !strings.Contains(md, filepath.Join(claude, "projects")) || strings.Contains(md, "no usage recorded") {
			t.Errorf("the report does not say no logs were found and where:\n%s", md)
		}
	})
}
