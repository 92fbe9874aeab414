package mcpbridge

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/manifests"
)

// TestToResult: a server's structured content is the JSON when it is an
// object, else its content blocks are; text blocks are the Markdown;
// isError is a tool_error carrying the server's text.
func TestToResult(t *testing.T) {
	tests := []struct {
		name                   string
		in                     *mcp.CallToolResult
		json, markdown, errMsg string
	}{
		{"structured", &mcp.CallToolResult{StructuredContent: map[string]any{"sum": 3}, Content: []mcp.Content{&mcp.TextContent{Text: "3"}}},
			`{"sum":3}`, "3", ""},
		{"structured not an object", &mcp.CallToolResult{StructuredContent: []any{1}, Content: []mcp.Content{&mcp.TextContent{Text: "a"}}},
			`{"content":[{"type":"text","text":"a"}]}`, "a", ""},
		{"image", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "here"}, &mcp.ImageContent{MIMEType: "image/png", Data: []byte{1, 2}}}},
			`{"content":[{"type":"text","text":"here"},{"type":"image","mimeType":"image/png","data":"AQI="}]}`, "here", ""},
		{"empty", &mcp.CallToolResult{}, `{"content":[]}`, "", ""},
		{"error", &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no such file"}}}, "", "", "no such file"},
		{"error without text", &mcp.CallToolResult{IsError: true}, "", "", "the tool failed without saying why"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ToResult(tt.in)
			if tt.errMsg != "" {
				if r.GetError().GetCode() != string(CodeToolError) || r.GetError().GetMessage() != tt.errMsg {
					t.Fatalf("got %v, want tool_error %q", r.GetError(), tt.errMsg)
				}
				return
			}
			if r.GetError() != nil || string(r.GetJson()) != tt.json || r.GetMarkdown() != tt.markdown {
				t.Errorf("got json %s markdown %q error %v, want %s %q", r.GetJson(), r.GetMarkdown(), r.GetError(), tt.json, tt.markdown)
			}
		})
	}
}

// TestConfigFor: an interpreter runs the entrypoint, then the manifest's
// args; an executable entrypoint runs itself.
func TestConfigFor(t *testing.T) {
	c := ConfigFor(manifestOf(t, "interpreter: node\nargs: [stdio]\n"), "/run/x/index.js", []string{"PATH=/usr/bin"}, "/work")
	if c.Command != "node" || strings.Join(c.Args, " ") != "/run/x/index.js stdio" || c.Dir != "/work" {
		t.Errorf("with an interpreter: %+v", c)
	}
	c = ConfigFor(manifestOf(t, "args: [-v]\n"), "/run/x/server", nil, "/work")
	if c.Command != "/run/x/server" || strings.Join(c.Args, " ") != "-v" {
		t.Errorf("an executable: %+v", c)
	}
	if _, err := lookPath("node-that-is-not-there", []string{"PATH=" + t.TempDir()}); err == nil || !strings.Contains(err.Error(), "exec_path") {
		t.Errorf("a missing interpreter: %v", err)
	}
}

func manifestOf(t *testing.T, extra string) *manifests.Manifest {
	t.Helper()
	m, err := manifests.ParseBytes("tool.yaml", []byte("name: s\ndescription: d\nprotocol: mcp\nentrypoint: index.js\n"+extra))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
