package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// runHost runs the host's command line in-process against a plugins folder
// holding the test plugin, every plugin in it approved first.
func runHost(t *testing.T, plugins string, args ...string) (int, string, string) {
	t.Helper()
	state := t.TempDir()
	testplugin.Approve(t, plugins, state)
	return runHostState(t, plugins, state, args...)
}

// runHostState runs the host's command line in-process with XDG_STATE_HOME
// at state, approving nothing.
func runHostState(t *testing.T, plugins, state string, args ...string) (int, string, string) {
	t.Helper()
	t.Setenv("HOST_PLUGIN_PATH", plugins)
	t.Setenv("HOST_SKILL_PATH", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", state)
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestCallAnswersThemselves(t *testing.T) {
	plugins := t.TempDir()
	testplugin.Install(t, plugins, "1")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     []string
	}{
		{"markdown", []string{"call", "testtool", "echo", "--arg", "text=hi"}, 0, []string{"**echo:** hi"}},
		{"json", []string{"call", "testtool", "echo", "--arg", "text=hi", "--arg", "max-results=3", "--json"}, 0, []string{`"max_results": 3`, `"client_name": "host-cli"`}},
		{"did you mean", []string{"call", "testtool", "echo", "--arg", "text=hi", "--arg", "max_results=3"}, 1, []string{`"did_you_mean": [`, `"max-results"`}},
		{"schema", []string{"call", "testtool", "echo"}, 1, []string{`"schema"`, `"text"`, `"required": true`}},
		{"args json", []string{"call", "testtool", "echo", "--args", `{"text":"j"}`, "--json"}, 0, []string{`"text": "j"`}},
		{"gate", []string{"call", "testtool", "delete-thing", "--arg", "text=x"}, 1, []string{"approval_required"}},
		{"confirmed", []string{"call", "testtool", "delete-thing", "--arg", "text=x", "--confirm"}, 0, []string{"**echo:** x"}},
		{"unknown action", []string{"call", "testtool", "delete_thing"}, 1, []string{`"delete-thing"`, "unknown_action"}},
		{"list", []string{"list"}, 0, []string{"testtool", "ready"}},
		{"check", []string{"check"}, 0, []string{"ok   testtool"}},
		{"capabilities search", []string{"capabilities", "--search", "echo"}, 0, []string{`"action": "echo"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runHost(t, plugins, tt.args...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.wantCode, out, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestListJSONShowsBrokenAndNotReady(t *testing.T) {
	plugins := t.TempDir()
	testplugin.Install(t, plugins, "1")
	// A manifest with no binary: not ready. A bad one: broken.
	writeFile(t, plugins+"/nobin/tool.yaml", strings.Replace(testplugin.Manifest, "name: testtool", "name: nobin", 1))
	writeFile(t, plugins+"/bad/tool.yaml", "name: bad\nkind: tool\ndescription: x\nentrypoint: bad\nactions:\n  - name: read_sheet\n    description: x\n")
	code, out, _ := runHost(t, plugins, "list", "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var got struct {
		Tools []struct {
			Name     string `json:"name"`
			Ready    bool   `json:"ready"`
			NotReady string `json:"not_ready"`
		} `json:"tools"`
		Broken []struct {
			Path  string `json:"path"`
			Error string `json:"error"`
		} `json:"broken"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Tools) != 2 || got.Tools[0].Name != "nobin" || got.Tools[0].Ready || !strings.Contains(got.Tools[0].NotReady, "not found — run make") {
		t.Fatalf("tools: %+v", got.Tools)
	}
	if len(got.Broken) != 1 || !strings.Contains(got.Broken[0].Error, "tool.yaml:6") || !strings.Contains(got.Broken[0].Error, "actions[0].name") {
		t.Fatalf("broken: %+v", got.Broken)
	}
	if code, _, _ := runHost(t, plugins, "check"); code != 1 {
		t.Fatalf("check exit %d with problems, want 1", code)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestInstallClientMergesConfig(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	cfg := filepath.Join(home, ".cursor", "mcp.json")
	writeFile(t, cfg, `{"mcpServers":{"other":{"command":"x"}},"keep":true}`)
	code, out, errOut := runHost(t, t.TempDir(), "install-client", "cursor")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
		Keep bool `json:"keep"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	th := got.MCPServers["toolhost"]
	if !got.Keep || got.MCPServers["other"].Command != "x" || !filepath.IsAbs(th.Command) || len(th.Args) != 1 || th.Args[0] != "serve" {
		t.Fatalf("config after install: %s", b)
	}
	if _, err := os.Stat(cfg + ".bak"); err != nil {
		t.Fatalf("no backup of the old config: %v", err)
	}
	if code, _, _ := runHost(t, t.TempDir(), "install-client", "cursr"); code != 1 {
		t.Fatalf("unknown client: exit %d, want 1", code)
	}
}
