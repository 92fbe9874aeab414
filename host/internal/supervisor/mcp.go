package supervisor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/toolhost/toolhost/host/internal/mcpbridge"
	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// command is what the runner starts for tool, whose entrypoint's run copy
// is bin, and the environment it adds: the entrypoint itself for a
// go-plugin plugin; for an MCP server, the host's executable as its bridge
// (mcpbridge), told in its environment how to start the server.
func (s *Supervisor) command(tool *registry.Tool, bin string) (exe string, args, env []string, err error) {
	env = s.pluginEnv(tool)
	if !tool.Manifest.MCP() {
		return bin, nil, env, nil
	}
	if s.opts.BridgeExe == "" {
		return "", nil, nil, fmt.Errorf("%s is an MCP server, and this host was started without its bridge to run one", tool.Name())
	}
	cfg, err := json.Marshal(mcpbridge.ConfigFor(tool.Manifest, bin, env, s.opts.WorkDir))
	if err != nil {
		return "", nil, nil, fmt.Errorf("supervisor: %s: %w", tool.Name(), err)
	}
	return s.opts.BridgeExe, []string{mcpbridge.Arg}, append(env, mcpbridge.ConfigEnv+"="+string(cfg)), nil
}

// checkPinned compares the tools an MCP server lists at launch with the
// definitions its approval pinned: a changed, added or removed tool is an
// approval error naming each difference, and the launch is refused.
func checkPinned(ctx context.Context, tool *registry.Tool, c *wire.Client) error {
	if !tool.Manifest.MCP() {
		return nil
	}
	res, err := runCall(ctx, c, &wire.CallRequest{Action: mcpbridge.ToolsAction}, nil, fallbackMaxResult)
	if err != nil {
		return fmt.Errorf("list the server's tools: %w", err)
	}
	if e := res.GetError(); e != nil {
		return fmt.Errorf("list the server's tools: %s", e.GetMessage())
	}
	var listed struct {
		Tools []manifests.MCPTool `json:"tools"`
	}
	if err := json.Unmarshal(res.GetJson(), &listed); err != nil {
		return fmt.Errorf("list the server's tools: %w", err)
	}
	if diff := manifests.DiffMCPTools(tool.MCPTools, listed.Tools); len(diff) > 0 {
		return &registry.ApprovalError{Tool: tool.Name(),
			Reason:   "changed — needs approval: its tool definitions changed since it was approved: " + strings.Join(diff, "; "),
			NextStep: fmt.Sprintf("a person reads the changes and, if they are wanted, approves them with `%s approve %s`", registry.Command, tool.Name())}
	}
	return nil
}

// ListMCPTools starts an MCP server from its plugin folder, as the host
// would run it (its scrubbed environment and PATH, the host's working
// folder, a process group of its own that is killed after), and lists its
// tools: what `host approve` pins. The server's stderr goes to stderr.
func (s *Supervisor) ListMCPTools(ctx context.Context, tool *registry.Tool, stderr io.Writer) ([]manifests.MCPTool, error) {
	cfg := mcpbridge.ConfigFor(tool.Manifest, tool.Binary, s.pluginEnv(tool), s.opts.WorkDir)
	var pgid int
	defer func() {
		if pgid > 0 {
			killPlugin(pgid, false)
		}
	}()
	return mcpbridge.ListTools(ctx, cfg, stderr, func(cmd *exec.Cmd) {
		cmd.SysProcAttr = procAttr(false)
	}, func(cmd *exec.Cmd) { pgid = cmd.Process.Pid })
}
