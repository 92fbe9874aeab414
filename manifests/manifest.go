package manifests

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// FileName is the manifest's file name inside a plugin folder.
const FileName = "tool.yaml"

// Kind says whether a plugin is a plain tool or an agent.
type Kind string

// The kinds of plugin.
const (
	KindTool  Kind = "tool"
	KindAgent Kind = "agent"
)

// Manifest is one parsed tool.yaml.
type Manifest struct {
	// Path is the manifest file the manifest was read from.
	Path        string
	Name        string
	Kind        Kind
	Description string
	Version     string
	// Entrypoint is the binary, relative to the manifest's folder; for an
	// MCP server run by an interpreter, the script it runs.
	Entrypoint string
	// Protocol is what the entrypoint speaks: go-plugin's gRPC (empty) or
	// MCP over stdio (mcp).
	Protocol Protocol
	// Interpreter, for an MCP server, is the program (found on the
	// plugin's PATH) that runs the entrypoint, such as node; empty when
	// the entrypoint is itself executable.
	Interpreter string
	// Args, for an MCP server, are its command-line arguments after the
	// entrypoint.
	Args []string
	// Roots, for an MCP server, are the absolute folders the host answers
	// the server's roots/list with: the folders it may use.
	Roots []string
	// Sampling, for an MCP server, is true when the manifest says
	// sampling: allow: the host then offers the server sampling and passes
	// its sampling/createMessage to the client of the call. Otherwise the
	// server is refused it.
	Sampling bool
	// SHA256 is the optional pin of the binary's hex sha256.
	SHA256 string
	// Timeout is the per-call limit (default 30s).
	Timeout time.Duration
	// Idle, when non-zero, overrides the host's idle stop for this plugin.
	Idle time.Duration
	// Eager asks the host to launch the plugin at start.
	Eager bool
	// Env lists host environment variables passed through to the plugin.
	// Variables of the host's own (HostOnlyEnv) are never passed, whatever
	// it lists.
	Env []string
	// ExecPath, when set, is the PATH the plugin runs with: absolute
	// folders, searched in order. Without it the plugin's PATH is the
	// system's fixed one (the host's PATH is passed only when Env lists
	// PATH).
	ExecPath []string
	// Concurrency is how many calls may be in flight at once (default 4).
	Concurrency int
	// Memory, when non-zero, is the most resident memory (bytes) the
	// plugin's processes may hold together; the host kills a plugin over it.
	Memory int64
	// CPUTime, when non-zero, is the most CPU time one plugin process (with
	// what it spawned) may use in its life; the host kills it beyond that
	// and the next call starts a fresh one.
	CPUTime time.Duration
	// Uses lists what an agent may call through the host: a tool, or one
	// action of it. A nested call outside it is refused. Only agents have it.
	Uses    []Use
	Secrets []Secret
	// Actions are the plugin's actions. An MCP server's are not in its
	// tool.yaml: the registry fills them in from the tool definitions its
	// approval pinned (MCPActions).
	Actions []Action
	// Overrides, for an MCP server, are tool.yaml's actions: a person's
	// judgement of some of the server's tools, by MCP name.
	Overrides []Override
	// Prompts, Resources and ResourceTemplates are the MCP prompts and
	// read-only resources the plugin contributes (content.go); the host
	// lists them from here without launching the plugin.
	Prompts           []Prompt
	Resources         []Resource
	ResourceTemplates []ResourceTemplate
}

// Use is one entry of an agent's uses: a tool, and optionally one of its
// actions ("notes" or "notes/remember" in tool.yaml).
type Use struct {
	Tool string
	// Action is empty when every action of Tool may be called.
	Action string
}

// String gives the entry as tool.yaml writes it.
func (u Use) String() string {
	if u.Action == "" {
		return u.Tool
	}
	return u.Tool + "/" + u.Action
}

// MayUse reports whether the manifest's uses allow a nested call of action
// on tool.
func (m *Manifest) MayUse(tool, action string) bool {
	for _, u := range m.Uses {
		if u.Tool == tool && (u.Action == "" || u.Action == action) {
			return true
		}
	}
	return false
}

// UseNames returns uses as tool.yaml writes them ("notes",
// "notes/remember"); never nil.
func (m *Manifest) UseNames() []string {
	out := make([]string, 0, len(m.Uses))
	for _, u := range m.Uses {
		out = append(out, u.String())
	}
	return out
}

// UsedTools returns the distinct tool names of uses, in manifest order.
func (m *Manifest) UsedTools() []string {
	var out []string
	for _, u := range m.Uses {
		if !slices.Contains(out, u.Tool) {
			out = append(out, u.Tool)
		}
	}
	return out
}

// HostOnlyEnv reports whether an environment variable is the host's own —
// its configuration and credentials (HOST_HTTP_TOKEN, the OAuth settings),
// every name starting HOST_ — which the host passes to no plugin, whatever
// the plugin's manifest lists in env or secrets.
func HostOnlyEnv(name string) bool { return strings.HasPrefix(name, "HOST_") }

// WithheldEnv returns the variables the manifest asks for in env or
// secrets that the host never passes (HostOnlyEnv), in manifest order.
func (m *Manifest) WithheldEnv() []string {
	var out []string
	for _, k := range m.Env {
		if HostOnlyEnv(k) && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	for _, s := range m.Secrets {
		if HostOnlyEnv(s.Env) && !slices.Contains(out, s.Env) {
			out = append(out, s.Env)
		}
	}
	return out
}

// Secret is a credential the host resolves from an environment variable and
// passes to this plugin only.
type Secret struct {
	Name        string
	Env         string
	Description string
	Required    bool
}

// Action is one action of a tool.
type Action struct {
	Name        string
	Description string
	// ReadOnly means the action changes nothing anywhere.
	ReadOnly bool
	// Reversible means what it changes can be undone. ReadOnly implies it.
	Reversible bool
	Args       []Arg
	// NarrowWith names the args a caller should use when a result is too
	// large.
	NarrowWith []string
	// OutputSchema is the JSON Schema of the structured result, if given.
	OutputSchema map[string]any
	// Keywords are words a person may search for this action by that its
	// name and description do not use (synonyms, other names for the
	// task); capabilities search ranks on them.
	Keywords []string
}

// AskForLess is the next step of a result refused for its size: call again
// with the action's NarrowWith args, or just asking for less when it names
// none (or a is nil, an action the manifest does not list).
func (a *Action) AskForLess() string {
	if a == nil || len(a.NarrowWith) == 0 {
		return "call again asking for less"
	}
	return fmt.Sprintf("call again with %s to ask for less", strings.Join(a.NarrowWith, " or "))
}

// ArgType is an argument's JSON type.
type ArgType string

// The argument types.
const (
	TypeString  ArgType = "string"
	TypeInteger ArgType = "integer"
	TypeNumber  ArgType = "number"
	TypeBoolean ArgType = "boolean"
	TypeArray   ArgType = "array"
	TypeObject  ArgType = "object"
)

// Arg is one argument of an action.
type Arg struct {
	Name        string
	Type        ArgType
	Required    bool
	Description string
	// Enum, when set, lists the only values allowed: strings, int64s or
	// float64s by Type.
	Enum []any
	// Default is the value Check fills in when an optional arg is not given,
	// in the representation Check returns (see the package documentation).
	Default any
	// Minimum and Maximum, when set, bound an integer or number arg
	// (inclusive).
	Minimum *float64
	Maximum *float64
	// Items is the JSON Schema of an array's items, if given.
	Items map[string]any
}

// Action returns the named action, or nil.
func (m *Manifest) Action(name string) *Action {
	for i := range m.Actions {
		if m.Actions[i].Name == name {
			return &m.Actions[i]
		}
	}
	return nil
}

// ActionNames returns the action names in manifest order.
func (m *Manifest) ActionNames() []string {
	names := make([]string, len(m.Actions))
	for i, a := range m.Actions {
		names[i] = a.Name
	}
	return names
}

// Dir returns the plugin's folder: the folder holding the manifest.
func (m *Manifest) Dir() string { return filepath.Dir(m.Path) }

// Binary returns the path of the plugin's binary: the entrypoint joined to
// the manifest's folder.
func (m *Manifest) Binary() string { return filepath.Join(m.Dir(), filepath.FromSlash(m.Entrypoint)) }

// Arg returns the named arg, or nil.
func (a *Action) Arg(name string) *Arg {
	for i := range a.Args {
		if a.Args[i].Name == name {
			return &a.Args[i]
		}
	}
	return nil
}

// ArgNames returns the arg names in manifest order.
func (a *Action) ArgNames() []string {
	names := make([]string, len(a.Args))
	for i, arg := range a.Args {
		names[i] = arg.Name
	}
	return names
}
