package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/host/internal/supervisor"
	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// TestMain lets this test binary serve as the plugins' reaper, as the
// host's executable does (the in-process app runs plugins under
// /proc/self/exe).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == supervisor.ReaperArg {
		os.Exit(supervisor.Reap(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// runHost runs the host's command line in-process against a plugins folder
// holding the test plugin, every plugin in it approved first. The state
// folder is the XDG_STATE_HOME the test set under the temporary folder, or
// a new one.
func runHost(t *testing.T, plugins string, args ...string) (int, string, string) {
	t.Helper()
	state := os.Getenv("XDG_STATE_HOME")
	if rel, err := filepath.Rel(os.TempDir(), state); state == "" || err != nil || strings.HasPrefix(rel, "..") {
		state = t.TempDir()
	}
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
		{"piped is JSON", []string{"call", "testtool", "echo", "--arg", "text=hi"}, 0, []string{`"text": "hi"`, `"client_name": "host-cli"`}},
		{"markdown", []string{"call", "testtool", "echo", "--arg", "text=hi", "--markdown"}, 0, []string{"**echo:** hi"}},
		{"json", []string{"call", "testtool", "echo", "--arg", "text=hi", "--arg", "max-results=3", "--json"}, 0, []string{`"max_results": 3`, `"client_name": "host-cli"`}},
		{"did you mean", []string{"call", "testtool", "echo", "--arg", "text=hi", "--arg", "max_results=3"}, 2, []string{`"did_you_mean": [`, `"max-results"`}},
		{"schema", []string{"call", "testtool", "echo"}, 2, []string{`"schema"`, `"text"`, `"required": true`}},
		{"args json", []string{"call", "testtool", "echo", "--args", `{"text":"j"}`, "--json"}, 0, []string{`"text": "j"`}},
		{"gate", []string{"call", "testtool", "delete-thing", "--arg", "text=x"}, 1, []string{"approval_required"}},
		{"confirmed", []string{"call", "testtool", "delete-thing", "--arg", "text=x", "--confirm", "--markdown"}, 0, []string{"**echo:** x"}},
		{"unknown action", []string{"call", "testtool", "delete_thing"}, 2, []string{`"delete-thing"`, "unknown_action"}},
		{"unknown tool", []string{"call", "testtol", "echo"}, 2, []string{`"testtool"`, "unknown_tool"}},
		{"mistyped arg", []string{"call", "testtool", "echo", "--arg", "text=hi", "--arg", "max-results=three"}, 2, []string{"invalid_args", "max-results"}},
		{"arg without value", []string{"call", "testtool", "echo", "--arg", "text"}, 2, []string{"invalid_args", "NAME=VALUE"}},
		{"both arg forms", []string{"call", "testtool", "echo", "--arg", "text=a", "--args", `{"text":"b"}`}, 2, []string{"invalid_args", "not both"}},
		{"tool failure", []string{"call", "testtool", "panic"}, 1, []string{"internal_error"}},
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
	testplugin.WriteFile(t, plugins+"/nobin/tool.yaml", strings.Replace(testplugin.Manifest, "name: testtool", "name: nobin", 1))
	testplugin.WriteFile(t, plugins+"/bad/tool.yaml", "name: bad\nkind: tool\ndescription: x\nentrypoint: bad\nactions:\n  - name: read_sheet\n    description: x\n")
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

func TestInstallClientMergesConfig(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	cfg := filepath.Join(home, ".cursor", "mcp.json")
	testplugin.WriteFile(t, cfg, `{"mcpServers":{"other":{"command":"x"}},"keep":true}`)
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
	code, out, errOut = runHost(t, t.TempDir(), "install-client", "cursr")
	if code != 1 {
		t.Fatalf("unknown client: exit %d, want 1", code)
	}
	// The message names what was wrong and what was meant.
	for _, want := range []string{`unknown client "cursr"`, "did you mean cursor?", "known: "} {
		if !strings.Contains(errOut, want) {
			t.Errorf("unknown client: stderr lacks %q:\n%s", want, errOut)
		}
	}
	if out != "" {
		t.Errorf("unknown client: stdout %q, want nothing", out)
	}
}

// TestListSaysWhyAndUntilWhenAToolIsDisabled: a host that disabled a
// crashing tool records it, and `host list` (and --json) says why and
// until when, for that binary only.
func TestListSaysWhyAndUntilWhenAToolIsDisabled(t *testing.T) {
	plugins := t.TempDir()
	testplugin.Install(t, plugins, "1")
	rebuilt := testplugin.Build(t, "2") // before runHost points XDG_CACHE_HOME (and so Go's build cache) at an empty folder
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	reg := registry.New(registry.Options{PluginDirs: []string{plugins}})
	tool, _ := reg.Scan().Tool("testtool")
	sup := supervisor.New(supervisor.Options{CacheDir: t.TempDir(), StateDir: registry.DefaultStateDir(), MaxCrashes: 1, DisableFor: time.Hour})
	defer sup.Close()
	if r := sup.Call(context.Background(), tool, &wire.CallRequest{Action: "crash", ArgsJson: []byte("{}")}, nil); wire.Code(r.GetError().GetCode()) != wire.CodePluginCrashed {
		t.Fatalf("crash answered %v", r)
	}

	code, out, _ := runHost(t, plugins, "list")
	if code != 0 || !strings.Contains(out, "disabled until ") || !strings.Contains(out, "crashed 1 times") {
		t.Fatalf("host list does not say why and until when:\n%s", out)
	}
	_, out, _ = runHost(t, plugins, "list", "--json")
	var got struct {
		Tools []struct {
			Name     string `json:"name"`
			Disabled struct {
				Reason string `json:"reason"`
				Until  string `json:"until"`
			} `json:"disabled"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	until, err := time.Parse(time.RFC3339, got.Tools[0].Disabled.Until)
	if err != nil || until.Before(time.Now().Add(50*time.Minute)) || !strings.Contains(got.Tools[0].Disabled.Reason, "crashed") {
		t.Fatalf("host list --json: %s", out)
	}

	// A rebuilt binary is not the one disabled.
	testplugin.CopyBinary(t, rebuilt, filepath.Join(plugins, "testtool", "testtool"))
	if _, out, _ := runHost(t, plugins, "list"); strings.Contains(out, "disabled") {
		t.Fatalf("a rebuilt tool is listed disabled:\n%s", out)
	}
}

func TestSkillAndAgentUses(t *testing.T) {
	plugins := t.TempDir()
	testplugin.Install(t, plugins, "1")
	testplugin.InstallAgent(t, plugins)
	skills := filepath.Join(plugins, "testtool", "skills", "echoing")
	testplugin.WriteFile(t, filepath.Join(skills, "SKILL.md"), "---\nname: echoing\ndescription: How to echo.\n---\n# Echoing\n\nCall testtool echo.\n")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     []string // in stdout (or stderr when the exit code is not 0)
	}{
		{"skill", []string{"skill", "echoing"}, 0, []string{"# Echoing", "Call testtool echo."}},
		{"skill misspelt", []string{"skill", "echoin"}, 1, []string{`no skill named "echoin"`, "did you mean echoing?"}},
		{"list shows uses", []string{"list"}, 0, []string{"uses: testtool"}},
		{"list json shows uses", []string{"list", "--json"}, 0, []string{`"uses": [` + "\n" + `        "testtool"`}},
		{"check shows uses", []string{"check"}, 0, []string{"ok   testagent 1.0.0 (", " actions; uses testtool)"}},
		{"capabilities shows uses", []string{"capabilities", "--kind", "agent"}, 0, []string{`"uses": [`, `"testtool"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runHost(t, plugins, tt.args...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.wantCode, out, errOut)
			}
			if code != 0 {
				out = errOut
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
