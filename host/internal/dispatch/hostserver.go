package dispatch

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// MaxAgentDepth bounds how deeply agents may call agents.
const MaxAgentDepth = 3

// HostServer returns the Host service an agent gets for one of its calls
// (ctx is that call's context): its nested calls go through this
// dispatcher, under the same gate, only to the tools the agent's manifest
// lists under uses; an irreversible nested call is allowed only when the
// agent's own call was confirmed or the person accepts it when asked; and
// every nested call ends when the agent's call does. agent is the agent's
// name.
func (d *Dispatcher) HostServer(ctx context.Context, agent string, caller *wire.Caller) wire.HostServer {
	sv := servedFrom(ctx)
	return &hostServer{d: d, agent: agent, caller: caller, ask: sv.ask, served: sv, done: ctx.Done()}
}

type hostServer struct {
	wire.UnimplementedHostServer
	d      *Dispatcher
	agent  string
	caller *wire.Caller
	ask    Asker
	// served is the call the plugin runs: its client, for a hosted MCP
	// server's requests, and what to audit.
	served served
	// done is closed when the agent's own call ends (cancelled by its
	// client, or finished): nested calls still running are cancelled then,
	// whether or not the agent passed its context on.
	done <-chan struct{}
}

// undeclared answers a nested call to a tool or action the agent's
// manifest does not list under uses, or nil when the call is declared.
func (h *hostServer) undeclared(snap *registry.Snapshot, tool, action string) *wire.Result {
	self, _ := snap.Tool(h.agent)
	if self == nil {
		return wire.Failure(wire.CodeDenied, fmt.Sprintf("the agent %s is no longer installed", h.agent), "")
	}
	if action == "" {
		if t, _ := snap.Tool(tool); t != nil && len(t.Manifest.Actions) == 1 {
			action = t.Manifest.Actions[0].Name
		}
	}
	if self.Manifest.MayUse(tool, action) {
		return nil
	}
	declared := strings.Join(self.Manifest.UseNames(), ", ")
	call := tool
	if action != "" {
		call += " " + action
	}
	return wire.Failure(wire.CodeDenied,
		fmt.Sprintf("the agent %s may not call %s: its manifest %s declares uses: [%s]", h.agent, call, self.Manifest.Path, declared),
		fmt.Sprintf("add %s (or %s/%s) to uses in %s if the agent should call it", tool, tool, orAction(action), self.Manifest.Path))
}

func orAction(a string) string {
	if a == "" {
		return "ACTION"
	}
	return a
}

// Call runs a nested call and streams its progress and result.
func (h *hostServer) Call(in *wire.HostCallRequest, stream grpc.ServerStreamingServer[wire.CallEvent]) error {
	send := func(r *wire.Result) error {
		return stream.Send(&wire.CallEvent{Event: &wire.CallEvent_Result{Result: r}})
	}
	chain := h.agent
	if prev := h.caller.GetAgent(); prev != "" {
		chain = prev + ">" + h.agent
	}
	if slices.Contains(strings.Split(chain, ">"), in.GetTool()) {
		// The caller's ancestors hold concurrency slots the callee would
		// wait for: refuse at once rather than hang until the timeout.
		return send(wire.Failure(wire.CodeDenied, fmt.Sprintf("%s may not call %s: it is already running this call (%s>%s), and an agent may not call itself, directly or through other agents",
			h.agent, in.GetTool(), chain, in.GetTool()), "do that step inside the agent instead of calling it again"))
	}
	if strings.Count(chain, ">")+1 > MaxAgentDepth {
		return send(wire.Failure(wire.CodeDenied, "agents may nest at most 3 deep: "+chain, "do the work in fewer agent hops"))
	}
	snap := h.d.Registry.Snapshot()
	if refused := h.undeclared(snap, in.GetTool(), in.GetAction()); refused != nil {
		return send(refused)
	}
	if in.GetConfirmed() && !h.caller.GetConfirmed() {
		// The agent asks for an irreversible nested call, but nobody
		// approved the agent's own call: the gate answers as for run_tool.
		in = proto.Clone(in).(*wire.HostCallRequest)
		in.Confirmed = false
	}
	caller := proto.Clone(h.caller).(*wire.Caller)
	caller.Agent = chain
	// An agent's nested call is never a person at the terminal, even when
	// the person ran the agent from there.
	caller.Channel = wire.ChannelMCP
	kind := manifests.KindTool
	if t, _ := snap.Tool(in.GetTool()); t != nil {
		kind = t.Manifest.Kind
	}
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	go func() {
		select {
		case <-h.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	out := h.d.Run(ctx, Call{Kind: kind, Name: in.GetTool(), Action: in.GetAction(), Args: in.GetArgsJson(),
		Confirmed: in.GetConfirmed(), Caller: caller, Ask: h.ask, Client: h.served.client}, func(p *wire.Progress) {
		_ = stream.Send(&wire.CallEvent{Event: &wire.CallEvent_Progress{Progress: p}})
	})
	return send(out.Wire())
}
