package mcpproto

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newEchoServer is a Server publishing one tool, echo.
func newEchoServer(t *testing.T) *Server {
	t.Helper()
	return New(Options{Name: "test", Tools: []Tool{{
		Tool: &mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
		Handler: func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		},
	}}})
}

// modernParams is the _meta a 2026-07-28 request carries, naming version.
func modernParams(version string) string {
	return fmt.Sprintf(`{"_meta":{"io.modelcontextprotocol/protocolVersion":%q,"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}`, version)
}

// post sends one JSON-RPC message to h and returns the HTTP status and the
// decoded answer (the last SSE data line when the answer is a stream).
func post(t *testing.T, url, body string, header map[string]string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	var msg struct {
		Method string `json:"method"`
	}
	if json.Unmarshal([]byte(body), &msg) == nil && msg.Method != "" {
		req.Header.Set("Mcp-Method", msg.Method) // what a 2026-07-28 client sends
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	text := string(raw)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(text, "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				text = d
			}
		}
	}
	var m map[string]any
	if len(strings.TrimSpace(text)) > 0 {
		if err := json.Unmarshal([]byte(text), &m); err != nil {
			t.Fatalf("answer is not JSON: %q", raw)
		}
	}
	return resp.StatusCode, m
}

// errorCode is an answer's JSON-RPC error code, 0 for a result.
func errorCode(m map[string]any) int {
	e, ok := m["error"].(map[string]any)
	if !ok {
		return 0
	}
	c, _ := e["code"].(float64)
	return int(c)
}

func TestHTTPProtocolVersionHeader(t *testing.T) {
	srv := httptest.NewServer(newEchoServer(t).HTTPHandler(""))
	defer srv.Close()
	tests := []struct {
		name, header, meta string
		wantStatus, want   int
	}{
		{"header and _meta agree", "2026-07-28", "2026-07-28", 200, 0},
		{"header differs from _meta", "2026-07-28", "2025-11-25", 400, CodeHeaderMismatch},
		{"header differs, _meta unlisted", "2026-07-28", "1900-01-01", 400, CodeHeaderMismatch},
		{"header missing", "", "2026-07-28", 400, CodeHeaderMismatch},
		{"both name an unlisted version", "1900-01-01", "1900-01-01", 400, CodeUnsupportedProtocolVersion},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := map[string]string{}
			if tt.header != "" {
				h["Mcp-Protocol-Version"] = tt.header
			}
			status, ans := post(t, srv.URL, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":%s}`, i, modernParams(tt.meta)), h)
			if status != tt.wantStatus || errorCode(ans) != tt.want {
				t.Fatalf("got HTTP %d %v, want HTTP %d code %d", status, ans, tt.wantStatus, tt.want)
			}
			if tt.want != 0 && ans["id"] != float64(i) {
				t.Errorf("id: got %v, want %d", ans["id"], i)
			}
		})
	}
}

func TestPromptsOnlyWhenContributed(t *testing.T) {
	s := newEchoServer(t)
	srv := httptest.NewServer(s.HTTPHandler(""))
	defer srv.Close()
	h := map[string]string{"Mcp-Protocol-Version": "2026-07-28"}
	discover := func() map[string]any {
		t.Helper()
		_, ans := post(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":`+modernParams("2026-07-28")+`}`, h)
		res, ok := ans["result"].(map[string]any)
		if !ok {
			t.Fatalf("server/discover: %v", ans)
		}
		return res["capabilities"].(map[string]any)
	}
	listPrompts := func() map[string]any {
		t.Helper()
		_, ans := post(t, srv.URL, `{"jsonrpc":"2.0","id":2,"method":"prompts/list","params":`+modernParams("2026-07-28")+`}`, h)
		return ans
	}

	if caps := discover(); caps["prompts"] != nil {
		t.Errorf("no prompt published: discover declares prompts: %v", caps)
	}
	for _, method := range []string{"prompts/list", "prompts/get"} {
		params := strings.Replace(modernParams("2026-07-28"), "{", `{"name":"x",`, 1)
		_, ans := post(t, srv.URL, `{"jsonrpc":"2.0","id":3,"method":"`+method+`","params":`+params+`}`,
			map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Name": "x"})
		if errorCode(ans) != -32601 {
			t.Errorf("no prompt published: %s answered %v, want -32601", method, ans)
		}
	}

	// What a plugin contributing a prompt does to the server.
	s.AddPrompt(&mcp.Prompt{Name: "notes/ingest"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "ingest"}}}}, nil
	})
	if caps := discover(); caps["prompts"] == nil {
		t.Errorf("a prompt published: discover does not declare prompts: %v", caps)
	}
	ans := listPrompts()
	prompts, _ := ans["result"].(map[string]any)["prompts"].([]any)
	if len(prompts) != 1 || prompts[0].(map[string]any)["name"] != "notes/ingest" {
		t.Errorf("prompts/list: got %v, want notes/ingest", ans)
	}

	s.RemovePrompts("notes/ingest")
	if caps := discover(); caps["prompts"] != nil {
		t.Errorf("last prompt withdrawn: discover still declares prompts: %v", caps)
	}
	if ans := listPrompts(); errorCode(ans) != -32601 {
		t.Errorf("last prompt withdrawn: prompts/list answered %v, want -32601", ans)
	}
}
