package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callClient is the dispatch.Client of one tools/call: what a hosted MCP
// server (protocol: mcp) may ask of the client during the call. Its
// elicitation reaches the person only the way the gate's own question
// does — through the call's personGate, mid-call — and is refused, saying
// why, wherever the gate could not ask either; its sampling request (which
// the server's bridge sends only when the manifest allows it) goes to a
// client that declared sampling, on a connection that carries requests.
type callClient struct {
	req    *mcp.CallToolRequest
	person *personGate
}

// errModernEra: a client of the 2026-07-28 protocol takes no request from
// the server in the middle of a call, and a hosted server's question comes
// in the middle of the host's.
const errModernEra = "the MCP client (%s) speaks the 2026-07-28 protocol, which carries the server's questions only in a tool's input_required result, and a hosted server asks in the middle of its call"

// Elicit implements dispatch.Client.
func (c *callClient) Elicit(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	switch {
	case c.person == nil:
		return nil, fmt.Errorf("nobody can be asked: %s", noPerson(c.req))
	case c.person.modern:
		return nil, fmt.Errorf("nobody can be asked: "+errModernEra, clientName(c.req))
	}
	var p mcp.ElicitParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, fmt.Errorf("mcp: elicitation/create from a hosted server: %w", err)
	}
	if p.Mode != "" && p.Mode != "form" {
		return nil, fmt.Errorf("the host offers hosted servers form elicitation only, not %q", p.Mode)
	}
	res, err := c.person.ask(ctx, &p)
	if err != nil {
		return nil, fmt.Errorf("mcp: elicitation/create to the client: %w", err)
	}
	return json.Marshal(res)
}

// Sample implements dispatch.Client.
func (c *callClient) Sample(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	if why := noRequests(c.req); why != "" {
		return nil, errors.New(why)
	}
	if _, modern := c.req.Params.GetMeta()[mcp.MetaKeyProtocolVersion]; modern {
		return nil, fmt.Errorf(errModernEra, clientName(c.req))
	}
	if caps := c.req.ClientCapabilities(); caps == nil || caps.Sampling == nil {
		return nil, fmt.Errorf("the MCP client (%s) did not declare the sampling capability, so it cannot answer the server's sampling request", clientName(c.req))
	}
	var p mcp.CreateMessageParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, fmt.Errorf("mcp: sampling/createMessage from a hosted server: %w", err)
	}
	res, err := c.req.Session.CreateMessage(ctx, &p)
	if err != nil {
		return nil, fmt.Errorf("mcp: sampling/createMessage to the client: %w", err)
	}
	return json.Marshal(res)
}
