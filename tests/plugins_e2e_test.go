package tests

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/tests/usagegen"
)

// realEnv is a host installation with the real plugins, generated usage
// logs and an empty notes brain, all under temp folders.
func realEnv(t *testing.T) (*env, *usagegen.Expected, string) {
	t.Helper()
	for _, want := range []string{"usage", "notes", "spend-review"} {
		if !slices.Contains(realPluginNames, want) {
			t.Fatalf("plugin %s did not build", want)
		}
	}
	home := t.TempDir()
	// Three days ending yesterday, so "last_7_days" holds them whenever the test runs.
	start := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -3)
	exp, err := usagegen.Generate(filepath.Join(home, "logs"), usagegen.Config{Seed: 7, Days: 3, Start: start})
	must(t, err)
	brain := filepath.Join(home, "brain")
	e := &env{plugins: realPlugins, vars: append(filteredEnviron(),
		"HOST_PLUGIN_PATH="+realPlugins, "HOST_SKILL_PATH="+t.TempDir(),
		"XDG_CACHE_HOME="+filepath.Join(home, "cache"), "XDG_DATA_HOME="+filepath.Join(home, "data"), "HOME="+home,
		"CLAUDE_CONFIG_DIR="+exp.ClaudeDir, "CODEX_HOME="+exp.CodexDir, "NOTES_BRAIN="+brain)}
	return e, exp, brain
}

// usageRows is the structured answer of get-usage by=model.
type usageRows struct {
	Rows []struct {
		Key     string  `json:"key"`
		Calls   int     `json:"calls"`
		Input   int64   `json:"input_tokens"`
		Output  int64   `json:"output_tokens"`
		CostUSD float64 `json:"cost_usd"`
	} `json:"rows"`
}

// checkUsage compares get-usage by=model with the generator's totals.
func checkUsage(t *testing.T, got usageRows, exp *usagegen.Expected) {
	t.Helper()
	if len(got.Rows) != len(exp.All.Models) {
		t.Fatalf("got %d models, want %d: %+v", len(got.Rows), len(exp.All.Models), got.Rows)
	}
	for _, r := range got.Rows {
		want := exp.All.Models[r.Key]
		if want == nil {
			t.Fatalf("unexpected model %s", r.Key)
		}
		if r.Calls != want.Calls || r.Input != want.Input || r.Output != want.Output || math.Abs(r.CostUSD-want.CostUSD) > 1e-6 {
			t.Errorf("%s: got %+v, want %+v", r.Key, r, *want)
		}
	}
}

// usageArgs asks for the generated days by model.
func usageArgs(exp *usagegen.Expected) map[string]any {
	return map[string]any{"by": "model", "from": exp.From, "to": exp.To, "timezone": "UTC"}
}

func TestUsageThroughHostCall(t *testing.T) {
	e, exp, _ := realEnv(t)
	args := []string{"call", "usage", "get-usage"}
	for k, v := range usageArgs(exp) {
		args = append(args, "--arg", k+"="+v.(string))
	}
	run := func(extra ...string) string {
		cmd := exec.Command(hostBin, append(args, extra...)...)
		cmd.Env = e.vars
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("host call: %v\n%s", err, out)
		}
		return string(out)
	}
	md := run("--markdown")
	if !strings.Contains(md, "| Model | Cost |") || !strings.Contains(md, "claude-sonnet") {
		t.Fatalf("no Markdown table:\n%s", md)
	}
	var rows usageRows
	must(t, json.Unmarshal([]byte(run("--json")), &rows))
	checkUsage(t, rows, exp)
	// Piped with no flag is the same raw JSON a script reads.
	if piped := run(); piped != run("--json") {
		t.Errorf("piped host call is not the --json output:\n%s", piped)
	}
}

func TestUsageThroughMCP(t *testing.T) {
	e, exp, _ := realEnv(t)
	cs := goClient(t, e, "2025-11-25", nil)
	var rows usageRows
	text, b := runTool(t, cs, "usage", "get-usage", usageArgs(exp), &rows)
	if !strings.Contains(text, "| Model | Cost |") {
		t.Fatalf("content is not the Markdown table: %s", text)
	}
	checkUsage(t, rows, exp)
	for _, name := range exp.ProjectPaths {
		if strings.Contains(text, name) || strings.Contains(string(b), name) {
			t.Errorf("absolute project path %s leaked", name)
		}
	}
}

func TestNotesThroughMCPRecordsTheClient(t *testing.T) {
	e, _, brain := realEnv(t)
	cs := goClient(t, e, "2025-11-25", nil)
	sc, isErr := callTool(t, cs, "run_tool", map[string]any{"tool": "notes", "action": "remember",
		"args": map[string]any{"type": "gotcha", "content": "The staging queue drops messages larger than 256 KB."}})
	if isErr {
		t.Fatalf("remember: %v", sc)
	}
	log, err := exec.Command("git", "-C", brain, "log", "-1", "--format=%B").Output()
	must(t, err)
	if !strings.Contains(string(log), "Notes-Client: go-e2e") {
		t.Fatalf("commit does not name the MCP client:\n%s", log)
	}
	sc, isErr = callTool(t, cs, "run_tool", map[string]any{"tool": "notes", "action": "search", "args": map[string]any{"query": "staging queue"}})
	if isErr || !strings.Contains(mustString(t, sc), "256 KB") {
		t.Fatalf("search did not find the memory: %v", sc)
	}
}

// TestSpendReviewRecordsThePlantedFindings: spend-review, run through MCP
// run_agent on generated logs, reports and records exactly what the
// generator planted: the period's cost, the edits redone, the long-context
// premium and the 1-hour cache premium (priced by the generator's own table),
// and no routing waste (none planted).
func TestSpendReviewRecordsThePlantedFindings(t *testing.T) {
	e, exp, brain := realEnv(t)
	cs := goClient(t, e, "2025-11-25", nil)
	sc, isErr := callTool(t, cs, "run_agent", map[string]any{"agent": "spend-review", "action": "weekly-review",
		"args": map[string]any{"period": "last_7_days"}})
	if isErr {
		t.Fatalf("weekly-review: %v", sc)
	}
	var got struct {
		Savings struct {
			CostUSD  float64 `json:"cost_usd"`
			RetryTax struct {
				TotalUSD float64 `json:"total_usd"`
				Retries  int     `json:"retries"`
			} `json:"retry_tax"`
		} `json:"savings"`
		Findings []struct {
			Title     string  `json:"title"`
			ImpactUSD float64 `json:"impact_usd"`
		} `json:"findings"`
		Recorded map[string]any `json:"recorded"`
	}
	must(t, json.Unmarshal([]byte(mustString(t, sc)), &got))
	planted := exp.All.Planted
	if math.Abs(got.Savings.CostUSD-exp.All.Total.CostUSD) > 1e-6 || got.Savings.RetryTax.Retries != planted.Retries {
		t.Errorf("savings: got cost %v and %d retries, want %v and %d", got.Savings.CostUSD, got.Savings.RetryTax.Retries, exp.All.Total.CostUSD, planted.Retries)
	}
	want := map[string]float64{
		"Retry tax":            got.Savings.RetryTax.TotalUSD,
		"Long-context premium": planted.LongContextPremiumUSD,
		"1-hour cache writes":  planted.OneHourCacheUSD,
	}
	if len(got.Findings) != len(want) {
		t.Fatalf("findings: got %+v, want exactly %v", got.Findings, want)
	}
	for _, f := range got.Findings {
		w, ok := want[f.Title]
		if !ok || math.Abs(f.ImpactUSD-w) > 1e-6 || f.ImpactUSD <= 0 {
			t.Errorf("finding %q: got $%v, want $%v", f.Title, f.ImpactUSD, w)
		}
	}
	if got.Recorded == nil {
		t.Fatalf("nothing recorded: %v", sc)
	}
	files, _ := filepath.Glob(filepath.Join(brain, "memory", "episodes", "*.md"))
	if len(files) != 1 {
		t.Fatalf("want one episode note, got %v", files)
	}
	note, err := os.ReadFile(files[0])
	must(t, err)
	lines := []string{
		fmt.Sprintf("Spent $%.2f over ", exp.All.Total.CostUSD),
		fmt.Sprintf("; %d edits redone after a failed build or test.", planted.Retries),
		fmt.Sprintf("- Retry tax: $%.2f (", got.Savings.RetryTax.TotalUSD),
		fmt.Sprintf("- Long-context premium: $%.2f (", planted.LongContextPremiumUSD),
		fmt.Sprintf("- 1-hour cache writes: $%.2f (", planted.OneHourCacheUSD),
	}
	for _, l := range lines {
		if !strings.Contains(string(note), l) {
			t.Errorf("the note lacks %q:\n%s", l, note)
		}
	}
}

func mustString(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	must(t, err)
	return string(b)
}
