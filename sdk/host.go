package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"google.golang.org/grpc/metadata"

	"github.com/toolhost/toolhost/sdk/wire"
)

// Host lets an agent call other tools through the host, under the host's
// gate: an irreversible action needs confirmed=true, which the host grants
// only when the agent's own call was confirmed.
type Host interface {
	// Call runs tool's action with args (marshalled to a JSON object) and
	// returns its result; a tool's failure comes back as an *Error. ctx is
	// the handler's context (or derived from it): the host runs a nested
	// call only within the call whose request gave this Host, and a
	// confirmed one only with that call's context.
	Call(ctx context.Context, tool, action string, args any, confirmed bool) (*Result, error)
}

// Host returns the host client for an agent's call, or nil when the plugin
// was not given one (plain tools, CLI mode).
func (r *Request) Host() Host {
	if r.host == nil {
		return nil
	}
	return r.host
}

// hostClient is the Host over the wire's Host service.
type hostClient struct {
	client wire.HostClient
	caller Caller
}

// callKey is the context key of the host broker id of the call a
// handler's context belongs to.
type callKey struct{}

// Call implements Host. The nested call names the agent's call that ctx
// belongs to (wire.NestedCallKey): the host runs it only on that call's own
// Host service, so a host client kept from one call and used in another
// is refused, and a confirmed nested call needs the confirmed call's ctx.
func (h *hostClient) Call(ctx context.Context, tool, action string, args any, confirmed bool) (*Result, error) {
	if id, ok := ctx.Value(callKey{}).(uint32); ok {
		ctx = metadata.AppendToOutgoingContext(ctx, wire.NestedCallKey, strconv.FormatUint(uint64(id), 10))
	}
	raw := []byte("{}")
	if args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			return nil, fmt.Errorf("sdk: host call %s %s: marshal args: %w", tool, action, err)
		}
		raw = b
	}
	stream, err := h.client.Call(ctx, &wire.HostCallRequest{Tool: tool, Action: action, ArgsJson: raw, Confirmed: confirmed})
	if err != nil {
		return nil, fmt.Errorf("sdk: host call %s %s: %w", tool, action, err)
	}
	for {
		ev, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("sdk: host call %s %s: stream ended without a result", tool, action)
		}
		if err != nil {
			return nil, fmt.Errorf("sdk: host call %s %s: %w", tool, action, err)
		}
		if res := ev.GetResult(); res != nil {
			if res.GetError() != nil {
				return nil, ErrorFromWire(res.GetError())
			}
			var data map[string]any
			if err := json.Unmarshal(res.GetJson(), &data); err != nil {
				return nil, fmt.Errorf("sdk: host call %s %s: decode result: %w", tool, action, err)
			}
			return &Result{Data: data, Markdown: res.GetMarkdown()}, nil
		}
	}
}

// CodeNeedsHost is an agent's answer when it runs without the host (run
// by hand, in CLI mode): it composes other tools, which only the host runs.
const CodeNeedsHost Code = "needs_host"

// CodeUnexpectedResult is the answer when a nested call's data has a shape
// the caller does not understand (plugins of different releases).
const CodeUnexpectedResult Code = "unexpected_result"

// NeedHost returns the host client for an agent's call or, without one
// (the plugin run by hand in CLI mode), the needs_host error: agent is the
// plugin's name, run the `host call …` line that runs it.
func (r *Request) NeedHost(agent, run string) (Host, error) {
	if h := r.Host(); h != nil {
		return h, nil
	}
	return nil, &Error{Code: CodeNeedsHost, Message: agent + " composes other tools and runs only through the host",
		NextStep: "run it with `" + run + "` or the run_agent MCP tool"}
}

// CallData runs tool's action through h, decodes its result's data into
// dst (a pointer) and returns the result. A tool's own failure comes back
// as its *Error, with its code and next step; data that dst cannot hold is
// an unexpected_result *Error naming the call.
func CallData(ctx context.Context, h Host, tool, action string, args, dst any) (*Result, error) {
	res, err := h.Call(ctx, tool, action, args, false)
	if err != nil {
		var se *Error
		if errors.As(err, &se) {
			return nil, se
		}
		return nil, fmt.Errorf("%s %s: %w", tool, action, err)
	}
	b, err := json.Marshal(res.Data)
	if err == nil {
		err = json.Unmarshal(b, dst)
	}
	if err != nil {
		return nil, &Error{Code: CodeUnexpectedResult,
			Message:  fmt.Sprintf("%s %s answered a shape this plugin does not understand: %v", tool, action, err),
			NextStep: "check that the plugins are of the same release (`host list`)"}
	}
	return res, nil
}
