package supervisor

import (
	"context"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// Use runs fn, one of the optional unary RPCs (GetPrompt, ReadResource), on
// tool's plugin — launching it when needed — under the same admission,
// slots, timeout and crash accounting as Call. what names the request in
// messages ("prompt notes/ingest"). It returns a failure result when the
// plugin could not be reached or fn failed, with unimplemented true when the
// plugin does not serve the RPC (an older binary, a plugin in another
// language): it contributes nothing of that kind.
func (s *Supervisor) Use(ctx context.Context, tool *registry.Tool, what string, fn func(ctx context.Context, c *wire.Client) error) (failure *wire.Result, unimplemented bool) {
	st, probe, failure := s.admit(tool)
	if failure != nil {
		return failure, false
	}
	crashed, cancelled := false, false
	if probe {
		defer func() { s.probeDone(st, crashed, cancelled) }()
	}
	release, failure := s.hostSlot(ctx, tool)
	if failure != nil {
		cancelled = true
		return failure, false
	}
	defer release()
	select {
	case st.sem <- struct{}{}:
	case <-ctx.Done():
		cancelled = true
		return ctxFailure(ctx, tool, "while waiting for a free slot"), false
	}
	defer func() { <-st.sem }()
	p, failure := s.acquire(ctx, st, tool)
	if failure != nil {
		cancelled = true
		return failure, false
	}
	defer s.release(p)
	timeout := callTimeout(tool)
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := fn(callCtx, p.rpc)
	switch {
	case err == nil:
		return nil, false
	case status.Code(err) == codes.Unimplemented:
		return wire.Failure(wire.CodeNotReady, fmt.Sprintf("%s: %s does not serve prompts or resources (its binary predates them or its SDK lacks them)", what, tool.Name()),
			"rebuild the plugin with a current SDK, or remove prompts and resources from "+tool.Manifest.Path), true
	case ctx.Err() != nil:
		cancelled = true
		return ctxFailure(ctx, tool, ""), false
	case callCtx.Err() != nil:
		return wire.Failure(wire.CodeTimeout, fmt.Sprintf("%s did not finish within %s (the manifest's timeout)", what, timeout), ""), false
	}
	if reason := p.killReason(); reason != "" || s.died(p, err) {
		if reason == "" {
			reason = err.Error()
		}
		crashed = true
		s.crashed(st, p, reason)
		return wire.Failure(wire.CodePluginCrashed, fmt.Sprintf("%s crashed during %s: %s", tool.Name(), what, reason),
			"the next request starts it again; if it keeps crashing, check its logs on the host's stderr"), false
	}
	return wire.Failure(wire.CodeInternalError, fmt.Sprintf("%s: %v", what, err), ""), false
}
