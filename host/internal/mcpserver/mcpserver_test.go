package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/host/internal/dispatch"
	"github.com/toolhost/toolhost/host/internal/mcpproto"
	"github.com/toolhost/toolhost/internal/rpctest"
	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// pinnedDigest is today's tools digest. A change to the six tools' names,
// descriptions, schemas or annotations changes it: update it deliberately,
// in a reviewed commit, because clients and gateways pin it.
const pinnedDigest = "134c875b907810105b54124c0b9652f3f6ed85dfc2a0b980d6d790e212fba735"

const fixtureManifest = `name: sheets
kind: tool
description: A fixture tool with sheet actions.
version: 1.0.0
entrypoint: sheets
actions:
  - name: read-sheet
    description: Read one sheet.
    read_only: true
    args:
      - {name: path, type: string, required: true, description: The file}
      - {name: max-results, type: integer, minimum: 1}
  - name: delete-sheet
    description: Delete a sheet.
    args:
      - {name: path, type: string, required: true}
`

// fakeRunner records calls; block, when set, is waited on (or the call's
// context) before answering; cancelled, when set, receives once the call's
// context ends first.
type fakeRunner struct {
	mu        sync.Mutex
	calls     []dispatch.Call
	progress  int
	block     chan struct{}
	started   chan struct{}
	cancelled chan struct{}
}

func (f *fakeRunner) Run(ctx context.Context, call dispatch.Call, onProgress func(*wire.Progress)) dispatch.Outcome {
	f.mu.Lock()
	f.calls = append(f.calls, call)
	n, block, started, cancelled := f.progress, f.block, f.started, f.cancelled
	f.mu.Unlock()
	for i := range n {
		if onProgress != nil {
			onProgress(&wire.Progress{Progress: float64(i), Message: "step"})
		}
	}
	if started != nil {
		started <- struct{}{}
	}
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
			if cancelled != nil {
				cancelled <- struct{}{}
			}
			return dispatch.Fail(&wire.Error{Code: wire.CodeCancelled, Message: "cancelled"})
		}
	}
	b, _ := json.Marshal(map[string]any{"ran": call.Name + " " + call.Action})
	return dispatch.Outcome{JSON: b}
}

func (f *fakeRunner) lastCall(t *testing.T) dispatch.Call {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		t.Fatal("the runner was not called")
	}
	return f.calls[len(f.calls)-1]
}

func newTestServer(t testing.TB, r dispatch.CallRunner) *Server {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sheets")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tool.yaml"), []byte(fixtureManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sheets"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	reg := registry.New(registry.Options{PluginDirs: []string{filepath.Dir(dir)}})
	if snap := reg.Scan(); len(snap.Tools) != 1 || len(snap.Broken) > 0 {
		t.Fatalf("fixture not loaded: %+v", snap.Broken)
	}
	if r == nil {
		r = &fakeRunner{}
	}
	return New(Options{Registry: reg, Runner: r, Version: "test"})
}

// wireSession drives a server over the stdio transport with raw lines
// (rpctest, the one JSON-RPC test driver).
type wireSession struct {
	*rpctest.Conn
	done chan error
}

func startWire(t *testing.T, s *Server) *wireSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ws := &wireSession{Conn: rpctest.New(t, inW, outR), done: make(chan error, 1)}
	go func() {
		ws.done <- s.Run(context.Background(), &mcpproto.StdioTransport{In: inR, Out: outW, Versions: s.Versions()})
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close() })
	return ws
}

func errCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":%q,"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"modern-test","version":"2.0"}}`

func TestBadLinesAreAnsweredAndServingGoesOn(t *testing.T) {
	ws := startWire(t, newTestServer(t, nil))
	ws.Initialize("wire-test")
	tests := []struct {
		name string
		line string
		code float64
		id   any
	}{
		{"not JSON", `{"jsonrpc":"2.0","id":1,"method":`, -32700, nil},
		{"plain garbage", `garbage from somewhere`, -32700, nil},
		{"trailing data", `{"jsonrpc":"2.0","id":2,"method":"ping"} x`, -32700, nil},
		{"batch", `[{"jsonrpc":"2.0","id":3,"method":"ping"}]`, -32600, nil},
		{"not a message", `{"hello":"world"}`, -32600, nil},
		{"unknown method", `{"jsonrpc":"2.0","id":4,"method":"no/such"}`, -32601, float64(4)},
		{"params of the wrong type", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":7}}`, -32602, float64(5)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ws.Call(tt.line)
			if got := errCode(r); got != tt.code {
				t.Fatalf("got %v, want error %v", r, tt.code)
			}
			if r["id"] != tt.id {
				t.Errorf("id: got %v, want %v", r["id"], tt.id)
			}
			if pong := ws.Call(`{"jsonrpc":"2.0","id":"after","method":"ping"}`); pong["error"] != nil {
				t.Fatalf("the server stopped serving after %s: %v", tt.name, pong)
			}
		})
	}
}

func TestModernVersionNotListedGets32022(t *testing.T) {
	s := newTestServer(t, nil)
	ws := startWire(t, s)
	tests := []struct {
		version string
		want    float64 // 0: success
	}{
		{"1900-01-01", -32022},
		{"2099-01-01", -32022},
		{"2026-07-27", -32022},
		{"2026-07-28", 0},
	}
	for i, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			r := ws.Call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{`+modernMeta+`}}`, i, tt.version))
			if got := errCode(r); got != tt.want {
				t.Fatalf("got %v, want code %v", r, tt.want)
			}
			if tt.want == 0 {
				return
			}
			data := r["error"].(map[string]any)["data"].(map[string]any)
			if data["requested"] != tt.version {
				t.Errorf("requested: got %v, want %s", data["requested"], tt.version)
			}
			var supported []string
			for _, v := range data["supported"].([]any) {
				supported = append(supported, v.(string))
			}
			if diff := cmp.Diff(s.Versions(), supported); diff != "" {
				t.Errorf("supported (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInitializeAnswersAListedLegacyVersion(t *testing.T) {
	tests := []struct{ requested, want string }{
		{"2099-01-01", "2025-11-25"},
		{"2026-07-28", "2025-11-25"},
		{"1900-01-01", "2025-11-25"},
		{"2025-06-18", "2025-06-18"},
		{"2024-11-05", "2024-11-05"},
	}
	for _, tt := range tests {
		t.Run(tt.requested, func(t *testing.T) {
			s := newTestServer(t, nil)
			ws := startWire(t, s)
			r := ws.Call(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{}}}`, tt.requested))
			got := r["result"].(map[string]any)["protocolVersion"]
			if got != tt.want {
				t.Fatalf("got %v, want %s", got, tt.want)
			}
			if !slices.Contains(s.Versions(), tt.want) {
				t.Fatalf("%s is not in the server's list %v", tt.want, s.Versions())
			}
		})
	}
}

func TestDiscoverThenInitialize(t *testing.T) {
	runner := &fakeRunner{}
	s := newTestServer(t, runner)
	fresh := startWire(t, s).Call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cc","version":"1"}}}`)

	ws := startWire(t, s)
	d := ws.Call(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + fmt.Sprintf(modernMeta, "2026-07-28") + `}}`)
	res, _ := d["result"].(map[string]any)
	if res == nil {
		t.Fatalf("discover: %v", d)
	}
	if got := res["_meta"].(map[string]any)[mcpproto.DigestMetaKey]; got != s.ToolsDigest() {
		t.Errorf("discover digest: got %v, want %s", got, s.ToolsDigest())
	}
	init := ws.Call(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cc","version":"1"}}}`)
	if init["error"] != nil {
		t.Fatalf("initialize after discover: %v", init["error"])
	}
	if diff := cmp.Diff(fresh["result"], init["result"]); diff != "" {
		t.Errorf("initialize after discover differs from a fresh one (-fresh +after):\n%s", diff)
	}
	ws.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r := ws.Call(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet"}}}`)
	if r["error"] != nil {
		t.Fatalf("legacy call after discover+initialize: %v", r["error"])
	}
	c := runner.lastCall(t)
	if c.Caller.GetClientName() != "cc" || c.Caller.GetRequestId() != "3" {
		t.Errorf("caller: got %v", c.Caller)
	}
	dup := ws.Call(`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
	if dup["error"] == nil {
		t.Errorf("a second initialize was accepted: %v", dup)
	}
}

func TestCallerReachesTheRunner(t *testing.T) {
	tests := []struct {
		name, line             string
		client, version, reqID string
		confirmed              bool
	}{
		{"legacy", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet"}}}`,
			"wire-test", "9.9", "7", false},
		{"modern", `{"jsonrpc":"2.0","id":"m-1","method":"tools/call","params":{` + fmt.Sprintf(modernMeta, "2026-07-28") + `,"name":"run_tool_confirmed","arguments":{"tool":"sheets","action":"delete-sheet"}}}`,
			"modern-test", "2.0", "m-1", true},
		{"a client calling itself host-cli stays mcp", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{` + strings.Replace(fmt.Sprintf(modernMeta, "2026-07-28"), "modern-test", "host-cli", 1) + `,"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"channel":"terminal"}}}}`,
			"host-cli", "2.0", "9", false},
		{"spoofed request id is overwritten", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"_meta":{"toolhost/requestId":"evil"},"name":"run_tool","arguments":{"tool":"sheets"}}}`,
			"wire-test", "9.9", "8", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runner := &fakeRunner{}
			ws := startWire(t, newTestServer(t, runner))
			ws.Initialize("wire-test")
			if r := ws.Call(tt.line); r["error"] != nil {
				t.Fatal(r["error"])
			}
			c := runner.lastCall(t)
			// The channel is the host's: an MCP call is never "terminal".
			got := []any{c.Caller.GetClientName(), c.Caller.GetClientVersion(), c.Caller.GetRequestId(), c.Confirmed, c.Caller.GetChannel()}
			want := []any{tt.client, tt.version, tt.reqID, tt.confirmed, "mcp"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("caller (-want +got):\n%s", diff)
			}
		})
	}
}

func TestToolInputMistakesAnswerThemselves(t *testing.T) {
	tests := []struct {
		name, args string
		code       string
		didYouMean string
	}{
		{"tool args at the top level", `{"tool":"sheets","action":"read-sheet","path":"f.xlsx"}`, "invalid_args", ""},
		{"misspelt field", `{"tool":"sheets","acton":"read-sheet"}`, "invalid_args", "action"},
		{"no tool", `{"action":"read-sheet"}`, "invalid_args", ""},
		{"wrong type", `{"tool":5}`, "invalid_args", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runner := &fakeRunner{}
			ws := startWire(t, newTestServer(t, runner))
			ws.Initialize("wire-test")
			r := ws.Call(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_tool","arguments":` + tt.args + `}}`)
			res := r["result"].(map[string]any)
			if res["isError"] != true {
				t.Fatalf("got %v, want isError", res)
			}
			env := res["structuredContent"].(map[string]any)["error"].(map[string]any)
			if env["code"] != tt.code {
				t.Errorf("code: got %v, want %s", env["code"], tt.code)
			}
			if tt.didYouMean != "" && !strings.Contains(fmt.Sprint(env["did_you_mean"]), tt.didYouMean) {
				t.Errorf("did_you_mean: got %v, want %s", env["did_you_mean"], tt.didYouMean)
			}
			text := res["content"].([]any)[0].(map[string]any)["text"].(string)
			var same map[string]any
			if err := json.Unmarshal([]byte(text), &same); err != nil || !cmp.Equal(same, res["structuredContent"]) {
				t.Errorf("content text and structuredContent differ: %s", text)
			}
			if len(runner.calls) != 0 {
				t.Errorf("the runner was called: %v", runner.calls)
			}
		})
	}
}

func TestProgressBecomesNotifications(t *testing.T) {
	runner := &fakeRunner{progress: 3}
	ws := startWire(t, newTestServer(t, runner))
	ws.Initialize("wire-test")
	ws.Send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"tok"},"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet"}}}`)
	var progress []float64
	for {
		m := ws.Next()
		if m["method"] == "notifications/progress" {
			p := m["params"].(map[string]any)
			if p["progressToken"] != "tok" {
				t.Errorf("token: got %v", p["progressToken"])
			}
			progress = append(progress, p["progress"].(float64))
			continue
		}
		if m["id"] == float64(1) {
			break
		}
	}
	if diff := cmp.Diff([]float64{0, 1, 2}, progress); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
}

func TestCancelledReachesTheCall(t *testing.T) {
	runner := &fakeRunner{block: make(chan struct{}), started: make(chan struct{}, 1), cancelled: make(chan struct{}, 1)}
	ws := startWire(t, newTestServer(t, runner))
	ws.Initialize("wire-test")
	ws.Send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet"}}}`)
	<-runner.started
	ws.Send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}`)
	// The plugin call itself must see the cancel: its context ends while
	// block is never closed. (A generous bound, only so that a host that
	// drops the cancel fails here instead of hanging the run.)
	select {
	case <-runner.cancelled:
	case <-time.After(2 * time.Minute):
		t.Fatal("the MCP request was cancelled but the runner's context never ended")
	}
	// The call's context is cancelled, so the runner returns; the server
	// answers or drops the call, and goes on serving either way.
	for _, line := range ws.Exchange(`{"jsonrpc":"2.0","id":2,"method":"ping"}`) {
		if strings.HasPrefix(line, `{"jsonrpc":"2.0","id":1,`) && !strings.Contains(line, `"isError":true`) {
			t.Fatalf("the cancelled call succeeded: %s", line)
		}
	}
}

func TestEndOfInputAnswersCallsInFlight(t *testing.T) {
	runner := &fakeRunner{block: make(chan struct{}), started: make(chan struct{}, 1)}
	ws := startWire(t, newTestServer(t, runner))
	ws.Initialize("wire-test")
	ws.Send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet"}}}`)
	<-runner.started
	ws.Close() // the client closes stdin with the call in flight
	close(runner.block)
	r := ws.Next()
	if r["id"] != float64(1) || r["result"] == nil {
		t.Fatalf("got %v, want the answer to call 1", r)
	}
	if err := <-ws.done; err != nil {
		t.Fatalf("Run: %v", err)
	}
}

func TestToolsDigest(t *testing.T) {
	s := newTestServer(t, nil)
	if got := s.ToolsDigest(); got != pinnedDigest {
		t.Errorf("tools digest: got %s, want %s\nthe six tools' published definitions changed: if that is deliberate, update pinnedDigest", got, pinnedDigest)
	}
	// The digest is over the array tools/list actually publishes.
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "digest-test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := mcpproto.Digest(list.Tools)
	if err != nil {
		t.Fatal(err)
	}
	if got != s.ToolsDigest() {
		t.Errorf("digest of tools/list: got %s, want %s", got, s.ToolsDigest())
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.OutputSchema != nil {
			t.Errorf("%s declares an outputSchema", tool.Name)
		}
	}
	want := []string{"capabilities", "get_skill", "run_agent", "run_agent_confirmed", "run_tool", "run_tool_confirmed"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}
