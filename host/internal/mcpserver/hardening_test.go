package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/host/internal/dispatch"
	"github.com/toolhost/toolhost/host/internal/mcpproto"
	"github.com/toolhost/toolhost/internal/rpctest"
	"github.com/toolhost/toolhost/sdk/wire"
)

// startRawWire serves s on the stdio transport and returns its input and
// its output lines undecoded (ids are compared as the bytes written).
func startRawWire(t *testing.T, s *Server, stop <-chan struct{}) (*io.PipeWriter, <-chan string, <-chan error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := rpctest.New(t, inW, outR)
	done := make(chan error, 1)
	go func() {
		done <- s.Run(context.Background(), &mcpproto.StdioTransport{In: inR, Out: outW, Versions: s.Versions(), Stop: stop})
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close() })
	return inW, c.Lines(), done
}

const initRaw = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func TestIDsRoundTripExactly(t *testing.T) {
	runner := &fakeRunner{}
	in, lines, _ := startRawWire(t, newTestServer(t, runner), nil)
	io.WriteString(in, initRaw+"\n")
	<-lines
	for _, id := range []string{`1.5`, `1e30`, `9007199254740993`, `-0`, `1E2`, `"x\"y"`, `0`, `-7`} {
		io.WriteString(in, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"a"}}}}`+"\n")
		got := <-lines
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(got), &m); err != nil || string(m["id"]) != id {
			t.Errorf("sent id %s, answer %s", id, got)
		}
		want := id
		var s string
		if json.Unmarshal([]byte(id), &s) == nil {
			want = s
		}
		if c := runner.lastCall(t); c.Caller.GetRequestId() != want {
			t.Errorf("id %s: the runner saw request id %q, want %q", id, c.Caller.GetRequestId(), want)
		}
	}
}

func TestDuplicateIDsInFlightAreBothAnswered(t *testing.T) {
	runner := &fakeRunner{block: make(chan struct{}), started: make(chan struct{}, 2)}
	in, lines, done := startRawWire(t, newTestServer(t, runner), nil)
	io.WriteString(in, initRaw+"\n")
	<-lines
	call := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"a"}}}}` + "\n"
	io.WriteString(in, call)
	io.WriteString(in, call)
	<-runner.started
	<-runner.started
	in.Close() // end of input with both in flight
	close(runner.block)
	n := 0
	for l := range lines {
		if strings.HasPrefix(l, `{"jsonrpc":"2.0","id":9,"result"`) {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d answers to the two calls with id 9, want 2", n)
	}
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}

func TestCallBeforeInitializeHasACode(t *testing.T) {
	ws := startWire(t, newTestServer(t, nil))
	r := ws.Call(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if errCode(r) != -32600 {
		t.Errorf("tools/list before initialize: got %v, want code -32600", r)
	}
}

func TestStopAnswersCallsInFlightThenEnds(t *testing.T) {
	runner := &fakeRunner{block: make(chan struct{}), started: make(chan struct{}, 1)}
	stop := make(chan struct{})
	in, lines, done := startRawWire(t, newTestServer(t, runner), stop)
	io.WriteString(in, initRaw+"\n")
	<-lines
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"a"}}}}`+"\n")
	<-runner.started
	close(stop) // SIGTERM: input stays open, the call is in flight
	close(runner.block)
	if l := <-lines; !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":1,"result"`) || strings.Contains(l, `"isError":true`) {
		t.Errorf("after Stop: got %s, want the call's answer", l)
	}
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}

// badRunner answers with a raw structured content the SDK cannot encode.
type badRunner struct{ json string }

func (b badRunner) Run(context.Context, dispatch.Call, func(*wire.Progress)) dispatch.Outcome {
	return dispatch.Outcome{JSON: json.RawMessage(b.json)}
}

// TestUnencodableResultIsAnswered: go-sdk drops an answer it cannot
// encode, and the host then never ended at end of input.
func TestUnencodableResultIsAnswered(t *testing.T) {
	for _, body := range []string{`{"a":`, "{\"a\":\"\xff\"}"} {
		in, lines, done := startRawWire(t, newTestServer(t, badRunner{body}), nil)
		io.WriteString(in, initRaw+"\n")
		<-lines
		io.WriteString(in, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"a"}}}}`+"\n")
		in.Close()
		l := <-lines
		if !strings.Contains(l, `"id":2,"error":{"code":-32603`) {
			t.Errorf("result %q: got %s, want a -32603 answer", body, l)
		}
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}
}

func TestHTTPBatchAndNullParams(t *testing.T) {
	h := newTestServer(t, nil).HTTPHandler("")
	tests := []struct {
		name, body string
		status     int
		want       string
	}{
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, http.StatusBadRequest, `"code":-32600`},
		{"params null", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":null}`, http.StatusOK, `"id":2`},
		{"_meta null", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":null,"name":"capabilities"}}`, http.StatusOK, `"id":3,"result"`},
		{"id 1.5", `{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"capabilities"}}`, http.StatusOK, `"id":1.5,"result"`},
		{"id 2^53+1", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, http.StatusOK, `"id":9007199254740993,"result"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.status || !strings.Contains(rec.Body.String(), tt.want) {
				t.Errorf("got %d %s, want %d with %s", rec.Code, rec.Body.String(), tt.status, tt.want)
			}
		})
	}
}

// TestEveryMethodSurvivesNullParams sends every method the server knows
// with params null, _meta null and other nil-map shapes, before and after
// initialize, as calls and as notifications: each call is answered (none
// with code 0) and the session ends cleanly at end of input.
func TestEveryMethodSurvivesNullParams(t *testing.T) {
	methods := []string{"initialize", "ping", "tools/call", "tools/list", "server/discover", "resources/list", "resources/read",
		"resources/templates/list", "resources/subscribe", "prompts/list", "prompts/get", "completion/complete", "logging/setLevel",
		"notifications/initialized", "notifications/cancelled", "notifications/progress", "notifications/roots/list_changed"}
	params := []string{`null`, `{"_meta":null}`, `{"_meta":null,"name":null,"arguments":null}`, `[]`, `1`, `"x"`,
		`{"name":"run_tool","arguments":{"tool":null,"args":null},"_meta":{"progressToken":null}}`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":null,"io.modelcontextprotocol/clientInfo":null}}`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"capabilities","arguments":null}`}
	srv := newTestServer(t, nil)
	for _, initFirst := range []bool{false, true} {
		var in bytes.Buffer
		if initFirst {
			in.WriteString(initRaw + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
		}
		id := 100
		for _, m := range methods {
			for _, p := range params {
				id++
				fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, m, p)
				fmt.Fprintf(&in, `{"jsonrpc":"2.0","method":%q,"params":%s}`+"\n", m, p)
			}
		}
		in.WriteString(`{"jsonrpc":"2.0","id":"last","method":"ping"}` + "\n")
		input := in.Bytes()
		var out bytes.Buffer
		if err := srv.Run(context.Background(), &mcpproto.StdioTransport{In: bytes.NewReader(input), Out: &out, Versions: srv.Versions()}); err != nil {
			t.Fatalf("initialized=%v: Run: %v", initFirst, err)
		}
		// Cancellations name no call in flight here, so every call is owed
		// an answer.
		checkAnswers(t, input, out.Bytes(), false)
	}
}
