//go:build unix

package tests

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestHTTPCancelByDisconnect: over stateless HTTP a client cancels a call
// by closing its response stream (2026-07-28: "the server MUST treat a
// client disconnect as cancellation of that request"); the plugin running
// it sees its context end, in both eras. A notifications/cancelled POSTed
// on its own is accepted (202) and changes nothing: no replica can tie it
// to the call.
func TestHTTPCancelByDisconnect(t *testing.T) {
	for _, modern := range []bool{false, true} {
		t.Run(map[bool]string{false: "legacy", true: "modern"}[modern], func(t *testing.T) {
			e := newEnv(t)
			holdLonger(t, e)
			h := startHost(t, e)
			fifo := filepath.Join(t.TempDir(), "hold")
			must(t, syscall.Mkfifo(fifo, 0o600))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			returned := make(chan error, 1)
			go func() {
				call := rpcCall{modern: modern, id: 7, method: "tools/call", params: map[string]any{"name": "run_tool",
					"arguments": map[string]any{"tool": "testtool", "action": "hold", "args": map[string]any{"fifo": fifo}}}}
				client := &http.Client{Transport: ctxTransport{ctx}}
				_, _, err := call.post(t, client, h.url)
				returned <- err
			}()
			next := pipeLines(t, fifo, "the plugin")
			if got := next("its start", returned); got != "started" {
				t.Fatalf("got %q, want started", got)
			}
			note, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": 7}})
			req, _ := http.NewRequest(http.MethodPost, h.url, strings.NewReader(string(note)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			resp, err := http.DefaultClient.Do(req)
			must(t, err)
			resp.Body.Close()
			if resp.StatusCode != http.StatusAccepted {
				t.Errorf("a lone notifications/cancelled: HTTP %d, want 202", resp.StatusCode)
			}
			cancel() // the client gives up: its connection closes
			if got := next("its context's end", nil); got != context.Canceled.Error() {
				t.Fatalf("the plugin saw %q, want %q", got, context.Canceled)
			}
		})
	}
}

// ctxTransport sends every request with ctx, so ending ctx closes the
// connection mid-answer.
type ctxTransport struct{ ctx context.Context }

func (c ctxTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return (&http.Transport{DisableKeepAlives: true}).RoundTrip(r.WithContext(c.ctx))
}
