package mcpbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/sdk/wire"
)

// Run is the bridge's main (`EXE Arg`): it starts the server its Config
// describes and serves it to the host over go-plugin until the host stops
// it. It returns the process's exit code.
func Run() int {
	logger := hclog.New(&hclog.LoggerOptions{Name: "mcp-bridge", Output: os.Stderr, JSONFormat: true, Level: hclog.Info})
	var c Config
	if err := json.Unmarshal([]byte(os.Getenv(ConfigEnv)), &c); err != nil {
		logger.Error("no bridge configuration: the host starts the bridge", "env", ConfigEnv, "error", err)
		return 2
	}
	b := &bridge{logger: logger, changed: make(chan struct{}, 1), calls: map[*call]struct{}{}}
	ctx := context.Background()
	s, err := Start(ctx, c, Hooks{ToolsChanged: b.toolsChanged,
		Elicit: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			var r mcp.ElicitResult
			return &r, b.toHost(ctx, "elicitation/create", p, &r)
		},
		Sample: func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			var r mcp.CreateMessageResult
			return &r, b.toHost(ctx, "sampling/createMessage", p, &r)
		}})
	if err != nil {
		logger.Error("the MCP server did not start", "error", err)
		return 1
	}
	tools, err := s.Tools(ctx)
	if err != nil {
		logger.Error("the MCP server did not list its tools", "error", err)
		return 1
	}
	b.server, b.tools = s, tools
	go b.recheck()
	go func() {
		// The server exited on its own: so does the bridge, and the host
		// sees a crash.
		_ = s.session.Wait()
		logger.Error("the MCP server exited")
		os.Exit(1)
	}()
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: wire.Handshake,
		Plugins:         wire.PluginMap(b),
		GRPCServer:      plugin.DefaultGRPCServer,
		Logger:          logger,
	})
	return 0
}

// bridge serves one MCP server as a go-plugin plugin.
type bridge struct {
	wire.UnimplementedPluginServer
	logger hclog.Logger
	server *Server

	mu    sync.Mutex
	tools []manifests.MCPTool // as listed at start, which the host checked
	// changed hears the server's list_changed notifications, which may
	// come before the first listing is done.
	changed chan struct{}

	broker *plugin.GRPCBroker
	// calls are the tools/calls running, whose Host service (the host's
	// broker id) takes the server's requests of the client.
	callsMu sync.Mutex
	calls   map[*call]struct{}
}

// call is one tools/call running through the bridge.
type call struct {
	action string
	hostID uint32
}

// SetBroker is given go-plugin's broker, through which the bridge reaches
// the Host service of each call.
func (b *bridge) SetBroker(broker *plugin.GRPCBroker) { b.broker = broker }

// toHost passes one of the server's requests of the client (params, MCP's
// JSON) to the Host service of the call it belongs to and decodes the
// answer into result. Over stdio a request does not say which call it
// belongs to: it is passed on only while exactly one call runs, so an
// answer can never come from the person or model of another call.
func (b *bridge) toHost(ctx context.Context, method string, params, result any) error {
	b.callsMu.Lock()
	var only *call
	for c := range b.calls {
		only = c
	}
	n := len(b.calls)
	b.callsMu.Unlock()
	switch {
	case n == 0:
		return fmt.Errorf("%s came while no tool call was running: a hosted server may ask only during a call", method)
	case n > 1:
		return fmt.Errorf("%s came while %d calls of this server were running, and a request over stdio does not say which call it belongs to: refused rather than asking the person or model of another call", method, n)
	case only.hostID == 0 || b.broker == nil:
		return fmt.Errorf("%s: the host serves no client to this call of %s", method, only.action)
	}
	conn, err := b.broker.Dial(only.hostID)
	if err != nil {
		return fmt.Errorf("%s: connect to the host: %w", method, err)
	}
	defer conn.Close()
	raw, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	host := wire.NewHostClient(conn)
	var res *wire.ClientResponse
	if method == "elicitation/create" {
		res, err = host.Elicit(ctx, &wire.ClientRequest{ParamsJson: raw})
	} else {
		res, err = host.Sample(ctx, &wire.ClientRequest{ParamsJson: raw})
	}
	if err != nil {
		// The host's reason, as the server should see it.
		if st, ok := status.FromError(err); ok && st.Code() == codes.FailedPrecondition {
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: st.Message()}
		}
		return fmt.Errorf("%s: %w", method, err)
	}
	if err := json.Unmarshal(res.GetResultJson(), result); err != nil {
		return fmt.Errorf("%s: the client's answer: %w", method, err)
	}
	return nil
}

// toolsChanged notes the server's notifications/tools/list_changed.
func (b *bridge) toolsChanged() {
	select {
	case b.changed <- struct{}{}:
	default:
	}
}

// recheck lists the tools again each time the server says they changed:
// definitions other than those listed at start (which the host compared
// with the approval) were never approved, so the bridge stops, and the
// host's next launch names the changes and refuses them.
func (b *bridge) recheck() {
	for range b.changed {
		now, err := b.server.Tools(context.Background())
		if err != nil {
			b.logger.Error("the MCP server's tools could not be listed again after list_changed; stopping", "error", err)
			os.Exit(1)
		}
		b.mu.Lock()
		diff := manifests.DiffMCPTools(b.tools, now)
		b.mu.Unlock()
		if len(diff) > 0 {
			b.logger.Error("the MCP server's tool definitions changed while it ran; stopping so the host checks them against the approval",
				"changes", strings.Join(diff, "; "))
			os.Exit(3)
		}
	}
}

// Describe lists the server's tools.
func (b *bridge) Describe(context.Context, *wire.DescribeRequest) (*wire.DescribeResponse, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return &wire.DescribeResponse{Actions: sortedNames(b.tools), Sdk: "toolhost-mcp-bridge/1"}, nil
}

// Call runs one tool (or answers ToolsAction), streaming the server's
// progress, then the result.
func (b *bridge) Call(in *wire.CallRequest, stream grpc.ServerStreamingServer[wire.CallEvent]) error {
	var mu sync.Mutex
	send := func(ev *wire.CallEvent) error {
		mu.Lock()
		defer mu.Unlock()
		return stream.Send(ev)
	}
	result := func(r *wire.Result) error { return send(&wire.CallEvent{Event: &wire.CallEvent_Result{Result: r}}) }
	ctx := stream.Context()
	if in.GetAction() == ToolsAction {
		tools, err := b.server.Tools(ctx)
		if err != nil {
			return result(wire.Failure(wire.CodeInternalError, err.Error(), ""))
		}
		raw, _ := json.Marshal(map[string]any{"tools": tools})
		return result(&wire.Result{Json: raw})
	}
	c := &call{action: in.GetAction(), hostID: in.GetHostBrokerId()}
	b.callsMu.Lock()
	b.calls[c] = struct{}{}
	b.callsMu.Unlock()
	defer func() {
		b.callsMu.Lock()
		delete(b.calls, c)
		b.callsMu.Unlock()
	}()
	res, err := b.server.Call(ctx, in.GetAction(), in.GetArgsJson(), func(p *mcp.ProgressNotificationParams) {
		_ = send(&wire.CallEvent{Event: &wire.CallEvent_Progress{Progress: &wire.Progress{Progress: p.Progress, Total: p.Total, Message: p.Message}}})
	})
	if err != nil {
		switch {
		case ctx.Err() == context.DeadlineExceeded:
			return result(wire.Failure(wire.CodeTimeout, fmt.Sprintf("%s ran out of time", in.GetAction()), ""))
		case ctx.Err() != nil:
			return result(wire.Failure(wire.CodeCancelled, fmt.Sprintf("%s was cancelled", in.GetAction()), ""))
		}
		return result(wire.Failure(wire.CodeInternalError, fmt.Sprintf("tools/call %s: %v", in.GetAction(), err), ""))
	}
	return result(ToResult(res))
}

// CodeToolError is the code of a result the MCP server marked isError.
const CodeToolError wire.Code = "tool_error"

// ToResult turns a tools/call result into the host's: its structured
// content as the JSON when the server gave an object, else its content
// blocks as {"content": [...]}; its text blocks as the Markdown; isError
// as a tool_error carrying the text.
func ToResult(r *mcp.CallToolResult) *wire.Result {
	var texts []string
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	text := strings.Join(texts, "\n\n")
	if r.IsError {
		if text == "" {
			text = "the tool failed without saying why"
		}
		return wire.Failure(CodeToolError, text, "")
	}
	if r.StructuredContent != nil {
		if raw, err := json.Marshal(r.StructuredContent); err == nil && len(raw) > 0 && raw[0] == '{' {
			return &wire.Result{Json: raw, Markdown: text}
		}
	}
	content := r.Content
	if content == nil {
		content = []mcp.Content{}
	}
	raw, err := json.Marshal(map[string]any{"content": content})
	if err != nil {
		return wire.Failure(wire.CodeInternalError, fmt.Sprintf("encode the result: %v", err), "")
	}
	return &wire.Result{Json: raw, Markdown: text}
}
