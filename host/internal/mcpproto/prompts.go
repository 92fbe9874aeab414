package mcpproto

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The prompts capability follows what the plugins contribute: while none
// does (SetContentCapabilities(false, …)) the server declares no prompts
// capability (in initialize and server/discover) and answers every
// prompts/* method with -32601, as for any method it does not implement.
// A server that declared nothing but answered prompts/list anyway told a
// client two different things (the conformance suite's
// sep-2575-server-declares-prompts-in-discover). Whoever publishes prompts
// registers them on the SDK server (MCP().AddPrompt, so server/discover
// declares them) and calls SetContentCapabilities(true, …).

// undeclaredMethod answers a method of a capability the server does not
// declare with -32601 (nil when the method is served).
func (s *Server) undeclaredMethod(_ context.Context, method string) error {
	if strings.HasPrefix(method, "prompts/") && !s.prompts.Load() {
		return &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
			Message: "Method not found: " + method + " (this server publishes no prompts; it declares the prompts capability when a plugin contributes some)"}
	}
	return nil
}
