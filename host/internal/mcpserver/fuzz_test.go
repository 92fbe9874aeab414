package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolhost/toolhost/host/internal/mcpproto"
)

// fuzzSeeds are whole sessions: the lines that killed or wedged the host
// (issue 9) and ordinary traffic around them.
var fuzzSeeds = []string{
	fuzzInitLine + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"a.xlsx"}}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}`,
	fuzzInitLine + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":null,"name":"capabilities"}}`,
	fuzzInitLine + "\n" + `{"jsonrpc":"2.0","id":1.5,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":1e30,"method":"tools/list"}` + "\n" + `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
	fuzzInitLine + "\n" + `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"capabilities","arguments":{}}}` + "\n" + `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"capabilities","arguments":{"search":"sheet"}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/list"}` + "\n" + `[{"jsonrpc":"2.0","id":4,"method":"ping"}]`,
	fmt.Sprintf(`{"jsonrpc":"2.0","id":"m","method":"tools/call","params":{`+modernMeta+`,"name":"capabilities","arguments":{}}}`, "2026-07-28"),
	fuzzInitLine + "\n" + `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"run_tool","arguments":null,"_meta":{"progressToken":null}}}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":6}}`,
	"not json\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n\n\r\n",
}

const fuzzInitLine = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}`

// mustAnswer returns the raw id of a line the server must answer: a
// JSON-RPC 2.0 request with a string or number id (not one that may park
// or be cancelled).
func mustAnswer(line []byte) (json.RawMessage, bool) {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil || m.JSONRPC != "2.0" || m.Method == nil || len(m.ID) == 0 ||
		!strings.ContainsRune(`"-0123456789`, rune(m.ID[0])) {
		return nil, false
	}
	if *m.Method == "subscriptions/listen" || *m.Method == "resources/subscribe" {
		return nil, false
	}
	return compactJSON(m.ID), true
}

func compactJSON(raw []byte) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// checkAnswers fails when an output line is not one JSON-RPC 2.0 message in
// valid UTF-8, carries a code-0 error or a transport panic, or when a
// request that must be answered was not.
func checkAnswers(t *testing.T, input, output []byte, cancels bool) {
	t.Helper()
	if !utf8.Valid(output) {
		t.Fatalf("output is not valid UTF-8: %q", output)
	}
	answered := map[string]int{}
	for _, l := range bytes.Split(bytes.TrimSuffix(output, []byte("\n")), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  string          `json:"method"`
			Error   *struct {
				Code    int64  `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(l, &m); err != nil || m.JSONRPC != "2.0" {
			t.Fatalf("wrote %q (%v)", l, err)
		}
		if m.Error != nil && (m.Error.Code == 0 || strings.Contains(m.Error.Message, "could not read this message") ||
			strings.Contains(m.Error.Message, "could not handle this request")) {
			t.Fatalf("answered with %q", l)
		}
		if m.Method == "" {
			answered[string(compactJSON(m.ID))]++
		}
	}
	if cancels {
		return // a cancelled call may go unanswered
	}
	want := map[string]int{}
	for _, l := range bytes.Split(input, []byte("\n")) {
		if id, ok := mustAnswer(bytes.TrimSpace(l)); ok {
			want[string(id)]++
		}
	}
	for id, n := range want {
		if answered[id] < n {
			t.Fatalf("%d requests with id %s, %d answers; output:\n%s", n, id, answered[id], output)
		}
	}
}

// FuzzStdioStream runs whole sessions through the server on the stdio
// transport: it never panics, ends at end of input, and answers every
// request under the id it was sent with.
func FuzzStdioStream(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	srv := newTestServer(f, nil)
	f.Fuzz(func(t *testing.T, input []byte) {
		var out bytes.Buffer
		err := srv.Run(context.Background(), &mcpproto.StdioTransport{In: bytes.NewReader(input), Out: &out, Versions: srv.Versions()})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		checkAnswers(t, input, out.Bytes(), bytes.Contains(input, []byte("cancelled")))
	})
}

// FuzzHTTPBody posts arbitrary bodies to the Streamable HTTP handler: it
// never panics, answers every request, and a request's answer carries its
// id exactly.
func FuzzHTTPBody(f *testing.F) {
	for _, s := range fuzzSeeds {
		for _, l := range strings.Split(s, "\n") {
			f.Add([]byte(l))
		}
	}
	h := newTestServer(f, nil).HTTPHandler("")
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code == 0 {
			t.Fatalf("no status for %q", body)
		}
		var out []byte
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream") {
			for _, l := range strings.Split(rec.Body.String(), "\n") {
				if d, ok := strings.CutPrefix(l, "data: "); ok {
					out = append(append(out, d...), '\n')
				}
			}
		} else if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
			out = rec.Body.Bytes()
		}
		checkAnswers(t, nil, out, true)
		id, ok := mustAnswer(bytes.TrimSpace(body))
		if !ok || rec.Code != http.StatusOK || len(out) == 0 {
			return
		}
		lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
		var last struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(lines[len(lines)-1], &last) == nil && last.ID != nil && !bytes.Equal(compactJSON(last.ID), id) {
			t.Fatalf("sent id %s, answered under %s", id, last.ID)
		}
	})
}
