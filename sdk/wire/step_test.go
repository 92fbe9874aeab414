package wire

import "testing"

// TestMCPWords: the MCP wording made from a Step is the sentence the host
// sent before next steps were data (the golden transcripts hold them).
func TestMCPWords(t *testing.T) {
	tests := []struct {
		step Step
		want string
	}{
		{Step{Run: StepCapabilities, Why: "to list what is available"}, `call capabilities with {} to list what is available`},
		{Step{Run: StepCapabilities, Tool: "xlsx", Why: "to list its actions"}, `call capabilities with {"name":"xlsx"} to list its actions`},
		{Step{Run: StepCapabilities, Tool: "xlsx", Action: "read-sheet", Why: "for the args"}, `call capabilities with {"name":"xlsx","action":"read-sheet"} for the args`},
		{Step{Run: StepCapabilities, Args: map[string]any{"search": "sheet"}, Why: "to find it"}, `call capabilities with {"search":"sheet"} to find it`},
		{Step{Run: StepSkill, Tool: "weekly-review"}, `call get_skill with {"name":"weekly-review"}`},
		{Step{Run: StepCall, Tool: "xlsx", Action: "read-sheet", Args: map[string]any{"path": "b.xlsx", "max-results": 10}},
			`call run_tool with {"tool":"xlsx","action":"read-sheet","args":{"max-results":10,"path":"b.xlsx"}}`},
		{Step{Run: StepCall, Tool: "notes", Action: "delete", Confirm: true}, `call run_tool_confirmed with {"tool":"notes","action":"delete"}`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			e := (&Error{Code: CodeInvalidArgs}).WithNext(tt.step)
			if e.NextStep != tt.want {
				t.Errorf("got  %s\nwant %s", e.NextStep, tt.want)
			}
			if e.Next == nil || e.Next.Run != tt.step.Run || e.Next.Tool != tt.step.Tool {
				t.Errorf("Next = %+v, want %+v", e.Next, tt.step)
			}
		})
	}
}
