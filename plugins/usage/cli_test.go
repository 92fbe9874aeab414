package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/tests/usagegen"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testplugin.RemoveBuilt()
	os.Exit(code)
}

// TestCLI builds the real binary, puts the tool.yaml beside it and runs it
// in CLI mode on generated logs.
func TestCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := testplugin.Plugin(t, "usage")
	exp, env := generated(t, usagegen.Config{Seed: 21, Days: 3, ContentBytes: 100})
	run := func(args ...string) (stdout string, code int) {
		cmd := exec.Command(bin, args...)
		cmd.Env = []string{"HOME=" + env["HOME"], "CLAUDE_CONFIG_DIR=" + env["CLAUDE_CONFIG_DIR"], "CODEX_HOME=" + env["CODEX_HOME"]}
		out, _, code := testplugin.Run(t, cmd)
		return string(out), code
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		check    func(t *testing.T, out string)
	}{
		{"by model", []string{"get-usage", "--from", exp.From, "--to", exp.To, "--by", "model", "--timezone", "UTC"}, 0,
			func(t *testing.T, out string) {
				var u usageOut
				if err := json.Unmarshal([]byte(out), &u); err != nil {
					t.Fatalf("%v: %s", err, out)
				}
				if u.Totals.InputTokens != exp.All.Total.Input || !sameCost(u.Totals.CostUSD, exp.All.Total.CostUSD) {
					t.Errorf("got %+v, want input %d cost %.6f", u.Totals, exp.All.Total.Input, exp.All.Total.CostUSD)
				}
			}},
		{"ccusage pricing", []string{"get-usage", "--json", `{"from":"` + exp.From + `","to":"` + exp.To + `","timezone":"UTC","pricing":"ccusage"}`}, 0,
			func(t *testing.T, out string) {
				var u usageOut
				if err := json.Unmarshal([]byte(out), &u); err != nil {
					t.Fatalf("%v: %s", err, out)
				}
				if !sameCost(u.Totals.CostUSD, exp.All.Total.CostCCUsage) {
					t.Errorf("got $%.6f, want $%.6f", u.Totals.CostUSD, exp.All.Total.CostCCUsage)
				}
			}},
		{"unknown by", []string{"get-usage", "--by", "modle"}, 2,
			func(t *testing.T, out string) {
				if !strings.Contains(out, `"did_you_mean"`) || !strings.Contains(out, `"model"`) {
					t.Errorf("got %s", out)
				}
			}},
		{"status", []string{"status"}, 0,
			func(t *testing.T, out string) {
				if !strings.Contains(out, `"providers"`) || strings.Contains(out, env["CLAUDE_CONFIG_DIR"]) {
					t.Errorf("got %s", out)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := run(tt.args...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d: %s", code, tt.wantCode, out)
			}
			tt.check(t, out)
		})
	}
}
