// Package toolresult turns what a call came to (a dispatch.Outcome) into
// the MCP tools/call result, the same way for the generic surface and the
// curated one, so the protocol layer (mcpproto) never knows the domain.
package toolresult

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/host/internal/dispatch"
)

// Of is the result of docs/design.md ("Results"): content text is the
// Markdown when the plugin gave one, else the JSON; structuredContent is
// the JSON object, as it left the plugin (checked there, not again here).
func Of(out dispatch.Outcome) *mcp.CallToolResult {
	body := out.Body()
	text := out.Markdown
	if text == "" || out.IsError() {
		text = string(body)
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: body,
		IsError:           out.IsError(),
	}
}
