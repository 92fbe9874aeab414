package mcpserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestHTTPChecks(t *testing.T) {
	srv := httptest.NewServer(newTestServer(t, nil).HTTPHandler("secret"))
	defer srv.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`
	modern := `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`
	tests := []struct {
		name   string
		header map[string]string
		want   int
		body   string
	}{
		{"no token", nil, http.StatusUnauthorized, ""},
		{"wrong token", map[string]string{"Authorization": "Bearer nope"}, http.StatusUnauthorized, ""},
		{"foreign origin", map[string]string{"Authorization": "Bearer secret", "Origin": "https://evil.example"}, http.StatusForbidden, ""},
		{"loopback origin", map[string]string{"Authorization": "Bearer secret", "Origin": "http://localhost:3000"}, http.StatusOK, ""},
		{"no origin", map[string]string{"Authorization": "Bearer secret"}, http.StatusOK, ""},
		{"unlisted modern version", map[string]string{"Authorization": "Bearer secret"}, http.StatusBadRequest, modern},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := body
			if tt.body != "" {
				b = tt.body
			}
			req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(b))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("got %d, want %d", resp.StatusCode, tt.want)
			}
		})
	}
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func TestHTTPClientCallsRunTool(t *testing.T) {
	runner := &fakeRunner{}
	srv := httptest.NewServer(newTestServer(t, runner).HTTPHandler("secret"))
	defer srv.Close()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "3"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{"secret"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_tool", Arguments: map[string]any{"tool": "sheets", "action": "read-sheet"}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	c := runner.lastCall(t)
	if c.Caller.GetClientName() != "http-test" || c.Caller.GetRequestId() == "" {
		t.Errorf("caller: got %v", c.Caller)
	}
}
