package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/testplugin"
)

var sixTools = []string{"capabilities", "get_skill", "run_agent", "run_agent_confirmed", "run_tool", "run_tool_confirmed"}

// goClient connects the Go SDK's own client to `host serve` in e.
// version "" lets the client negotiate (it probes with server/discover and
// speaks 2026-07-28); a legacy version makes it initialize.
func goClient(t *testing.T, e *env, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "go-e2e", Version: "1.2.3"}, opts)
	var sopts *mcp.ClientSessionOptions
	if version != "" {
		sopts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: e.serveCmd()}, sopts)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var sc map[string]any
	must(t, json.Unmarshal(b, &sc))
	return sc, res.IsError
}

// runTool calls run_tool (tool's action with args) through cs and fails t
// unless it succeeds; it decodes the structured content into dst and
// returns the text content and the structured content as JSON.
func runTool(t *testing.T, cs *mcp.ClientSession, tool, action string, args map[string]any, dst any) (string, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_tool", Arguments: map[string]any{"tool": tool, "action": action, "args": args}})
	must(t, err)
	if res.IsError {
		t.Fatalf("%s %s failed: %v", tool, action, res.StructuredContent)
	}
	b, _ := json.Marshal(res.StructuredContent)
	must(t, json.Unmarshal(b, dst))
	return res.Content[0].(*mcp.TextContent).Text, b
}

func TestGoSDKClient(t *testing.T) {
	for _, era := range []struct{ name, version string }{{"legacy", "2025-11-25"}, {"negotiated-modern", ""}} {
		t.Run(era.name, func(t *testing.T) {
			e := newEnv(t)
			var mu sync.Mutex
			var progress []string
			cs := goClient(t, e, era.version, &mcp.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
					mu.Lock()
					progress = append(progress, fmt.Sprint(r.Params.ProgressToken))
					mu.Unlock()
				}})
			ctx := context.Background()
			list, err := cs.ListTools(ctx, nil)
			must(t, err)
			var names []string
			for _, tool := range list.Tools {
				names = append(names, tool.Name)
			}
			if !slices.Equal(names, sixTools) {
				t.Errorf("tools: got %v, want %v", names, sixTools)
			}
			sc, isErr := callTool(t, cs, "run_tool", map[string]any{"tool": "testtool", "action": "echo", "args": map[string]any{"text": "go"}})
			if isErr || sc["text"] != "go" {
				t.Fatalf("echo: %v", sc)
			}
			caller := sc["caller"].(map[string]any)
			if caller["client_name"] != "go-e2e" || caller["client_version"] != "1.2.3" || caller["request_id"] == "" {
				t.Errorf("caller: %v", caller)
			}

			// Progress: the plugin's events arrive as notifications/progress.
			params := &mcp.CallToolParams{Name: "run_tool", Arguments: map[string]any{"tool": "testtool", "action": "slow", "args": map[string]any{"ms": 100}}}
			params.SetProgressToken("slow-1")
			res, err := cs.CallTool(ctx, params)
			if err != nil || res.IsError {
				t.Fatalf("slow: %v %v", err, res)
			}
			mu.Lock()
			got := slices.Clone(progress)
			mu.Unlock()
			if len(got) == 0 || got[0] != "slow-1" {
				t.Errorf("progress notifications: got %v, want some with token slow-1", got)
			}

			// Cancellation: the client's notifications/cancelled ends the call
			// in the plugin; the session goes on.
			cctx, cancel := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "run_tool", Arguments: map[string]any{"tool": "testtool", "action": "slow", "args": map[string]any{"ms": 60000}}})
				done <- err
			}()
			cancel()
			if err := <-done; err == nil {
				t.Error("a cancelled call succeeded")
			}
			if sc, isErr := callTool(t, cs, "capabilities", map[string]any{}); isErr || sc["tools"] == nil {
				t.Errorf("capabilities after a cancel: %v", sc)
			}
		})
	}
}

func TestDenyIrreversible(t *testing.T) {
	tests := []struct {
		name, env, tool string
		want            string // error code, "" for success
	}{
		{"plain tool refuses", "", "run_tool", "approval_required"},
		{"confirmed twin runs it", "", "run_tool_confirmed", ""},
		{"deny switch refuses the twin too", "HOST_DENY_IRREVERSIBLE=1", "run_tool_confirmed", "denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var extra []string
			if tt.env != "" {
				extra = append(extra, tt.env)
			}
			cs := goClient(t, newEnv(t, extra...), "2025-11-25", nil)
			sc, isErr := callTool(t, cs, tt.tool, map[string]any{"tool": "testtool", "action": "delete-thing", "args": map[string]any{"text": "x"}})
			if got := errorCode(sc); got != tt.want || isErr != (tt.want != "") {
				t.Fatalf("got code %q (isError %v), want %q: %v", got, isErr, tt.want, sc)
			}
			if tt.want == "approval_required" && !strings.Contains(fmt.Sprint(sc), "run_tool_confirmed") {
				t.Errorf("approval_required does not name run_tool_confirmed: %v", sc)
			}
		})
	}
}

// TestStdinClosedEarly closes stdin with a call in flight and a modern
// subscriptions/listen parked: the host answers the call, exits 0, and
// leaves no plugin running.
func TestStdinClosedEarly(t *testing.T) {
	w := newEnv(t).startWire(t)
	w.initialize()
	r := w.Call(runToolLine(1, "testtool", "env", "{}"))
	sc, _ := structured(t, r)
	pid := int(sc["pid"].(float64))
	w.Send(`{"jsonrpc":"2.0","id":"listen","method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"notifications":{}}}`)
	w.Send(runToolLine(2, "testtool", "slow", `{"ms":300}`))
	w.stdin.Close()
	answered := false
	for line := range w.lines {
		if !json.Valid([]byte(line)) {
			t.Fatalf("not JSON: %q", line)
		}
		var m map[string]any
		_ = json.Unmarshal([]byte(line), &m)
		if m["id"] == float64(2) {
			sc, isErr := structured(t, m)
			if isErr {
				t.Fatalf("the call in flight failed: %v", sc)
			}
			answered = true
		}
	}
	<-w.exited
	if w.err != nil {
		t.Errorf("host exit: %v", w.err)
	}
	if !answered {
		t.Error("the call in flight when stdin closed was not answered")
	}
	if alive(pid) {
		t.Errorf("plugin process %d still running after the host exited", pid)
	}
}

// TestHotLoadedPluginAppears installs a plugin while `host serve` runs: it
// shows up in capabilities and runs, with no restart.
func TestHotLoadedPluginAppears(t *testing.T) {
	e := newEnv(t)
	cs := goClient(t, e, "2025-11-25", nil)
	if sc, _ := callTool(t, cs, "capabilities", map[string]any{"name": "hotload"}); errorCode(sc) != "unknown_tool" {
		t.Fatalf("hotload before install: %v", sc)
	}
	dir := filepath.Join(e.plugins, "hotload")
	must(t, os.MkdirAll(dir, 0o755))
	testplugin.CopyBinary(t, testplugin.Build(t, "hot"), filepath.Join(dir, "testtool"))
	must(t, os.WriteFile(filepath.Join(dir, "tool.yaml"), []byte(strings.Replace(testplugin.Manifest, "name: testtool", "name: hotload", 1)), 0o644))
	testplugin.Approve(t, e.plugins, stateHome)
	deadline := time.Now().Add(60 * time.Second)
	for {
		sc, _ := callTool(t, cs, "capabilities", map[string]any{"name": "hotload"})
		if sc["ready"] == true {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("hotload never appeared: %v", sc)
		}
		time.Sleep(100 * time.Millisecond)
	}
	sc, isErr := callTool(t, cs, "run_tool", map[string]any{"tool": "hotload", "action": "version"})
	if isErr || sc["version"] != "hot" {
		t.Fatalf("hotload version: %v", sc)
	}
}

// TestRealPlugins lists every real plugin that builds and runs one
// read-only action of each through run_tool.
func TestRealPlugins(t *testing.T) {
	if len(realPluginNames) == 0 {
		t.Fatal("no plugin under plugins/ was installed: TestMain builds every plugin")
	}
	xlsxFile := firstFile(filepath.Join(repoRoot, "plugins", "xlsx", "testdata"), ".xlsx")
	home := t.TempDir()
	e := &env{plugins: realPlugins, vars: append(filteredEnviron(),
		"HOST_PLUGIN_PATH="+realPlugins, "HOST_SKILL_PATH="+t.TempDir(),
		"XDG_CACHE_HOME="+filepath.Join(home, "cache"), "XDG_DATA_HOME="+filepath.Join(home, "data"), "HOME="+home,
		"XLSX_ROOTS="+filepath.Dir(xlsxFile), "NOTES_BRAIN="+filepath.Join(home, "brain"))}
	cs := goClient(t, e, "2025-11-25", nil)
	list, _ := callTool(t, cs, "capabilities", map[string]any{})
	calls := map[string]map[string]any{
		"xlsx":         {"tool": "xlsx", "action": "list-sheets", "args": map[string]any{"path": xlsxFile}},
		"usage":        {"tool": "usage", "action": "status"},
		"notes":        {"tool": "notes", "action": "status"},
		"spend-review": {"agent": "spend-review", "action": "weekly-review", "args": map[string]any{"record": false}},
	}
	for _, name := range realPluginNames {
		t.Run(name, func(t *testing.T) {
			if !strings.Contains(fmt.Sprint(list["tools"], list["agents"]), "name:"+name) {
				t.Fatalf("%s is not listed as ready: %v", name, list)
			}
			call, ok := calls[name]
			if !ok || (name == "xlsx" && xlsxFile == "") {
				t.Skipf("no read-only call known for %s", name)
			}
			run := "run_tool"
			if _, ok := call["agent"]; ok {
				run = "run_agent"
			}
			sc, isErr := callTool(t, cs, run, call)
			if isErr {
				t.Errorf("%s %s: %v", run, name, sc)
			}
		})
	}
}

// firstFile finds a file with the extension under dir, or "".
func firstFile(dir, ext string) string {
	var found string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && found == "" && !d.IsDir() && strings.HasSuffix(p, ext) {
			found = p
		}
		return nil
	})
	return found
}
