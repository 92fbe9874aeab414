package mcpproto

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// TestAnswersGoOutUnderTheClientsID: whatever order the SDK writes an
// answer's members in, the filter puts the client's id back on it exactly
// and gives a code-less error its code — it does not depend on the SDK's
// byte layout, only goes faster when the layout is go-sdk v1.8.0's.
func TestAnswersGoOutUnderTheClientsID(t *testing.T) {
	tests := []struct {
		name, wireID, sdkLine, wantID string
		wantCode                      int
	}{
		{"the SDK's layout", `1.5`, `{"jsonrpc":"2.0","id":%d,"result":{}}`, `1.5`, 0},
		{"members in another order", `"x\"y"`, `{"result":{"a":1},"id":%d,"jsonrpc":"2.0"}`, `"x\"y"`, 0},
		{"code-less error, SDK layout", `7`, `{"jsonrpc":"2.0","id":%d,"error":{"code":0,"message":"method \"tools/list\" is invalid during session initialization"}}`, `7`, -32600},
		{"code-less error, other order", `1e30`, `{"error":{"code":0,"message":"boom"},"jsonrpc":"2.0","id":%d}`, `1e30`, -32603},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			f := newLineFilter(&out, nil, nil, nil)
			id := f.track("tools/list", json.RawMessage(tt.wireID))
			if err := f.fromSDK([]byte(fmt.Sprintf(tt.sdkLine, id.Raw()) + "\n")); err != nil {
				t.Fatal(err)
			}
			var got struct {
				ID    json.RawMessage `json:"id"`
				Error *wireError      `json:"error"`
			}
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatalf("wrote %q: %v", out.Bytes(), err)
			}
			if string(got.ID) != tt.wantID {
				t.Errorf("wrote %s: id %s, want %s", out.Bytes(), got.ID, tt.wantID)
			}
			if code := 0; got.Error != nil {
				if code = int(got.Error.Code); code != tt.wantCode {
					t.Errorf("wrote %s: code %d, want %d", out.Bytes(), code, tt.wantCode)
				}
			}
			if len(f.pending) != 0 {
				t.Errorf("the answered call is still pending")
			}
		})
	}
}
