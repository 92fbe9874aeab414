package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/host/internal/dispatch"
)

// askPerson is the gate's way to the person: for a tools/call on a session
// that can carry a server request mid-call — stdio, where the client's
// initialize declared the elicitation capability (form mode) — it returns
// an Asker that sends elicitation/create and reports an explicit accept.
// Otherwise it returns nil and the gate answers approval_required (the
// *_confirmed flow): over HTTP the host is stateless and a retry may reach
// another replica, and a modern-era request has no session to carry one.
func (s *Server) askPerson(req *mcp.CallToolRequest) dispatch.Asker {
	ss := req.Session
	// A request whose _meta names a protocol version is of the modern era.
	_, modern := req.Params.GetMeta()[mcp.MetaKeyProtocolVersion]
	if ss == nil || (req.Extra != nil && req.Extra.Header != nil) || modern {
		return nil
	}
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return nil
	}
	if e := ip.Capabilities.Elicitation; e.Form == nil && e.URL != nil {
		return nil // url mode only: it cannot show a yes/no question
	}
	return func(ctx context.Context, q dispatch.Question) (bool, error) {
		res, err := ss.Elicit(ctx, &mcp.ElicitParams{
			Mode:            "form",
			Message:         question(q),
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
		})
		if err != nil {
			if s.opts.Logger != nil {
				s.opts.Logger.Warn("elicitation failed; answering approval_required", "tool", q.Tool, "action", q.Action, "error", err)
			}
			return false, fmt.Errorf("mcp: elicit: %w", err)
		}
		return res.Action == "accept", nil
	}
}

// question is the elicitation message: what will run, with which args, and
// why it cannot be undone.
func question(q dispatch.Question) string {
	var b strings.Builder
	if q.Agent != "" {
		fmt.Fprintf(&b, "The agent %s wants to run %s %s.\n", q.Agent, q.Tool, q.Action)
	} else {
		fmt.Fprintf(&b, "Run %s %s?\n", q.Tool, q.Action)
	}
	args, err := json.MarshalIndent(q.Args, "", "  ")
	if err != nil || len(q.Args) == 0 {
		args = []byte("{}")
	}
	fmt.Fprintf(&b, "Args: %s\n", args)
	fmt.Fprintf(&b, "It cannot be undone: %s.\n", q.Why)
	b.WriteString("Accept to run it; decline or cancel and nothing runs.")
	return b.String()
}
