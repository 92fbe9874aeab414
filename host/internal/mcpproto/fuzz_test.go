package mcpproto

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzStdioLine feeds arbitrary lines to the stdio transport's reader:
// it never panics, and whatever it answers itself is one valid JSON-RPC
// error line.
func FuzzStdioLine(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_tool","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":5}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1,"method":`,
		`{"hello":1}`, `null`, `"x"`, `{"jsonrpc":"2.0","id":{},"method":"ping"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var out bytes.Buffer
		c := newLineFilter(&out, []string{"2026-07-28", "2025-11-25"}, hclog.NewNullLogger(), nil)
		msg := c.check(line, false)
		if out.Len() == 0 {
			if msg == nil {
				t.Fatalf("line %q was neither passed on nor answered", line)
			}
			return
		}
		if msg != nil {
			t.Fatalf("line %q was both passed on and answered", line)
		}
		if !utf8.Valid(out.Bytes()) {
			t.Fatalf("answered %q with a line that is not UTF-8: %q", line, out.Bytes())
		}
		lines := bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n"))
		if len(lines) != 1 {
			t.Fatalf("answered %q with %d lines", line, len(lines))
		}
		var resp struct {
			JSONRPC string `json:"jsonrpc"`
			Error   *struct {
				Code int64 `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(lines[0], &resp); err != nil || resp.JSONRPC != "2.0" || resp.Error == nil {
			t.Fatalf("answered %q with %q", line, lines[0])
		}
		if resp.Error.Code == jsonrpc.CodeInternalError {
			t.Fatalf("checking %q panicked: %q", line, lines[0])
		}
	})
}
