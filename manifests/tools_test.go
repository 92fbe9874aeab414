package manifests

import "testing"

// TestEachKindHasItsRunTools checks which MCP tool runs an action of each
// kind, and its confirmed twin: an agent's are run_agent and
// run_agent_confirmed, a tool's (and a manifest's that names no kind)
// run_tool and run_tool_confirmed.
func TestEachKindHasItsRunTools(t *testing.T) {
	for _, tt := range []struct {
		kind           Kind
		run, confirmed string
	}{
		{KindAgent, "run_agent", "run_agent_confirmed"},
		{KindTool, "run_tool", "run_tool_confirmed"},
		{"", "run_tool", "run_tool_confirmed"},
	} {
		if run, confirmed := tt.kind.RunTool(), tt.kind.ConfirmedTool(); run != tt.run || confirmed != tt.confirmed {
			t.Errorf("kind %q: got %s and %s, want %s and %s", tt.kind, run, confirmed, tt.run, tt.confirmed)
		}
	}
}
