// Package sdk is what a toolhost plugin author imports: Main serves the
// plugin to the host over go-plugin, or runs it as a command-line tool when
// it is started by hand. Handlers receive a Request and return a Result or an
// *Error, which crosses the process boundary as data.
package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolhost/toolhost/sdk/wire"
)

// Handler runs one action. A returned *Error becomes the error envelope with
// its code; any other error becomes an internal_error. A panic inside a
// handler is recovered into an internal_error result.
type Handler func(ctx context.Context, req *Request) (*Result, error)

// Plugin is a tool's implementation: one Handler per action name, exactly
// the action names of its tool.yaml.
type Plugin struct {
	// Actions maps each kebab-case action name to its handler.
	Actions map[string]Handler
	// Start, when set, runs once in the background when the host launches
	// the plugin (not in CLI mode), e.g. to warm a cache. Its context ends
	// when the plugin stops.
	Start func(ctx context.Context)
	// Prompts, optional, maps each prompt name tool.yaml declares under
	// prompts to its handler (see content.go).
	Prompts map[string]PromptHandler
	// Resources, optional, reads every resource tool.yaml declares under
	// resources and resource_templates; ResourceURIs and ResourceTemplates
	// name them for `host check`.
	Resources         ResourceHandler
	ResourceURIs      []string
	ResourceTemplates []string
	// RenderMarkdown, optional, renders the Markdown of a result for a
	// person at a terminal in CLI mode: markdown.Render of the package
	// github.com/toolhost/toolhost/cli/markdown. Without it that Markdown
	// is printed as written. Set it only when handlers return Markdown:
	// the renderer's set-up slows every start of the binary.
	RenderMarkdown func(md string, width int, colour, dumb bool) (string, error)
}

// Caller says who made a call. It crosses the wire with every call.
type Caller struct {
	// ClientName is the MCP client's name ("claude-code"), "host-cli" for
	// `host call`, "cli" in plugin CLI mode, else "unknown".
	ClientName string `json:"client_name"`
	// ClientVersion is the MCP client's version, when known.
	ClientVersion string `json:"client_version,omitempty"`
	// RequestID is the MCP request id, as a string.
	RequestID string `json:"request_id,omitempty"`
	// Confirmed is true when the call came through a *_confirmed tool. It
	// never replaces a plugin's own confirmation token.
	Confirmed bool `json:"confirmed"`
	// Agent names the calling agent for nested calls.
	Agent string `json:"agent,omitempty"`
	// MaxResultBytes is the byte budget of the result's JSON; 0 means no
	// budget was given.
	MaxResultBytes int `json:"max_result_bytes,omitempty"`
	// Channel is how the call reached the host, set by the host and never
	// by a client: ChannelTerminal for a person at `host call` (and plugin
	// CLI mode), ChannelMCP for an MCP client or an agent's nested call.
	// Decide privileges on it, never on ClientName, which a client picks.
	Channel string `json:"channel"`
}

// The channels a call comes through (Caller.Channel), as the wire
// defines them.
const (
	ChannelTerminal = wire.ChannelTerminal
	ChannelMCP      = wire.ChannelMCP
)

// FromTerminal reports whether a person at a terminal made the call
// (`host call`, or the plugin run by hand): the host sets this, no MCP
// client or agent can claim it.
func (c Caller) FromTerminal() bool { return c.Channel == ChannelTerminal }

// Request is one call of one action.
type Request struct {
	// Action is the kebab-case action name.
	Action string
	// Args is the JSON object of arguments, already checked by the host
	// against the manifest (unknown args refused, types checked, defaults
	// filled).
	Args json.RawMessage
	// Caller says who called.
	Caller Caller

	progress func(Progress)
	host     Host
}

// Progress is one progress event of a running call.
type Progress struct {
	// Progress is how much is done, in the unit of Total.
	Progress float64 `json:"progress"`
	// Total is how much there is to do; 0 when unknown.
	Total float64 `json:"total,omitempty"`
	// Message says what is happening, for a person.
	Message string `json:"message,omitempty"`
}

// NewRequest builds a Request, e.g. for a handler's tests: args is marshalled
// to JSON (nil means {}).
func NewRequest(action string, args any) (*Request, error) {
	raw := json.RawMessage("{}")
	if args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			return nil, fmt.Errorf("sdk: marshal args: %w", err)
		}
		raw = b
	}
	return &Request{Action: action, Args: raw, Caller: Caller{ClientName: "unknown", Channel: ChannelMCP}}, nil
}

// WithProgress returns a copy of r whose Progress calls go to fn.
func (r *Request) WithProgress(fn func(Progress)) *Request {
	c := *r
	c.progress = fn
	return &c
}

// Bind decodes the args into v (a pointer to a struct whose json tags are the
// kebab-case arg names). A decoding failure is an invalid_args *Error.
func (r *Request) Bind(v any) error {
	raw := r.Args
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return Errorf(CodeInvalidArgs, "args of %s: %v", r.Action, err)
	}
	return nil
}

// Progress reports progress to the caller; it is a no-op when nobody listens.
func (r *Request) Progress(done, total float64, message string) {
	if r.progress != nil {
		r.progress(Progress{Progress: done, Total: total, Message: message})
	}
}

// Result is what a handler returns: Data marshals to a JSON object (the
// structured result) and Markdown, when set, is its rendering for people.
type Result struct {
	// Data is the structured result; it must marshal to a JSON object.
	Data any
	// Markdown is an optional rendering of the same data.
	Markdown string
}

// Code is an error code, snake_case, e.g. "invalid_args": the one code
// type the host and every plugin share.
type Code = wire.Code

// Codes a handler returns; plugins add their own (a Code constant of their
// package).
const (
	CodeInvalidArgs   Code = wire.CodeInvalidArgs
	CodeUnknownAction Code = wire.CodeUnknownAction
	CodeInternalError Code = wire.CodeInternalError
	CodeCancelled     Code = wire.CodeCancelled
	CodeTimeout       Code = wire.CodeTimeout
)

// Error is the error envelope's body: code and message always, the rest
// (did_you_mean, schema, next_step, details) when they help the caller
// correct the call. It is the same type the host answers with.
type Error = wire.Error

// Errorf builds an *Error with a formatted message.
func Errorf(code Code, format string, a ...any) *Error {
	return wire.Errorf(code, format, a...)
}

// AsError returns err as an *Error: itself when it is one (or wraps one),
// else an internal_error carrying its text.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeInternalError, Message: err.Error()}
}
