package sdk

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"sort"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/toolhost/toolhost/sdk/wire"
)

// sdkName identifies this SDK in Describe.
const sdkName = "toolhost-go-sdk/1"

// Resident reports whether the host launched this process to serve calls
// (not plugin CLI mode): a plugin may then keep work running between calls,
// such as a file watcher.
func Resident() bool { return servedByHost() }

// servedByHost reports whether the host started this process (the go-plugin
// magic cookie is present).
func servedByHost() bool {
	return os.Getenv(wire.Handshake.MagicCookieKey) == wire.Handshake.MagicCookieValue
}

// serve serves p over go-plugin until the host stops the process.
func serve(p Plugin) {
	logger := hclog.New(&hclog.LoggerOptions{
		Name:       "plugin",
		Output:     os.Stderr,
		JSONFormat: true,
		Level:      hclog.Info,
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if p.Start != nil {
		go func() {
			defer func() {
				if r := recover(); r != nil {
					logger.Error("start hook panicked", "panic", fmt.Sprint(r))
				}
			}()
			p.Start(ctx)
		}()
	}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: wire.Handshake,
		Plugins:         wire.PluginMap(&server{plugin: p}),
		GRPCServer:      plugin.DefaultGRPCServer,
		Logger:          logger,
	})
}

// server implements wire.PluginServer over a Plugin.
type server struct {
	wire.UnimplementedPluginServer
	plugin Plugin
	broker *plugin.GRPCBroker
}

var _ wire.PluginServer = (*server)(nil)

// SetBroker receives go-plugin's broker, used to reach the host client.
func (s *server) SetBroker(b *plugin.GRPCBroker) { s.broker = b }

// Describe lists the implemented actions, sorted.
func (s *server) Describe(context.Context, *wire.DescribeRequest) (*wire.DescribeResponse, error) {
	return &wire.DescribeResponse{Actions: actionNames(s.plugin), Sdk: sdkName}, nil
}

// Call runs one action, streaming progress then the result.
func (s *server) Call(in *wire.CallRequest, stream grpc.ServerStreamingServer[wire.CallEvent]) error {
	var mu sync.Mutex
	send := func(ev *wire.CallEvent) error {
		mu.Lock()
		defer mu.Unlock()
		return stream.Send(ev)
	}
	req := &Request{Action: in.GetAction(), Args: in.GetArgsJson(), Caller: callerFromWire(in.GetCaller())}
	req.progress = func(p Progress) {
		_ = send(&wire.CallEvent{Event: &wire.CallEvent_Progress{Progress: &wire.Progress{
			Progress: p.Progress, Total: p.Total, Message: p.Message}}})
	}
	ctx := stream.Context()
	if id := in.GetHostBrokerId(); id != 0 && s.broker != nil {
		conn, err := s.broker.Dial(id)
		if err != nil {
			return send(resultEvent(nil, Errorf(CodeInternalError, "connect to the host client: %v", err)))
		}
		defer conn.Close()
		req.host = &hostClient{client: wire.NewHostClient(conn), caller: req.Caller}
		ctx = context.WithValue(ctx, callKey{}, id)
	}
	res, err := dispatch(ctx, s.plugin, req)
	return send(resultEvent(res, err))
}

// panicked turns r, a panic recovered from a plugin author's code, into
// the internal_error the host answers with, and logs it with its stack: an
// author's bug never takes the plugin down. what names what failed
// ("action read", "writing the result").
func panicked(r any, what string) *Error {
	Logger().Error(what+" panicked", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
	return Errorf(CodeInternalError, "%s failed unexpectedly: %v", what, r)
}

// dispatch finds the handler and runs it, turning panics into
// internal_error results and context ends into cancelled/timeout.
func dispatch(ctx context.Context, p Plugin, req *Request) (res *Result, err error) {
	h, ok := p.Actions[req.Action]
	if !ok {
		return nil, &Error{Code: CodeUnknownAction, Message: fmt.Sprintf("unknown action %q", req.Action),
			Details: map[string]any{"actions": actionNames(p)}}
	}
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, panicked(r, "action "+req.Action)
		}
	}()
	res, err = h(ctx, req)
	if err == nil && res == nil {
		res = &Result{Data: map[string]any{}}
	}
	if err != nil && ctx.Err() != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return nil, Errorf(CodeTimeout, "action %s ran out of time", req.Action)
		}
		return nil, Errorf(CodeCancelled, "action %s was cancelled", req.Action)
	}
	return res, err
}

// resultEvent encodes a handler's outcome as the final stream event.
func resultEvent(res *Result, err error) *wire.CallEvent {
	return &wire.CallEvent{Event: &wire.CallEvent_Result{Result: encodeResult(res, err)}}
}

// encodeResult turns a handler's outcome into a wire result; a Data that does
// not marshal to a JSON object is an internal_error.
func encodeResult(res *Result, err error) *wire.Result {
	if err == nil {
		data := res.Data
		if data == nil {
			data = map[string]any{}
		}
		if jw, ok := data.(JSONWriter); ok {
			b, werr := encodeStreamed(jw)
			if werr == nil {
				return &wire.Result{Json: b, Markdown: res.Markdown}
			}
			return &wire.Result{Error: ErrorToWire(AsError(werr))}
		}
		b, merr := json.Marshal(data)
		if merr == nil && (len(b) == 0 || b[0] != '{') {
			merr = fmt.Errorf("result is %s, not a JSON object", firstBytes(b, 20))
		}
		if merr == nil {
			return &wire.Result{Json: b, Markdown: res.Markdown}
		}
		err = Errorf(CodeInternalError, "encode result: %v", merr)
	}
	return &wire.Result{Error: ErrorToWire(AsError(err))}
}

func firstBytes(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// ErrorToWire converts an *Error to its wire form.
func ErrorToWire(e *Error) *wire.ErrorEnvelope { return e.Envelope() }

// ErrorFromWire converts a wire error envelope to an *Error.
func ErrorFromWire(w *wire.ErrorEnvelope) *Error { return wire.ErrorFrom(w) }

func callerFromWire(c *wire.Caller) Caller {
	if c == nil {
		return Caller{ClientName: "unknown", Channel: ChannelMCP}
	}
	return Caller{
		ClientName:     c.GetClientName(),
		ClientVersion:  c.GetClientVersion(),
		RequestID:      c.GetRequestId(),
		Confirmed:      c.GetConfirmed(),
		Agent:          c.GetAgent(),
		MaxResultBytes: int(c.GetMaxResultBytes()),
		Channel:        channelFromWire(c.GetChannel()),
	}
}

// channelFromWire maps the wire's channel to Caller.Channel: anything but
// "terminal" (an older host sends "") is an MCP call.
func channelFromWire(c string) string {
	if c == ChannelTerminal {
		return ChannelTerminal
	}
	return ChannelMCP
}

func actionNames(p Plugin) []string {
	names := make([]string, 0, len(p.Actions))
	for n := range p.Actions {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
