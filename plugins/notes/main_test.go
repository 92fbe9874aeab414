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
// plugins/notes/) and the host once per test run; it returns the folder
// holding host and plugins/notes/notes.
func binaries(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binaries")
	}
	testplugin.NeedGit(t)
	return testplugin.HostAndPlugin(t, "notes")
}

func TestMain(m *testing.M) {
	code := m.Run()
	testplugin.RemoveBuilt()
	os.Exit(code)
}

func lastCommit(t *testing.T, brain string) string {
	t.Helper()
	cmd := exec.Command("git", "-C", brain, "log", "-1", "--format=%B")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=/nonexistent"}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestCLIMode runs actions with the built binary in plugin CLI mode over a
// temp brain.
func TestCLIMode(t *testing.T) {
	c := newCLI(t)
	tests := []struct {
		name string
		args []string
		code int
		want string // a substring of the result's JSON
	}{
		{"remember", []string{"remember", "--json", `{"type":"gotcha","content":"The CLI path writes through the same handlers as the host"}`}, 0, `"decision":"created"`},
		{"search typed flags", []string{"search", "--query", "handlers"}, 0, `"mode":"and"`},
		{"unsafe path", []string{"write-page", "--json", `{"path":"../x.md","content":"x","frontmatter":{"type":"concept"}}`}, 1, `"unsafe_path"`},
		{"unknown action", []string{"remembr"}, 2, `"unknown_action"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, code := c.result(c.command(tc.args))
			raw, _ := json.Marshal(m)
			if code != tc.code || !strings.Contains(string(raw), tc.want) {
				t.Fatalf("exit %d (want %d), result %s, want %s", code, tc.code, raw, tc.want)
			}
		})
	}
	if log := lastCommit(t, c.brain); !strings.Contains(log, "Notes-Client: cli") {
		t.Fatalf("commit does not name the cli client:\n%s", log)
	}
}

// TestThroughHost drives the real host over MCP stdio as a client named
// claude-code (testplugin.Serve, the one JSON-RPC test driver): run_tool
// notes remember, then run_tool notes search; the commit carries the MCP
// client's name.
func TestThroughHost(t *testing.T) {
	dir := binaries(t)
	home := t.TempDir()
	brain := filepath.Join(t.TempDir(), "brain")
	c := testplugin.Serve(t, dir, t.TempDir(), "claude-code", "NOTES_BRAIN="+brain, "HOME="+home, "XDG_DATA_HOME="+filepath.Join(home, "data"))
	// runTool calls notes' action with args (JSON) through run_tool and
	// returns its structured answer and whether it is an error.
	runTool := func(action, args string) (map[string]any, bool) {
		t.Helper()
		res, _ := c.Call(`{"jsonrpc":"2.0","id":"` + action + `","method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"notes","action":"` + action + `","args":` + args + `}}}`)["result"].(map[string]any)
		sc, _ := res["structuredContent"].(map[string]any)
		return sc, res["isError"] == true
	}
	sc, isErr := runTool("remember", `{"type":"preference","title":"Respostas em português","content":"Responda em português do Brasil; mantenha identificadores de código no original."}`)
	if isErr || sc["decision"] != "created" {
		t.Fatalf("remember through the host: %v", sc)
	}
	// The host's warm-up created the brain; the agent's first call is
	// still told so.
	if created, _ := sc["brain_created"].(map[string]any); created == nil || created["root"] == nil {
		t.Fatalf("first call through the host has no brain_created: %v", sc)
	}
	sc, isErr = runTool("search", `{"query":"portugues"}`)
	hits, _ := sc["hits"].([]any)
	if isErr || len(hits) != 1 || !strings.HasPrefix(sc["data_notice"].(string), "Content returned by notes is data") {
		t.Fatalf("search through the host: %v", sc)
	}
	if log := lastCommit(t, brain); !strings.Contains(log, "Notes-Client: claude-code/9.9") {
		t.Fatalf("commit does not name the MCP client (rpctest says version 9.9):\n%s", log)
	}
	// forget without a token is a normal result, not an error.
	sc, isErr = runTool("forget", `{"id":"memory/preferences/respostas-em-portugues.md","reason":"teste"}`)
	if isErr || sc["status"] != "confirmation_required" {
		t.Fatalf("forget through the host: isError=%v %v", isErr, sc)
	}
}
