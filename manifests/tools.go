package manifests

// The six tools of the host's generic MCP surface, spelt once: the host
// serves them, the dispatcher and discovery name them in answers, the
// tests call them.
const (
	ToolCapabilities      = "capabilities"
	ToolRunTool           = "run_tool"
	ToolRunAgent          = "run_agent"
	ToolRunToolConfirmed  = "run_tool_confirmed"
	ToolRunAgentConfirmed = "run_agent_confirmed"
	ToolGetSkill          = "get_skill"
)

// RunTool names the MCP tool that runs an action of this kind: run_agent
// for an agent, else run_tool.
func (k Kind) RunTool() string {
	if k == KindAgent {
		return ToolRunAgent
	}
	return ToolRunTool
}

// ConfirmedTool names the *_confirmed twin of RunTool, which runs an
// irreversible action after the user approved it.
func (k Kind) ConfirmedTool() string {
	if k == KindAgent {
		return ToolRunAgentConfirmed
	}
	return ToolRunToolConfirmed
}
