package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/toolhost/toolhost/sdk/wire"
)

// Host lets an agent call other tools through the host, under the host's
// gate: an irreversible action needs confirmed=true, which the host grants
// only when the agent's own call was confirmed.
type Host interface {
	// Call runs tool's action with args (marshalled to a JSON object) and
	// returns its result; a tool's failure comes back as an *Error.
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

// Call implements Host.
func (h *hostClient) Call(ctx context.Context, tool, action string, args any, confirmed bool) (*Result, error) {
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
