package mcpproto

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestEncodeResultAgreesWithTheSDK: an answer encoded by encodeResult is
// byte for byte what the general path writes (the SDK's
// jsonrpc.EncodeMessage, then withWireID), and what it leaves to the
// general path is what that path refuses or encodes differently.
func TestEncodeResultAgreesWithTheSDK(t *testing.T) {
	tid, _ := jsonrpc.MakeID(float64(42))
	for _, result := range []string{
		`{}`,
		`{"content":[{"type":"text","text":"{\"echo\":\"bench\"}"}],"structuredContent":{"echo":"bench"}}`,
		`{"content":[{"type":"text","text":"<a&b> \u2028 é"}],"isError":true}`,
		" { \"a\" : [1, 2,\n\t3] , \"b\":\"  spaced  \" } ",
		`null`, `[]`, `7`, `"s"`,
	} {
		for _, wireID := range []string{`1`, `"a\"b"`, `1e30`, `-7`, `""`, ``} {
			want, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: tid, Result: json.RawMessage(result)})
			if err != nil {
				t.Fatal(err)
			}
			want = withWireID(want, tid, json.RawMessage(wireID))
			buf, ok := encodeResult(json.RawMessage(wireID), json.RawMessage(result), false)
			if !ok {
				t.Errorf("result %s, id %s: left to the general path", result, wireID)
				continue
			}
			if got := buf.String(); got != string(want) {
				t.Errorf("result %s, id %s:\n got %s\nwant %s", result, wireID, got, want)
			}
			putLineBuffer(buf)
			// The fast path's own encoding (compact and valid) goes on
			// the line as it is, to the same bytes.
			var compact bytes.Buffer
			if err := json.Compact(&compact, []byte(result)); err != nil {
				t.Fatal(err)
			}
			buf, _ = encodeResult(json.RawMessage(wireID), compact.Bytes(), true)
			if got := buf.String(); got != string(want) {
				t.Errorf("compact result %s, id %s:\n got %s\nwant %s", compact.Bytes(), wireID, got, want)
			}
			putLineBuffer(buf)
		}
	}
	for _, result := range []string{``, `{`, `{"a":}`} {
		if _, ok := encodeResult(json.RawMessage(`1`), json.RawMessage(result), false); ok {
			t.Errorf("result %q: encoded, want it left to the general path", result)
		}
	}
}
