package wire

// The channels a call comes through (Caller.Channel), set by the host and
// never by a client: ChannelTerminal for a person at `host call` (and
// plugin CLI mode), ChannelMCP for every MCP call and every nested call of
// an agent. An empty channel (an older host) counts as ChannelMCP.
const (
	ChannelTerminal = "terminal"
	ChannelMCP      = "mcp"
)
