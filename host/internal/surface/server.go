package surface

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/host/internal/dispatch"
	"github.com/toolhost/toolhost/host/internal/mcpproto"
	"github.com/toolhost/toolhost/host/internal/toolresult"
	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/sdk/wire"
)

// ServerName is the serverInfo name of a curated surface's server, e.g.
// "toolhost-chat".
func ServerName(d *Declaration) string { return "toolhost-" + d.Surface }

// Options configure NewServer. Declaration and Runner are required.
type Options struct {
	Declaration *Declaration
	// Resolved are the declaration's tools as Resolve found them; every
	// declared tool must be there (a blocking finding stops the server).
	Resolved []*Resolved
	Runner   dispatch.CallRunner
	// Version is the host's version, reported in serverInfo.
	Version string
	// Logger receives the server's and the SDK's logs (default: none).
	Logger hclog.Logger
}

// NewServer builds the curated surface's MCP server: exactly the declared
// tools, tools only (no prompts or resources), each dispatched through
// Runner like run_tool, with no *_confirmed twin.
func NewServer(opts Options) (*mcpproto.Server, error) {
	d := opts.Declaration
	if len(opts.Resolved) != len(d.Tools) {
		return nil, fmt.Errorf("surface %s: %d of %d published tools resolved: run `host surface check`", d.Surface, len(opts.Resolved), len(d.Tools))
	}
	var srv *mcpproto.Server
	tools := make([]mcpproto.Tool, len(opts.Resolved))
	for i, r := range opts.Resolved {
		tools[i] = mcpproto.Tool{Tool: r.MCPTool(), Handler: handler(d.Surface, r, opts.Runner, func() *mcpproto.Server { return srv })}
	}
	title := d.Title
	if title == "" {
		title = ServerName(d)
	}
	srv = mcpproto.New(mcpproto.Options{Name: ServerName(d), Title: title, Version: opts.Version,
		Instructions: d.Instructions, Tools: tools, Logger: opts.Logger})
	return srv, nil
}

// handler checks a call against the published args (so an arg the surface
// does not offer is refused even when the action has it), adds the fixed
// args, and runs the action through the host's call path.
func handler(surface string, r *Resolved, run dispatch.CallRunner, srv func() *mcpproto.Server) mcp.ToolHandler {
	published := &manifests.Action{Name: r.Name, Args: r.Args}
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := published.Check(req.Params.Arguments)
		if err != nil {
			env := dispatch.InvalidArgs(r.Name, err)
			env.NextStep = fmt.Sprintf("call %s with the args its input schema lists", r.Name)
			return toolresult.Of(dispatch.Fail(env)), nil
		}
		for k, v := range r.Fixed {
			args[k] = v
		}
		raw, err := json.Marshal(args)
		if err != nil {
			return toolresult.Of(dispatch.Fail(&wire.Error{Code: wire.CodeInternalError, Message: "encode args"})), nil
		}
		out := run.Run(ctx, dispatch.Call{Kind: manifests.KindTool, Name: r.ToolName, Action: r.Action.Name, Args: raw,
			Caller: srv().Caller(req), Surface: surface}, mcpproto.ProgressSender(ctx, req))
		return toolresult.Of(out), nil
	}
}
