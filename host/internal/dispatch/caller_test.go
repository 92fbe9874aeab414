package dispatch

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// callerRunner records the caller each call reaches the plugin with.
type callerRunner struct{ seen []*wire.Caller }

func (c *callerRunner) Call(_ context.Context, _ *registry.Tool, req *wire.CallRequest, _ func(*wire.Progress)) *wire.Result {
	c.seen = append(c.seen, req.GetCaller())
	return &wire.Result{Json: []byte(`{}`)}
}

// TestThePluginLearnsTheChannel checks the channel a plugin is told a call
// came through: terminal only when the terminal commands said so, mcp for
// anything else (a client cannot claim the terminal by leaving it out or
// naming another channel), with the confirmation and the result cap.
func TestThePluginLearnsTheChannel(t *testing.T) {
	for _, tt := range []struct {
		name, given, want string
	}{
		{"the terminal", wire.ChannelTerminal, wire.ChannelTerminal},
		{"an MCP client", wire.ChannelMCP, wire.ChannelMCP},
		{"no channel given", "", wire.ChannelMCP},
		{"some other channel", "email", wire.ChannelMCP},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &callerRunner{}
			d := fixtureDispatcher(t, r)
			d.MaxResultBytes = 1234
			o := d.Run(context.Background(), Call{Name: "testtool", Action: "echo", Args: json.RawMessage(`{"text":"a"}`),
				Caller: &wire.Caller{ClientName: "c", Channel: tt.given}}, nil)
			if o.IsError() || len(r.seen) != 1 {
				t.Fatalf("got %s after %d calls, want one call that runs", o.Body(), len(r.seen))
			}
			if c := r.seen[0]; c.GetChannel() != tt.want || c.GetClientName() != "c" || c.GetMaxResultBytes() != 1234 {
				t.Fatalf("the plugin saw %v, want channel %q, client c, max_result_bytes 1234", c, tt.want)
			}
		})
	}
}
