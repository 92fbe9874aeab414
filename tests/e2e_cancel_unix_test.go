//go:build unix

package tests

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// TestCancelReachesNestedCall: cancelling the outer MCP request (run_agent)
// cancels the call the agent made through the host — the nested plugin
// itself sees its context end (testtool hold reports ctx.Err() on a named
// pipe), in both protocol eras.
func TestCancelReachesNestedCall(t *testing.T) {
	for _, era := range []struct{ name, version string }{{"legacy", "2025-11-25"}, {"modern", ""}} {
		t.Run(era.name, func(t *testing.T) {
			e := newEnv(t)
			holdLonger(t, e)
			testplugin.InstallAgent(t, e.plugins)
			fifo := filepath.Join(t.TempDir(), "hold")
			must(t, syscall.Mkfifo(fifo, 0o600))
			cs := goClient(t, e, era.version, nil)

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			returned := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_agent", Arguments: map[string]any{
					"agent": "testagent", "action": "relay",
					"args": map[string]any{"tool": "testtool", "action": "hold", "args": map[string]any{"fifo": fifo}}}})
				returned <- err
			}()
			next := pipeLines(t, fifo, "the nested call")
			if got := next("its start", returned); got != "started" {
				t.Fatalf("got %q, want started", got)
			}
			cancel() // the client gives up at once and tells the host (notifications/cancelled)
			if got := next("its context's end", nil); got != context.Canceled.Error() {
				t.Fatalf("the nested plugin saw %q, want %q", got, context.Canceled)
			}
		})
	}
}

// holdLonger raises testtool's call limit (5s) to ten minutes in e, so
// that on a loaded machine the manifest's deadline cannot end a hold call
// before the cancellation under test does (the plugin would then report
// "context deadline exceeded"). serveCmd approves the changed manifest.
func holdLonger(t *testing.T, e *env) {
	t.Helper()
	p := filepath.Join(e.plugins, "testtool", "tool.yaml")
	m, err := os.ReadFile(p)
	must(t, err)
	if !strings.Contains(string(m), "timeout: 5s") {
		t.Fatalf("%s: no \"timeout: 5s\" to raise", p)
	}
	must(t, os.WriteFile(p, []byte(strings.Replace(string(m), "timeout: 5s", "timeout: 10m", 1)), 0o644))
}

// pipeLines reads the lines the hold action writes to fifo (its start, then
// its context's end) and returns a function that waits for the next one,
// failing the test when who closes the pipe or the call returns first.
func pipeLines(t *testing.T, fifo, who string) func(what string, returned <-chan error) string {
	lines := make(chan string)
	go func() {
		defer close(lines)
		f, err := os.Open(fifo) // blocks until the plugin opens it
		if err != nil {
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return func(what string, returned <-chan error) string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("%s closed its pipe before %s", who, what)
			}
			return l
		case err := <-returned:
			t.Fatalf("the call returned (%v) before %s", err, what)
		case <-time.After(90 * time.Second): // a hang guard, not a speed bound
			t.Fatalf("no %s from %s", what, who)
		}
		return ""
	}
}
