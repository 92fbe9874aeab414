package tests

import (
	"bufio"
	"context"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var httpAddrLine = regexp.MustCompile(`addr=(http://\S+/mcp)`)

// startHTTP runs `host serve --http addr` in e and returns its /mcp URL;
// the host is interrupted at the test's end.
func startHTTP(t *testing.T, e *env, addr string) string {
	t.Helper()
	u, _ := serveHTTP(t, e, addr, false)
	return u
}

// serveHTTP runs `host serve --http addr` in e and returns its /mcp URL
// and the process, which the test's end kills (kill) or interrupts.
func serveHTTP(t *testing.T, e *env, addr string, kill bool) (string, *exec.Cmd) {
	t.Helper()
	cmd := e.serveCmd("--http", addr)
	stderr, err := cmd.StderrPipe()
	must(t, err)
	must(t, cmd.Start())
	t.Cleanup(func() {
		if kill {
			_ = cmd.Process.Kill()
		} else {
			_ = cmd.Process.Signal(interrupt)
		}
		_ = cmd.Wait()
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := httpAddrLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case urls <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case u := <-urls:
		return u, cmd
	case <-time.After(60 * time.Second):
		t.Fatal("host serve --http did not say where it listens")
	}
	return "", nil
}

func TestHTTPServe(t *testing.T) {
	e := newEnv(t)
	url := startHTTP(t, e, "127.0.0.1:0")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "go-http", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	must(t, err)
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_tool", Arguments: map[string]any{"tool": "testtool", "action": "echo", "args": map[string]any{"text": "http"}}})
	if err != nil || res.IsError {
		t.Fatalf("run_tool over HTTP: %v %+v", err, res)
	}
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{}`))
	req.Header.Set("Origin", "https://evil.example")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Origin: got %v %v, want 403", resp, err)
	}
}

func TestHTTPOffLoopbackNeedsToken(t *testing.T) {
	e := newEnv(t)
	out, err := e.serveCmd("--http", "0.0.0.0:0").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "HOST_HTTP_TOKEN") {
		t.Fatalf("serving off loopback without a token: err %v, output:\n%s", err, out)
	}
}

// interrupt stops `host serve` the way a terminal does.
var interrupt = syscall.SIGINT
