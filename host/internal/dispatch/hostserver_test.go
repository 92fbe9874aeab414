package dispatch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc"

	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// streamRecorder is the server side of an agent's nested-call stream:
// it keeps what the host sends back.
type streamRecorder struct {
	grpc.ServerStream // nil: only Send and Context are used
	ctx               context.Context
	events            []*wire.CallEvent
}

func (s *streamRecorder) Send(e *wire.CallEvent) error {
	s.events = append(s.events, e)
	return nil
}

func (s *streamRecorder) Context() context.Context { return s.ctx }

// nestedHost is a dispatcher over three manifests, none of which is ever
// launched: single (one action, only), multi (actions a and b), and the
// agent boss, which may use single/other and multi/a.
func nestedHost(t *testing.T) *Dispatcher {
	t.Helper()
	plugins := t.TempDir()
	for name, yaml := range map[string]string{
		"single": "name: single\ndescription: d\nentrypoint: single\nactions:\n  - {name: only, description: d, read_only: true}\n",
		"multi":  "name: multi\ndescription: d\nentrypoint: multi\nactions:\n  - {name: a, description: d, read_only: true}\n  - {name: b, description: d, read_only: true}\n",
		"boss":   "name: boss\nkind: agent\ndescription: d\nentrypoint: boss\nuses: [single/other, multi/a]\nactions:\n  - {name: run, description: d, read_only: true}\n",
	} {
		dir := filepath.Join(plugins, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "tool.yaml"), []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reg := registry.New(registry.Options{PluginDirs: []string{plugins}})
	reg.Scan()
	for _, name := range []string{"single", "multi", "boss"} {
		if tool, _ := reg.Snapshot().Tool(name); tool == nil {
			t.Fatalf("%s is not in the registry: %+v", name, reg.Snapshot().Broken)
		}
	}
	return &Dispatcher{Registry: reg}
}

// TestNestedCallsRefusedBeforeAnythingRuns checks the refusals an agent's
// nested call gets from the host before any plugin is asked: too deep a
// chain of agents (three is the most), an agent calling itself or an
// agent above it, a call its manifest's uses does not declare (a tool with
// one action called without one is judged as that action), and an agent
// no longer installed. Each answer is denied, with a message naming the
// chain or the call, and a next step.
func TestNestedCallsRefusedBeforeAnythingRuns(t *testing.T) {
	d := nestedHost(t)
	tests := []struct {
		name, agent, above string // above: the caller's chain of agents
		tool, action       string
		message, next      string
	}{
		{"three deep is allowed (then judged by uses)", "boss", "x>y", "multi", "b",
			"the agent boss may not call multi b: its manifest", "add multi (or multi/b) to uses in"},
		{"four deep", "boss", "x>y>z", "multi", "a",
			"agents may nest at most 3 deep: x>y>z>boss", "do the work in fewer agent hops"},
		{"itself", "boss", "", "boss", "run",
			"boss may not call boss: it is already running this call (boss>boss)", "do that step inside the agent"},
		{"an agent above it", "boss", "lead", "lead", "",
			"boss may not call lead: it is already running this call (lead>boss>lead)", "do that step inside the agent"},
		{"one-action tool without an action: judged as that action", "boss", "", "single", "",
			"the agent boss may not call single only: its manifest", "add single (or single/only) to uses in"},
		{"many-action tool without an action", "boss", "", "multi", "",
			"the agent boss may not call multi: its manifest", "add multi (or multi/ACTION) to uses in"},
		{"an undeclared tool", "boss", "", "nosuch", "x",
			"the agent boss may not call nosuch x: its manifest", "add nosuch (or nosuch/x) to uses in"},
		{"an agent no longer installed", "ghost", "", "multi", "a",
			"the agent ghost is no longer installed", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &streamRecorder{ctx: context.Background()}
			h := d.HostServer(context.Background(), tt.agent, &wire.Caller{Agent: tt.above, ClientName: "test"})
			if err := h.Call(&wire.HostCallRequest{Tool: tt.tool, Action: tt.action, ArgsJson: []byte(`{}`)}, rec); err != nil {
				t.Fatal(err)
			}
			if len(rec.events) != 1 || rec.events[0].GetResult() == nil {
				t.Fatalf("got %d events %v, want one result", len(rec.events), rec.events)
			}
			e := rec.events[0].GetResult().GetError()
			if e == nil || e.Code != string(wire.CodeDenied) || !strings.Contains(e.Message, tt.message) || !strings.Contains(e.NextStep, tt.next) {
				t.Fatalf("got %v, want denied with %q, next step %q", rec.events[0].GetResult(), tt.message, tt.next)
			}
		})
	}
}
