package mcpproto

import (
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestDecodeRequestAgreesWithTheSDK: every line decodeRequest accepts
// decodes to exactly what the SDK's jsonrpc.DecodeMessage gives, and every
// line it leaves to the SDK is one the SDK refuses or one that is not a
// request, so the fast path changes no answer.
func TestDecodeRequestAgreesWithTheSDK(t *testing.T) {
	deep := `{"jsonrpc":"2.0","id":1,"method":"ping","params":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`
	for _, tc := range []struct {
		line string
		fast bool // decodeRequest takes it
		id   string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"t"}}}`, true, `1`},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, true, `1.5`},
		{`{"jsonrpc":"2.0","id":-7,"method":"ping"}`, true, `-7`},
		{`{"jsonrpc":"2.0","id":1e30,"method":"ping"}`, true, `1e30`},
		{`{"jsonrpc":"2.0","id":"a\"b","method":"ping"}`, true, `"a\"b"`},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, true, ``},
		{`{"jsonrpc":"2.0","id":null,"method":"notifications/cancelled","params":{"requestId":3}}`, true, ``},
		{`{"jsonrpc":"2.0","id":2,"method":null}`, true, `2`},
		{`{"params":{},"method":"x","id":"z","jsonrpc":"2.0"}`, true, `"z"`},
		{`{"jsonrpc":"2.0","id":1,"Method":"ping"}`, false, ``},       // names match exactly, as in the SDK: no method, so a response
		{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, false, ``},       // refused by the SDK
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, false, ``},    // refused by the SDK
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, false, ``}, // refused by the SDK
		{`{"jsonrpc":"2.0","id":1,"method":5}`, false, ``},            // refused by the SDK
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, false, ``},           // a response
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}`, false, ``},
		{deep, false, ``}, // over the SDK's nesting bound
	} {
		req, wireID, err := decodeRequest([]byte(tc.line))
		if (err == nil) != tc.fast {
			t.Errorf("%s: fast path %v, want %v (err %v)", tc.line, err == nil, tc.fast, err)
			continue
		}
		want, wantErr := jsonrpc.DecodeMessage([]byte(tc.line))
		if !tc.fast {
			if wantReq, ok := want.(*jsonrpc.Request); ok && wantErr == nil {
				t.Errorf("%s: left to the SDK, which decodes it as a request %+v", tc.line, wantReq)
			}
			continue
		}
		if wantErr != nil {
			t.Errorf("%s: the SDK refuses it (%v) but the fast path took it", tc.line, wantErr)
			continue
		}
		if !reflect.DeepEqual(req, want) {
			t.Errorf("%s: fast path %+v, SDK %+v", tc.line, req, want)
		}
		if string(wireID) != tc.id || string(wireID) != string(rawID([]byte(tc.line))) {
			t.Errorf("%s: wire id %s, want %s (rawID %s)", tc.line, wireID, tc.id, rawID([]byte(tc.line)))
		}
	}
}
