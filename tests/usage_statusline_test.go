package tests

import (
	"encoding/json"
	"errors"
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

// TestStatuslineInClaudeCode is a new user's path: `host install-client
// claude-code --statusline` writes Claude Code's settings, and the command
// there, run through a shell with Claude Code's statusline JSON on stdin
// as Claude Code runs it, prints one line with the session, today and the
// 5-hour block; a budget set to the spend so far shows warn in it.
func TestStatuslineInClaudeCode(t *testing.T) {
	home := t.TempDir()
	now := time.Now().UTC()
	start := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, -2)
	exp, err := usagegen.Generate(filepath.Join(home, "logs"), usagegen.Config{Seed: 8, Start: start, Days: 3, ContentBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	budgets := filepath.Join(home, ".config", "toolhost", "usage-budgets.yaml")
	vars := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + exp.ClaudeDir, "CODEX_HOME=" + exp.CodexDir, "TZ=UTC", "NO_COLOR=1",
		"HOST_PLUGIN_PATH=" + realPlugins, "XDG_STATE_HOME=" + stateHome, "PATH=" + os.Getenv("PATH")}
	run := func(stdin string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Env = vars
		cmd.Stdin = strings.NewReader(stdin)
		out, errOut, code := testplugin.Run(t, cmd)
		if code != 0 {
			t.Fatalf("%s %v: exit %d: %s%s", name, args, code, out, errOut)
		}
		return string(out)
	}
	out := run("", hostBin, "install-client", "claude-code", "--statusline")
	if !strings.Contains(out, "set Claude Code's status line to the usage plugin's in "+filepath.Join(exp.ClaudeDir, "settings.json")) {
		t.Fatalf("install-client said: %s", out)
	}
	var settings struct {
		StatusLine struct{ Type, Command string } `json:"statusLine"`
	}
	b, err := os.ReadFile(filepath.Join(exp.ClaudeDir, "settings.json"))
	if err := errors.Join(err, json.Unmarshal(b, &settings)); err != nil || settings.StatusLine.Type != "command" {
		t.Fatalf("settings.json: %v\n%s", err, b)
	}

	// A session of the logs, as Claude Code names it in its JSON.
	logs, _ := filepath.Glob(filepath.Join(exp.ClaudeDir, "projects", "*", "*.jsonl"))
	if len(logs) == 0 {
		t.Fatal("no Claude Code logs generated")
	}
	session := strings.TrimSuffix(filepath.Base(logs[0]), ".jsonl")
	input := fmt.Sprintf(`{"hook_event_name":"Status","session_id":%q,"transcript_path":%q,"cwd":"/home/dev",`+
		`"model":{"id":"claude-opus-4-5","display_name":"Opus"},"workspace":{"current_dir":"/home/dev","project_dir":"/home/dev"},`+
		`"version":"2.0.14","output_style":{"name":"default"},"cost":{"total_cost_usd":0.5,"total_duration_ms":1000}}`, session, logs[0])

	// The week's spend so far, from the budget report, becomes the limit.
	week := "week_starts: " + strings.ToLower(start.Weekday().String()) + "\nbudgets:\n  - {name: week, period: week, limit_usd: %s}\n"
	testplugin.WriteFile(t, budgets, fmt.Sprintf(week, "1000000"))
	plugin := filepath.Join(realPlugins, "usage", "usage")
	var rep struct {
		Budgets []struct {
			Spent float64 `json:"spent_usd"`
		} `json:"budgets"`
	}
	if err := json.Unmarshal([]byte(run("", plugin, "budget")), &rep); err != nil || len(rep.Budgets) != 1 || rep.Budgets[0].Spent <= 0 {
		t.Fatalf("budget report: %v %+v", err, rep)
	}
	testplugin.WriteFile(t, budgets, fmt.Sprintf(week, strconv.FormatFloat(rep.Budgets[0].Spent, 'f', 2, 64)))

	for i := range 2 { // the second run answers from the index the first left
		line := run(input, "sh", "-c", settings.StatusLine.Command)
		if strings.Count(line, "\n") != 1 || !strings.HasPrefix(line, "🤖 Opus | 💰 $") ||
			!strings.Contains(line, " session / $") || !strings.Contains(line, " today / ") ||
			!strings.Contains(line, "🎯 week warn 100%") {
			t.Errorf("run %d: %q", i+1, line)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(home, ".cache", "toolhost-usage")); len(entries) == 0 {
		t.Error("no index left in ~/.cache/toolhost-usage")
	}
}
