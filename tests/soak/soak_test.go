//go:build unix

// Package soak drives `host serve` with a mixed concurrent load through a
// real MCP client for SOAK_DURATION (default 3s in `make test`; `make soak`
// runs minutes) and checks every answer, that the plugin process is reused
// rather than leaked, and that the host exits cleanly with no plugin left.
package soak

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/testplugin"
)

func buildHost(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	bin := filepath.Join(t.TempDir(), "bin", "host")
	cmd := exec.Command("go", "build", "-o", bin, "./host")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build host: %v\n%s", err, out)
	}
	return bin
}

// call is one kind of request in the mix and the answer it must get.
type call struct {
	tool     string
	args     map[string]any
	wantCode string // "" means success
	check    func(map[string]any) error
}

func mix() []call {
	return []call{
		{tool: "run_tool", args: map[string]any{"tool": "testtool", "action": "echo", "args": map[string]any{"text": "soak"}},
			check: func(m map[string]any) error {
				if m["text"] != "soak" {
					return fmt.Errorf("echo answered %v", m)
				}
				return nil
			}},
		{tool: "run_tool", args: map[string]any{"tool": "testtool", "action": "slow", "args": map[string]any{"ms": 30}}},
		{tool: "run_tool", args: map[string]any{"tool": "testtool", "action": "panic"}, wantCode: "internal_error"},
		{tool: "run_tool", args: map[string]any{"tool": "testtool", "action": "big", "args": map[string]any{"bytes": 60000}}, wantCode: "result_too_large"},
		{tool: "run_tool", args: map[string]any{"tool": "testtool", "action": "echo", "args": map[string]any{"text": "x", "max_results": 1}}, wantCode: "invalid_args"},
		{tool: "run_tool", args: map[string]any{"tool": "testtool", "action": "delete-thing", "args": map[string]any{"text": "x"}}, wantCode: "approval_required"},
		{tool: "run_tool", args: map[string]any{"tool": "testtool", "action": "garbage"}},
		{tool: "capabilities", args: map[string]any{"search": "echo"}},
	}
}

func errorCode(res *mcp.CallToolResult) string {
	m, _ := res.StructuredContent.(map[string]any)
	if e, ok := m["error"].(map[string]any); ok {
		code, _ := e["code"].(string)
		return code
	}
	return ""
}

func TestSoak(t *testing.T) {
	duration := 3 * time.Second
	if d, err := time.ParseDuration(os.Getenv("SOAK_DURATION")); err == nil {
		duration = d
	}
	host := buildHost(t)
	plugins := t.TempDir()
	testplugin.Install(t, plugins, "1")
	// Enough room that the mix never meets busy: this soak is about
	// correctness under load, not the bound (tested in the supervisor).
	m, _ := os.ReadFile(filepath.Join(plugins, "testtool", "tool.yaml"))
	os.WriteFile(filepath.Join(plugins, "testtool", "tool.yaml"), []byte(strings.Replace(string(m), "concurrency: 2", "concurrency: 8", 1)), 0o644)

	state := t.TempDir()
	testplugin.Approve(t, plugins, state)

	cmd := exec.Command(host, "serve")
	cmd.Env = append(os.Environ(), "HOST_PLUGIN_PATH="+plugins, "HOST_SKILL_PATH="+t.TempDir(),
		"XDG_CACHE_HOME="+t.TempDir(), "XDG_STATE_HOME="+state, "HOST_LOG_LEVEL=warn")
	ctx, cancel := context.WithTimeout(context.Background(), duration+2*time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "soak", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pidOf := func() int {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "run_tool", Arguments: map[string]any{"tool": "testtool", "action": "env"}})
		if err != nil || res.IsError {
			t.Fatalf("env: %v %v", err, res)
		}
		var out struct{ PID int }
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
		return out.PID
	}
	pid := pidOf()
	rssStart := rssKB(cmd.Process.Pid)

	var done, failures atomic.Int64
	var firstFailure sync.Once
	deadline := time.Now().Add(duration)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			plan := mix()
			for i := w; time.Now().Before(deadline); i++ {
				c := plan[i%len(plan)]
				res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
				done.Add(1)
				var problem error
				switch {
				case err != nil:
					problem = fmt.Errorf("protocol error: %w", err)
				case errorCode(res) != c.wantCode:
					problem = fmt.Errorf("%v: got code %q, want %q: %v", c.args, errorCode(res), c.wantCode, res.StructuredContent)
				case c.check != nil:
					problem = c.check(res.StructuredContent.(map[string]any))
				}
				if problem != nil {
					failures.Add(1)
					firstFailure.Do(func() { t.Errorf("soak: %v", problem) })
				}
			}
		}()
	}
	wg.Wait()
	if after := pidOf(); after != pid {
		t.Errorf("the plugin was relaunched during the soak (pid %d → %d): nothing in the mix should kill it", pid, after)
	}
	t.Logf("soak: %d calls in %s, %d failures; host RSS %d kB → %d kB, plugin RSS %d kB",
		done.Load(), duration, failures.Load(), rssStart, rssKB(cmd.Process.Pid), rssKB(pid))
	if err := session.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	gone := time.Now().Add(15 * time.Second)
	for syscall.Kill(pid, 0) == nil && time.Now().Before(gone) {
		time.Sleep(50 * time.Millisecond)
	}
	if syscall.Kill(pid, 0) == nil {
		t.Errorf("plugin %d still running after the host exited", pid)
	}
}

// rssKB reads a process's resident set size from /proc (0 when unknown).
func rssKB(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int
			fmt.Sscanf(strings.TrimSpace(v), "%d", &kb)
			return kb
		}
	}
	return 0
}
