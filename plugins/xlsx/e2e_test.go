package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// binaries builds the plugin (with its tool.yaml beside it, as in
// plugins/xlsx/) and the host once per test run; it returns the folder
// holding host and xlsx/xlsx.
func binaries(t *testing.T) string {
	t.Helper()
	return testplugin.HostAndPlugin(t, "xlsx")
}

func TestMain(m *testing.M) {
	code := m.Run()
	testplugin.RemoveBuilt()
	os.Exit(code)
}

func TestCLIMode(t *testing.T) {
	bin := filepath.Join(binaries(t), "plugins", "xlsx", "xlsx")
	files := allowCorpus(t)
	tests := []struct {
		name string
		args []string
		code int
		want []string // substrings of stdout
	}{
		{"typed flags", []string{"read-sheet", "--path", "calamine__date.xlsx", "--max-results", "2"}, 0,
			[]string{`"2021-01-01T00:00:00"`, `"truncated": true`, `"next_offset": 2`}},
		{"json args", []string{"list-sheets", "--json", `{"path":"calamine__any_sheets.xlsx"}`}, 0,
			[]string{`"veryHidden"`, `"chartsheet"`}},
		{"misspelt sheet", []string{"read-sheet", "--path", "calamine__any_sheets.xlsx", "--sheet", "visible"}, 2, // invalid_args: a usage error (cli.ExitUsage)
			[]string{`"did_you_mean"`, `"Visible"`}},
		{"encrypted", []string{"list-sheets", "--path", "excelize__encryptAES.xlsx"}, 1,
			[]string{`"encrypted_workbook"`, "password-protected"}},
		{"misspelt arg", []string{"read-sheet", "--paht", "calamine__date.xlsx"}, 2, []string{`"path"`}},
		{"unknown action", []string{"read-sheets", "--path", "calamine__date.xlsx"}, 2, []string{`"unknown_action"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			cmd.Dir = files
			out, _, code := testplugin.Run(t, cmd)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stdout:\n%s", code, tc.code, out)
			}
			if !json.Valid(out) {
				t.Errorf("stdout is not one JSON document:\n%s", out)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("stdout lacks %s:\n%s", w, out)
				}
			}
		})
	}
}

// TestThroughHost drives the real host over MCP stdio: run_tool xlsx
// read-sheet with a misspelt sheet name answers did_you_mean with the
// workbook's real sheet names.
func TestThroughHost(t *testing.T) {
	c := testplugin.Serve(t, binaries(t), allowCorpus(t), "xlsx-test")
	res, _ := c.Call(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"xlsx","action":"read-sheet","args":{"path":"sheetjs__sheet_visibility.xlsx","sheet":"very hidden"}}}}`)["result"].(map[string]any)
	if res == nil || res["isError"] != true {
		t.Fatalf("want an isError result, got %v", res)
	}
	sc, _ := res["structuredContent"].(map[string]any)
	env, _ := sc["error"].(map[string]any)
	if env["code"] != "invalid_args" || toJSON(env["did_you_mean"]) != `["VeryHidden"]` {
		t.Errorf("error envelope = %s, want invalid_args with did_you_mean [VeryHidden]", toJSON(sc))
	}
	res, _ = c.Call(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"xlsx","action":"read-sheet","args":{"path":"sheetjs__sheet_visibility.xlsx","sheet":"VeryHidden"}}}}`)["result"].(map[string]any)
	sc, _ = res["structuredContent"].(map[string]any)
	if res["isError"] == true || toJSON(sc["rows"]) != `[["V","e","r","y","H","i","d","d","e","n"],[86,101,114,121,72,105,100,100,101,110]]` {
		t.Errorf("read-sheet through the host = %s", toJSON(res))
	}
}
