package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/toolhost/toolhost/host/internal/audit"
	"github.com/toolhost/toolhost/sdk/wire"
)

// Client is the MCP client a call came from, as a hosted MCP server
// (protocol: mcp) reaches it during the call through its bridge: params
// and results are MCP's JSON. The MCP server sets one on every tools/call;
// each method answers an error saying why when the client cannot serve the
// request on that call.
type Client interface {
	// Elicit asks the person the server's elicitation/create, the way the
	// gate asks its own question.
	Elicit(ctx context.Context, params json.RawMessage) (json.RawMessage, error)
	// Sample passes the server's sampling/createMessage to the client.
	Sample(ctx context.Context, params json.RawMessage) (json.RawMessage, error)
}

// The MCP methods of a hosted server's requests of its client, as the
// audit log names them.
const (
	MethodElicit = "elicitation/create"
	MethodSample = "sampling/createMessage"
)

// served is what a call's context carries to the Host service of the
// plugin it runs: how to ask the person, the client, and the action.
type served struct {
	ask    Asker
	client Client
	call   Call
	action string
}

type servedKey struct{}

// withCall gives the plugin's Host service during ctx's call the call's
// Asker and Client, and what to audit.
func withCall(ctx context.Context, call Call, action string) context.Context {
	return context.WithValue(ctx, servedKey{}, served{ask: call.Ask, client: call.Client, call: call, action: action})
}

// servedFrom returns what withCall gave ctx.
func servedFrom(ctx context.Context) served {
	s, _ := ctx.Value(servedKey{}).(served)
	return s
}

// Elicit implements wire.HostServer: a hosted MCP server's question, passed
// to the person through the client of the call, and audited.
func (h *hostServer) Elicit(ctx context.Context, in *wire.ClientRequest) (*wire.ClientResponse, error) {
	return h.forward(ctx, MethodElicit, in)
}

// Sample implements wire.HostServer: a hosted MCP server's sampling
// request, which its bridge sends only when the manifest allows it, passed
// to the client of the call, and audited.
func (h *hostServer) Sample(ctx context.Context, in *wire.ClientRequest) (*wire.ClientResponse, error) {
	return h.forward(ctx, MethodSample, in)
}

// forward passes one request to the call's client and records it in the
// audit log: "ok" with the person's action for an elicitation, or why it
// could not be served.
func (h *hostServer) forward(ctx context.Context, method string, in *wire.ClientRequest) (*wire.ClientResponse, error) {
	var (
		out json.RawMessage
		err error
	)
	switch c := h.served.client; {
	case c == nil:
		err = fmt.Errorf("the call of %s did not come from an MCP client that takes requests (it came from the terminal's `host call`, or through a curated surface), so there is nobody to pass %s to", h.agent, method)
	case method == MethodElicit:
		out, err = c.Elicit(ctx, in.GetParamsJson())
	default:
		out, err = c.Sample(ctx, in.GetParamsJson())
	}
	h.auditRequest(method, out, err)
	if err != nil {
		return nil, status.Error(codes.FailedPrecondition, err.Error())
	}
	return &wire.ClientResponse{ResultJson: out}, nil
}

// auditRequest records a hosted server's request of the client: the call
// it came during, the method, and its outcome — "ok", the person's
// elicitation action ("accept", "decline", "cancel"), or "refused".
func (h *hostServer) auditRequest(method string, out json.RawMessage, err error) {
	if h.d.Audit == nil {
		return
	}
	outcome := "ok"
	if err != nil {
		outcome = "refused"
	} else if method == MethodElicit {
		var r struct {
			Action string `json:"action"`
		}
		if json.Unmarshal(out, &r) == nil && r.Action != "" {
			outcome = r.Action
		}
	}
	e := audit.Entry{Time: time.Now().UTC(), Subject: h.served.call.Subject, Client: "unknown", Tool: h.agent, Action: h.served.action,
		Args: []string{}, Confirmed: h.caller.GetConfirmed(), Request: method, Outcome: outcome}
	if err != nil {
		e.Reason = err.Error()
	}
	if c := h.caller; c != nil {
		if c.GetClientName() != "" {
			e.Client = c.GetClientName()
		}
		e.ClientVersion, e.Agent = c.GetClientVersion(), c.GetAgent()
	}
	h.d.Audit(e)
}
