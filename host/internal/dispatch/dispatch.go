// Package dispatch is the one path every call takes, from the terminal
// (`host call`) and from MCP (run_tool, run_agent and their confirmed
// twins): look the tool and action up, check the args against the manifest
// before any plugin starts, apply the gate, run it through the supervisor,
// and hold the result to the byte cap.
package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"time"
	"unicode/utf8"

	"github.com/toolhost/toolhost/host/internal/audit"
	"github.com/toolhost/toolhost/host/internal/gate"
	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// DefaultMaxResultBytes is HOST_MAX_RESULT_BYTES' default.
const DefaultMaxResultBytes = 40000

// MaxArgsBytes bounds a call's args JSON: the call travels to the plugin in
// one gRPC message, and a plugin's gRPC server receives at most 4 MiB (the
// rest is left for the action name and the caller).
const MaxArgsBytes = 4<<20 - 64<<10

// Runner runs one call on a plugin; *supervisor.Supervisor is the
// production implementation.
type Runner interface {
	Call(ctx context.Context, tool *registry.Tool, req *wire.CallRequest, onProgress func(*wire.Progress)) *wire.Result
}

// CallRunner runs one call through the host's single call path (checker,
// gate, caps, supervisor): what the MCP surfaces and the metrics wrapper
// take. *Dispatcher is the production implementation.
type CallRunner interface {
	Run(ctx context.Context, call Call, onProgress func(*wire.Progress)) Outcome
}

var _ CallRunner = (*Dispatcher)(nil)

// InvalidArgs is the invalid_args error for err, what an action's Check
// returned, its message prefixed with what was called: a
// *manifests.ArgError's message, did_you_mean and schema go into the
// envelope's fields.
func InvalidArgs(called string, err error) *wire.Error {
	env := &wire.Error{Code: wire.CodeInvalidArgs, Message: fmt.Sprintf("%s: %v", called, err)}
	var ae *manifests.ArgError
	if errors.As(err, &ae) {
		env.Message = called + ": " + ae.Message
		env.DidYouMean = ae.DidYouMean
		if ae.Schema != nil {
			env.Schema = ae.Schema
		}
	}
	return env
}

// Snapshotter gives the registry's current snapshot.
type Snapshotter interface {
	Snapshot() *registry.Snapshot
}

// Dispatcher runs calls. Its zero value is not usable: set Registry and
// Runner.
type Dispatcher struct {
	Registry Snapshotter
	Runner   Runner
	// MaxResultBytes caps a result's JSON (0 means DefaultMaxResultBytes).
	MaxResultBytes int
	// DenyIrreversible refuses irreversible actions even when confirmed.
	DenyIrreversible bool
	// Audit, when set, receives every call that came through a *_confirmed
	// tool, every irreversible call refused, and every call refused because
	// its tool needs approval.
	Audit func(audit.Entry)
}

// Call is one request to run an action.
type Call struct {
	// Kind is what the caller asked for: a tool (run_tool) or an agent
	// (run_agent).
	Kind manifests.Kind
	// Name is the tool or agent; Action may be empty when it has one action.
	Name   string
	Action string
	// Args is the JSON object of arguments (empty means {}).
	Args json.RawMessage
	// Confirmed is true when the call came through a *_confirmed tool.
	Confirmed bool
	// Caller says who called; its Confirmed and MaxResultBytes are set here.
	Caller *wire.Caller
	// Ask, when set, asks the person about an irreversible call that was
	// not confirmed, instead of answering approval_required; nested calls
	// of an agent ask the same way.
	Ask Asker
	// Client, when set, is the MCP client the call came from, to which a
	// hosted MCP server's requests during the call are passed.
	Client Client
	// Surface names the curated surface the call came through ("chat"),
	// empty for the generic tools and the terminal. A curated surface has
	// no *_confirmed twin, so the gate refuses an irreversible action on it
	// outright.
	Surface string
	// Subject is who the request was authenticated as (an OAuth access
	// token's sub), for the audit log; empty when nothing authenticated a
	// person (stdio, the terminal, a shared bearer token).
	Subject string
}

// Outcome is a call's answer: the plugin's data (a JSON object) with its
// optional Markdown, or the error envelope. It becomes JSON only at the
// edge (Body), for the MCP client or the terminal.
type Outcome struct {
	// JSON is the data of a successful call, a JSON object.
	JSON json.RawMessage
	// Markdown is the plugin's rendering of the data, when it gave one.
	Markdown string
	// Err is the error envelope of a failed call; nil on success.
	Err *wire.Error
}

// IsError reports whether the call failed.
func (o Outcome) IsError() bool { return o.Err != nil }

// Code returns the error code of a failed outcome, else "".
func (o Outcome) Code() wire.Code {
	if o.Err == nil {
		return ""
	}
	return o.Err.Code
}

// Body is the JSON a client sees: the data, or {"error": {...}}.
func (o Outcome) Body() json.RawMessage {
	if o.Err == nil {
		return o.JSON
	}
	b, err := json.Marshal(map[string]*wire.Error{"error": o.Err})
	if err != nil {
		return json.RawMessage(`{"error":{"code":"internal_error","message":"encode error envelope"}}`)
	}
	return b
}

// Wire is the outcome as a plugin result, for an agent's nested call.
func (o Outcome) Wire() *wire.Result {
	if o.Err != nil {
		return &wire.Result{Error: o.Err.Envelope()}
	}
	return &wire.Result{Json: o.JSON, Markdown: o.Markdown}
}

// Fail builds a failed outcome from an envelope.
func Fail(e *wire.Error) Outcome { return Outcome{Err: e} }

// failf builds a failed outcome from a code and message.
func failf(code wire.Code, nextStep, format string, a ...any) Outcome {
	return Fail(&wire.Error{Code: code, Message: fmt.Sprintf(format, a...), NextStep: nextStep})
}

// withArticle is "a tool" or "an agent".
func withArticle(k manifests.Kind) string {
	if k == manifests.KindAgent {
		return "an agent"
	}
	return "a tool"
}

// Resolve finds the tool and action of a call and checks its args, without
// running anything. On success it returns the tool, the action and the
// checked args (defaults filled).
func (d *Dispatcher) Resolve(call Call) (*registry.Tool, *manifests.Action, map[string]any, *Outcome) {
	snap := d.Registry.Snapshot()
	kind := call.Kind
	if kind == "" {
		kind = manifests.KindTool
	}
	tool, suggestions := snap.Tool(call.Name)
	if tool == nil {
		if b := brokenManifest(snap, call.Name); b != nil {
			out := Fail(&wire.Error{Code: wire.CodeNotReady,
				Message:  fmt.Sprintf("%s cannot run: its manifest is broken: %s", call.Name, b.Error),
				NextStep: fmt.Sprintf("fix %s (host check lists every problem), then approve the folder again", b.Path)})
			return nil, nil, nil, &out
		}
		out := Fail((&wire.Error{Code: wire.CodeUnknownTool,
			Message:    fmt.Sprintf("no %s named %q", kind, call.Name),
			DidYouMean: suggestions,
		}).WithNext(wire.Step{Run: wire.StepCapabilities, Why: "to list what is available"}))
		return nil, nil, nil, &out
	}
	if tool.Manifest.Kind != kind {
		out := failf(wire.CodeUnknownTool, fmt.Sprintf("call %s with %q", tool.Manifest.Kind.RunTool(), call.Name),
			"%q is %s, not %s", call.Name, withArticle(tool.Manifest.Kind), withArticle(kind))
		return nil, nil, nil, &out
	}
	name := call.Action
	if name == "" {
		if len(tool.Manifest.Actions) != 1 {
			out := Fail((&wire.Error{Code: wire.CodeInvalidArgs,
				Message:    fmt.Sprintf("%s has %d actions: name one with action", call.Name, len(tool.Manifest.Actions)),
				DidYouMean: tool.Manifest.ActionNames(),
			}).WithNext(wire.Step{Run: wire.StepCapabilities, Tool: call.Name, Why: "to see them"}))
			return nil, nil, nil, &out
		}
		name = tool.Manifest.Actions[0].Name
	}
	action := tool.Manifest.Action(name)
	if action == nil {
		out := Fail((&wire.Error{Code: wire.CodeUnknownAction,
			Message:    fmt.Sprintf("%s has no action %q", call.Name, name),
			DidYouMean: manifests.Suggest(name, tool.Manifest.ActionNames()),
		}).WithNext(wire.Step{Run: wire.StepCapabilities, Tool: call.Name, Why: "to list its actions"}))
		return nil, nil, nil, &out
	}
	args, err := action.Check(call.Args)
	if err != nil {
		env := InvalidArgs(call.Name+" "+name, err).
			WithNext(wire.Step{Run: wire.StepCapabilities, Tool: call.Name, Action: name, Why: "for the args"})
		out := Fail(env)
		return nil, nil, nil, &out
	}
	return tool, action, args, nil
}

// Run runs one call end to end. It never panics on plugin misbehaviour:
// every failure is an Outcome carrying the error envelope.
func (d *Dispatcher) Run(ctx context.Context, call Call, onProgress func(*wire.Progress)) Outcome {
	tool, action, args, failure := d.Resolve(call)
	if failure != nil {
		return *failure
	}
	out := d.run(ctx, call, tool, action, args, onProgress)
	irreversible, _ := tool.Manifest.Irreversible(action)
	needsApproval := tool.Approval == registry.ApprovalNew || tool.Approval == registry.ApprovalChanged
	if d.Audit != nil && (call.Confirmed || irreversible || needsApproval) {
		d.Audit(auditEntry(call, tool, action, irreversible, out))
	}
	return out
}

// auditEntry describes a finished call for the audit log: the names of the
// args the caller gave, never their values.
func auditEntry(call Call, tool *registry.Tool, action *manifests.Action, irreversible bool, out Outcome) audit.Entry {
	var given map[string]json.RawMessage
	_ = json.Unmarshal(call.Args, &given)
	names := make([]string, 0, len(given))
	for k := range given {
		names = append(names, k)
	}
	sort.Strings(names)
	e := audit.Entry{Time: time.Now().UTC(), Subject: call.Subject, Client: "unknown", Tool: tool.Name(), Action: action.Name, Args: names,
		Confirmed: call.Confirmed, Irreversible: irreversible, Outcome: "ok"}
	if c := call.Caller; c != nil {
		if c.GetClientName() != "" {
			e.Client = c.GetClientName()
		}
		e.ClientVersion, e.Agent = c.GetClientVersion(), c.GetAgent()
	}
	if out.IsError() {
		e.Outcome = string(out.Code())
	}
	return e
}

// run gates and runs a resolved call.
func (d *Dispatcher) run(ctx context.Context, call Call, tool *registry.Tool, action *manifests.Action, args map[string]any, onProgress func(*wire.Progress)) Outcome {
	approval := tool.Manifest.Kind.ConfirmedTool()
	if call.Surface != "" {
		approval = ""
	}
	if env := gate.Check(tool.Manifest, action, call.Confirmed && call.Surface == "", d.DenyIrreversible, approval); env != nil {
		// Ask the person only about a call that could then run.
		if env.Code == wire.CodeApprovalRequired && call.Ask != nil && tool.Ready {
			_, why := tool.Manifest.Irreversible(action)
			env = askPerson(ctx, call.Ask, Question{Tool: tool.Name(), Action: action.Name, Args: args, Why: why, Agent: call.Caller.GetAgent()}, env)
		}
		if env != nil {
			return Fail(env)
		}
	}
	if !tool.Ready {
		next := tool.NextStep
		if next == "" {
			next = "run `host check`, fix what it says, then call again"
		}
		return failf(wire.CodeNotReady, next, "%s is not ready: %s", tool.Name(), tool.NotReady)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return failf(wire.CodeInternalError, "", "encode args: %v", err)
	}
	if len(raw) > MaxArgsBytes {
		return failf(wire.CodeInvalidArgs, "pass large data as a file the tool reads (a path), not inline",
			"the args of %s %s are %d bytes, over the host's limit of %d", tool.Name(), action.Name, len(raw), MaxArgsBytes)
	}
	max := d.maxBytes()
	caller := &wire.Caller{ClientName: "unknown"}
	if call.Caller != nil {
		caller = copyCaller(call.Caller)
	}
	if caller.Channel != wire.ChannelTerminal {
		caller.Channel = wire.ChannelMCP // only the terminal commands set terminal
	}
	caller.Confirmed = call.Confirmed
	caller.MaxResultBytes = int64(max)
	res := d.Runner.Call(withCall(ctx, call, action.Name), tool, &wire.CallRequest{Action: action.Name, ArgsJson: raw, Caller: caller}, onProgress)
	if res.GetError() != nil {
		return Fail(wire.ErrorFrom(res.GetError()))
	}
	if bad := checkResult(tool, action, res); bad != nil {
		return *bad
	}
	return capResult(tool, action, res, max)
}

// checkResult holds a plugin's result to what the host promises its
// clients: one JSON object, valid UTF-8 (its Markdown too). Anything else
// is the plugin's bug, answered as internal_error naming it — never passed
// on, never dropped.
func checkResult(tool *registry.Tool, action *manifests.Action, res *wire.Result) *Outcome {
	body := bytes.TrimSpace(res.GetJson())
	var what string
	switch {
	case len(body) == 0:
		return nil // no data: an empty object
	case !utf8.Valid(body):
		what = "is not valid UTF-8"
	case !json.Valid(body):
		what = "is not valid JSON"
	case body[0] != '{':
		what = "is JSON but not an object"
	case !utf8.ValidString(res.GetMarkdown()):
		what = "has Markdown that is not valid UTF-8"
	default:
		return nil
	}
	out := failf(wire.CodeInternalError, fmt.Sprintf("this is a bug in the plugin %s: report it to its author; other tools are not affected", tool.Name()),
		"the plugin %s returned a malformed result for %s (%d bytes): it %s", tool.Name(), action.Name, len(res.GetJson()), what)
	return &out
}

// copyCaller copies every field of c (TestCopyCallerCopiesEveryField holds
// it to proto.Clone), without proto.Clone's reflection on every call.
func copyCaller(c *wire.Caller) *wire.Caller {
	return &wire.Caller{
		ClientName:     c.GetClientName(),
		ClientVersion:  c.GetClientVersion(),
		RequestId:      c.GetRequestId(),
		Confirmed:      c.GetConfirmed(),
		Agent:          c.GetAgent(),
		MaxResultBytes: c.GetMaxResultBytes(),
		Channel:        c.GetChannel(),
	}
}

func (d *Dispatcher) maxBytes() int {
	if d.MaxResultBytes > 0 {
		return d.MaxResultBytes
	}
	return DefaultMaxResultBytes
}

// capResult holds a result to the cap: never a cut, invalid JSON — an
// oversized result becomes result_too_large naming the narrow_with args.
func capResult(tool *registry.Tool, action *manifests.Action, res *wire.Result, max int) Outcome {
	body := res.GetJson()
	if len(body) == 0 {
		body = []byte("{}")
	}
	if len(body) > max {
		return Fail(&wire.Error{Code: wire.CodeResultTooLarge,
			Message:  fmt.Sprintf("the result of %s %s is %d bytes, over the host's limit of %d (HOST_MAX_RESULT_BYTES)", tool.Name(), action.Name, len(body), max),
			NextStep: action.AskForLess(), Details: map[string]any{"bytes": len(body), "max_bytes": max, "narrow_with": action.NarrowWith}})
	}
	md := res.GetMarkdown()
	if len(md) > max {
		md = "" // the JSON fits; its Markdown rendering does not
	}
	return Outcome{JSON: body, Markdown: md}
}

// brokenManifest is the broken tool.yaml of a plugin folder named name (the
// folder's name is all a broken manifest reliably gives), or nil.
func brokenManifest(snap *registry.Snapshot, name string) *registry.Broken {
	for i, b := range snap.Broken {
		if filepath.Base(b.Path) == manifests.FileName && filepath.Base(filepath.Dir(b.Path)) == name {
			return &snap.Broken[i]
		}
	}
	return nil
}
