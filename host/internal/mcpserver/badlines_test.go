package mcpserver

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// answerTo reads lines until the one answering id (raw JSON), failing on
// any line that is not valid JSON in valid UTF-8.
func answerTo(t *testing.T, lines <-chan string, id string) map[string]json.RawMessage {
	t.Helper()
	for l := range lines {
		if !utf8.ValidString(l) || !json.Valid([]byte(l)) {
			t.Fatalf("the host wrote a line that is not valid JSON: %q", l)
		}
		var m map[string]json.RawMessage
		_ = json.Unmarshal([]byte(l), &m)
		if string(m["id"]) == id {
			return m
		}
	}
	t.Fatalf("no answer with id %s", id)
	return nil
}

// errorCode is an answer's JSON-RPC error code and message.
func errorCode(t *testing.T, m map[string]json.RawMessage) (int, string) {
	t.Helper()
	var e struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(m["error"], &e); err != nil {
		t.Fatalf("answer %v is not an error", m)
	}
	return e.Code, e.Message
}

// TestIDThatIsNotUTF8IsAnsweredInValidJSON: an id holding bytes that are
// not UTF-8 is refused -32600 with "id": null — echoing it would put a
// line that is not JSON on stdout — and serving goes on.
func TestIDThatIsNotUTF8IsAnsweredInValidJSON(t *testing.T) {
	in, lines, _ := startRawWire(t, newTestServer(t, &fakeRunner{}), nil)
	io.WriteString(in, initRaw+"\n")
	answerTo(t, lines, `"init"`)
	for _, line := range []string{
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"ping\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":\"a\xc3\",\"method\":\"tools/call\",\"params\":{\"name\":\"run_tool\",\"arguments\":{\"tool\":\"sheets\",\"action\":\"read-sheet\",\"args\":{\"path\":\"a\"}}}}",
	} {
		io.WriteString(in, line+"\n")
		code, msg := errorCode(t, answerTo(t, lines, "null"))
		if code != -32600 || !strings.Contains(msg, "UTF-8") {
			t.Errorf("%q answered %d %q, want -32600 naming UTF-8", line, code, msg)
		}
	}
	io.WriteString(in, `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
	if m := answerTo(t, lines, "2"); m["result"] == nil {
		t.Errorf("ping after the bad ids: %v", m)
	}
}

// TestDeepLineIsAnsweredUnderItsID: a request nested deeper than the SDK
// decodes — below and beyond encoding/json's own limit — is an invalid
// request answered -32600 under its id (it comes first in the line), not
// a parse error with "id": null.
func TestDeepLineIsAnsweredUnderItsID(t *testing.T) {
	in, lines, _ := startRawWire(t, newTestServer(t, &fakeRunner{}), nil)
	io.WriteString(in, initRaw+"\n")
	answerTo(t, lines, `"init"`)
	for i, depth := range []int{1500, 9999, 20000} {
		id := []string{`11`, `"deep"`, `13.5`}[i]
		line := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"a","deep":` +
			strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}}}}`
		io.WriteString(in, line+"\n")
		code, msg := errorCode(t, answerTo(t, lines, id))
		if code != -32600 || !strings.Contains(msg, "too deep") {
			t.Errorf("depth %d: answered %d %q, want -32600 saying it nests too deep", depth, code, msg)
		}
	}
	io.WriteString(in, `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
	if m := answerTo(t, lines, "2"); m["result"] == nil {
		t.Errorf("ping after the deep lines: %v", m)
	}
}
