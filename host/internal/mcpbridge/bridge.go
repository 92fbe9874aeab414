// Package mcpbridge runs an MCP server (a plugin of protocol: mcp) for the
// host. The host's own executable, started with Arg, is the plugin process
// the supervisor launches like any go-plugin plugin — its own process
// group, resource limits, restart after a crash, idle stop, stderr into the
// host's log under the plugin's name — and it starts the server as its
// child on a pipe of its own: the server's stdout is the MCP stream the
// bridge reads with the go-sdk client, never the host's. Each call of an
// action becomes a tools/call; the reserved action ToolsAction answers the
// server's tool definitions, which the host compares with the ones its
// approval pinned before the first call.
//
// The bridge answers the server's requests of the client: roots/list with
// the manifest's roots; elicitation/create (form mode) is passed to the
// host, which asks the person through the MCP client of the call the way
// the gate asks its own question, or refuses it saying why; and
// sampling/createMessage is offered and passed on the same way only when
// the manifest says sampling: allow — otherwise the capability is not
// advertised and a request is refused, naming the key that allows it. The
// host audits each. A server's request over stdio does not say which call
// it belongs to, so it is passed on only while exactly one call runs.
package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/manifests"
)

// Arg is the first argument that runs a host executable as an MCP
// plugin's bridge: `EXE Arg`, its Config in ConfigEnv.
const Arg = "--toolhost-mcp-bridge"

// ConfigEnv is the environment variable holding the bridge's Config as
// JSON.
const ConfigEnv = "TOOLHOST_MCP_BRIDGE"

// ToolsAction is the reserved action that answers the server's tool
// definitions as {"tools": [...]}; no MCP tool can have the name.
const ToolsAction = "#tools"

// Config says how to start one MCP server.
type Config struct {
	// Name is the plugin's name.
	Name string `json:"name"`
	// Command is the program: an interpreter's name, looked up on Env's
	// PATH, or the entrypoint's absolute path.
	Command string `json:"command"`
	// Args follow Command: the entrypoint when an interpreter runs it,
	// then the manifest's args.
	Args []string `json:"args"`
	// Env is the server's whole environment.
	Env []string `json:"env"`
	// Dir is its working folder.
	Dir string `json:"dir"`
	// Roots are the absolute folders roots/list answers.
	Roots []string `json:"roots,omitempty"`
	// Sampling offers the server sampling (the manifest's sampling:
	// allow).
	Sampling bool `json:"sampling,omitempty"`
	// Manifest is the manifest's path, for messages.
	Manifest string `json:"manifest,omitempty"`
}

// ConfigFor is how the host starts m's server whose entrypoint is at the
// absolute path entry, with env in dir.
func ConfigFor(m *manifests.Manifest, entry string, env []string, dir string) Config {
	c := Config{Name: m.Name, Command: entry, Env: env, Dir: dir, Roots: m.Roots, Sampling: m.Sampling, Manifest: m.Path}
	if m.Interpreter != "" {
		c.Command = m.Interpreter
		c.Args = append(c.Args, entry)
	}
	c.Args = append(c.Args, m.Args...)
	return c
}

// Server is a running MCP server and the client session to it.
type Server struct {
	cmd     *exec.Cmd
	session *mcp.ClientSession

	mu       sync.Mutex
	progress map[string]func(*mcp.ProgressNotificationParams)
	next     int
}

// Hooks are told of what the server sends besides answers.
type Hooks struct {
	// ToolsChanged hears the server's notifications/tools/list_changed.
	ToolsChanged func()
	// Prepare, when set, runs before the server's process starts; Started
	// after.
	Prepare func(cmd *exec.Cmd)
	Started func(cmd *exec.Cmd)
	// Stderr receives the server's stderr (default the bridge's own).
	Stderr io.Writer
	// Elicit and Sample answer the server's elicitation/create and (when
	// Config.Sampling) sampling/createMessage; unset, each is refused.
	Elicit func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error)
	Sample func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)
}

// errNoCall refuses a server's request made while the host lists its
// tools (at approval, or at launch before any call).
var errNoCall = errors.New("the host is listing the server's tools and serves no call, so there is nobody to pass the request to")

// samplingRefused is the error a server gets for sampling/createMessage
// when its manifest does not allow it.
func samplingRefused(c Config) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf(
		"sampling is not allowed for the plugin %s: the host neither offers nor answers it unless a person adds `sampling: allow` to %s and approves the plugin again (host approve %s)",
		c.Name, c.Manifest, c.Name)}
}

// lookPath finds name on the PATH of env, not the bridge's own.
func lookPath(name string, env []string) (string, error) {
	if strings.ContainsRune(name, filepath.Separator) {
		return name, nil
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is not on the plugin's PATH (%s): install it, or name its folder in the manifest's exec_path", name, path)
}

// Start starts the server c describes and initialises an MCP session with
// it.
func Start(ctx context.Context, c Config, h Hooks) (*Server, error) {
	prog, err := lookPath(c.Command, c.Env)
	if err != nil {
		return nil, fmt.Errorf("mcpbridge: start %s: %w", c.Name, err)
	}
	cmd := exec.Command(prog, c.Args...)
	cmd.Env = c.Env
	cmd.Dir = c.Dir
	cmd.Stderr = h.Stderr
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	s := &Server{cmd: cmd, progress: map[string]func(*mcp.ProgressNotificationParams){}}
	// The capabilities offered are exactly the requests served: a server
	// (the reference server among them) may list other tools for them,
	// which approval pins.
	caps := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}
	if len(c.Roots) > 0 {
		caps.RootsV2 = &mcp.RootCapabilities{}
	}
	opts := &mcp.ClientOptions{
		Capabilities: caps,
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if h.Elicit == nil {
				return nil, errNoCall
			}
			return h.Elicit(ctx, req.Params)
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			s.mu.Lock()
			f := s.progress[fmt.Sprint(req.Params.ProgressToken)]
			s.mu.Unlock()
			if f != nil {
				f(req.Params)
			}
		},
	}
	if h.ToolsChanged != nil {
		opts.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) { h.ToolsChanged() }
	}
	if c.Sampling {
		opts.CreateMessageHandler = func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			if h.Sample == nil {
				return nil, errNoCall
			}
			return h.Sample(ctx, req.Params)
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "toolhost", Version: "1"}, opts)
	if !c.Sampling {
		client.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "sampling/createMessage" {
					return nil, samplingRefused(c)
				}
				return next(ctx, method, req)
			}
		})
	}
	for _, r := range c.Roots {
		client.AddRoots(&mcp.Root{Name: filepath.Base(r), URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(r)}).String()})
	}
	if h.Prepare != nil {
		h.Prepare(cmd)
	}
	transport := &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		if cmd.Process != nil {
			_ = cmd.Process.Kill()
		}
		return nil, fmt.Errorf("mcpbridge: start %s (%s %s): %w", c.Name, prog, strings.Join(c.Args, " "), err)
	}
	if h.Started != nil {
		h.Started(cmd)
	}
	s.session = session
	return s, nil
}

// Close ends the session and stops the server.
func (s *Server) Close() error { return s.session.Close() }

// Tools lists the server's tool definitions, every page.
func (s *Server) Tools(ctx context.Context) ([]manifests.MCPTool, error) {
	var out []manifests.MCPTool
	for t, err := range s.session.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("mcpbridge: list tools: %w", err)
		}
		raw, err := json.Marshal(t)
		if err != nil {
			return nil, fmt.Errorf("mcpbridge: list tools: %w", err)
		}
		var d manifests.MCPTool
		if err := json.Unmarshal(raw, &d); err != nil {
			return nil, fmt.Errorf("mcpbridge: list tools: %w", err)
		}
		out = append(out, d)
	}
	return out, nil
}

// Call calls one tool with args (a JSON object), telling progress what the
// server reports.
func (s *Server) Call(ctx context.Context, name string, args json.RawMessage, progress func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error) {
	params := &mcp.CallToolParams{Name: name, Arguments: args}
	if len(args) == 0 {
		params.Arguments = map[string]any{}
	}
	if progress != nil {
		s.mu.Lock()
		s.next++
		token := fmt.Sprintf("toolhost-%d", s.next)
		s.progress[token] = progress
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			delete(s.progress, token)
			s.mu.Unlock()
		}()
		params.SetProgressToken(token)
	}
	return s.session.CallTool(ctx, params)
}

// ListTools starts the server c describes, lists its tools and stops it:
// what `host approve` pins.
func ListTools(ctx context.Context, c Config, stderr io.Writer, prepare, started func(*exec.Cmd)) ([]manifests.MCPTool, error) {
	s, err := Start(ctx, c, Hooks{Stderr: stderr, Prepare: prepare, Started: started})
	if err != nil {
		return nil, err
	}
	defer func() {
		// Stopped at once: a server need not exit when its stdin closes,
		// and a graceful close would wait for it.
		_ = s.cmd.Process.Kill()
		_ = s.Close()
	}()
	return s.Tools(ctx)
}

// sortedNames returns the tools' names, sorted.
func sortedNames(tools []manifests.MCPTool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name
	}
	slices.Sort(out)
	return out
}
