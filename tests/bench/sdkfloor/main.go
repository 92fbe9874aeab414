// Command sdkfloor is a bare go-sdk MCP server over stdio with one tool,
// run_tool, that answers its arguments' "args" object at once: no filter,
// no dispatch, no plugin. BenchmarkHostSpeed drives it with the same lean
// client as `host serve`, so its CPU per call is the SDK's own floor for
// one tools/call on this machine in the same run.
package main

import (
	"context"
	"encoding/json"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	server := mcp.NewServer(&mcp.Implementation{Name: "sdkfloor", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{
		Name:        "run_tool",
		Description: "Echoes the arguments' args object.",
		InputSchema: json.RawMessage(`{"type":"object"}`),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Args json.RawMessage `json:"args"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || len(in.Args) == 0 {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "run_tool: arguments need an args object"}}}, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(in.Args)}}, StructuredContent: in.Args}, nil
	})
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
