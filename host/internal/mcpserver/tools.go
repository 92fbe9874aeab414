package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/host/internal/discovery"
	"github.com/toolhost/toolhost/host/internal/dispatch"
	"github.com/toolhost/toolhost/host/internal/mcpproto"
	"github.com/toolhost/toolhost/host/internal/oauth"
	"github.com/toolhost/toolhost/host/internal/toolresult"
	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/sdk/wire"
)

// toolDef is one published tool and its handler.
type toolDef struct {
	tool    *mcp.Tool
	handler mcp.ToolHandler
}

func ptr[T any](v T) *T { return &v }

// object is a JSON Schema object with the given properties; required names
// the properties that must be present.
func object(props map[string]any, required ...string) map[string]any {
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }

// runSchema is the input of run_tool, run_agent and their twins; key is
// "tool" or "agent".
func runSchema(key string) map[string]any {
	return object(map[string]any{
		key: str(fmt.Sprintf("The %s's name, exactly as capabilities lists it (kebab-case).", key)),
		"action": str("The action's name, exactly as capabilities lists it (kebab-case, e.g. read-sheet). " +
			"May be omitted when the " + key + " has a single action."),
		"args": map[string]any{"type": "object",
			"description": "The action's args as a JSON object, names exactly as capabilities lists them (kebab-case, e.g. max-results)."},
	}, key)
}

// runDef declares run_tool, run_agent or a confirmed twin: kind names the
// schema's key and what the handler runs; only a confirmed one, which runs
// irreversible actions, is marked destructive.
func (s *Server) runDef(name, title, description string, kind manifests.Kind, confirmed bool) toolDef {
	return toolDef{&mcp.Tool{
		Name:        name,
		Title:       title,
		Description: description,
		InputSchema: runSchema(string(kind)),
		Annotations: &mcp.ToolAnnotations{Title: title, DestructiveHint: ptr(confirmed), OpenWorldHint: ptr(true)},
	}, s.run(kind, confirmed)}
}

func (s *Server) toolDefs() []toolDef {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}
	return []toolDef{
		{&mcp.Tool{
			Name:  manifests.ToolCapabilities,
			Title: "Discover tools, agents and skills",
			Description: "Call this first. Answers narrowest first: {} lists the ready tools, agents and skills (name + one line); " +
				`{"search":"the task in your words"} ranks every action and skill and answers the best five with scores (name + description; with "name", one tool's actions only; "no good match" when nothing scores enough); ` +
				`{"name":"xlsx","action":"read-sheet"} gives that action's args (name, type, required, description) and the literal run_tool call; ` +
				`{"name":"xlsx"} gives the tool's full schema, or its action index when that would be too large. ` +
				"kind filters to tool, agent or skill. Arg and action names are kebab-case and must be used verbatim.",
			InputSchema: object(map[string]any{
				"kind":   map[string]any{"type": "string", "enum": discovery.Kinds, "description": "Only tools, agents or skills."},
				"name":   str("A tool, agent or skill name."),
				"action": str("One action of name: answers its args and the exact call shape."),
				"search": str("The task in your own words: ranks actions and skills by name, description, args and keywords."),
			}),
			Annotations: readOnly,
		}, s.capabilities},
		s.runDef(manifests.ToolRunTool, "Run a tool action",
			"Run one action of a tool: {\"tool\":\"xlsx\",\"action\":\"read-sheet\",\"args\":{\"path\":\"f.xlsx\"}}. "+
				"Get the exact names and args from capabilities first. Returns the tool's result as JSON (and Markdown when it has one). "+
				"Irreversible actions (delete, send, pay, …) are refused with approval_required: ask the user, then use run_tool_confirmed. "+
				"Errors come back as {\"error\":{code, message, did_you_mean, schema, next_step}}.",
			manifests.KindTool, false),
		s.runDef(manifests.ToolRunAgent, "Run an agent action",
			"Run one action of an agent (a plugin that calls other tools through the host): "+
				"{\"agent\":\"name\",\"action\":\"…\",\"args\":{…}}. Same rules as run_tool: discover with capabilities first; "+
				"irreversible actions answer approval_required and need run_agent_confirmed after the user approves.",
			manifests.KindAgent, false),
		s.runDef(manifests.ToolRunToolConfirmed, "Run a tool action the user approved",
			"Run any tool action, irreversible ones included, after the user has approved this exact call. "+
				"Same input as run_tool. Use it only when run_tool answered approval_required and the user said yes. "+
				"The host may refuse it (denied) when irreversible actions are switched off.",
			manifests.KindTool, true),
		s.runDef(manifests.ToolRunAgentConfirmed, "Run an agent action the user approved",
			"Run any agent action, irreversible ones included, after the user has approved this exact call. "+
				"Same input as run_agent. Use it only when run_agent answered approval_required and the user said yes.",
			manifests.KindAgent, true),
		{&mcp.Tool{
			Name:  manifests.ToolGetSkill,
			Title: "Read a skill",
			Description: "Return a skill's full Markdown (how to do a task with the tools here). " +
				"capabilities with {} or {\"kind\":\"skill\"} lists the skills.",
			InputSchema: object(map[string]any{"name": str("The skill's name, as capabilities lists it.")}, "name"),
			Annotations: readOnly,
		}, s.getSkill},
	}
}

// decodeInput strictly decodes a tool's arguments into dst. An unknown or
// mistyped field is an invalid_args outcome naming the valid fields.
func decodeInput(tool string, raw json.RawMessage, dst any, fields []string) *dispatch.Outcome {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		raw = json.RawMessage("{}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		out := dispatch.Fail(&wire.Error{Code: wire.CodeInvalidArgs,
			Message: fmt.Sprintf("%s takes a JSON object of arguments", tool), NextStep: "give " + strings.Join(fields, ", ")})
		return &out
	}
	var unknown []string
	for k := range obj {
		if !slices.Contains(fields, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		env := &wire.Error{Code: wire.CodeInvalidArgs,
			Message:    fmt.Sprintf("%s has no argument %q; its arguments are %s", tool, unknown[0], strings.Join(fields, ", ")),
			DidYouMean: manifests.Suggest(unknown[0], fields)}
		if slices.Contains(fields, "args") {
			env.NextStep = "put the action's own args inside \"args\": {\"tool\":\"…\",\"action\":\"…\",\"args\":{…}}"
		}
		out := dispatch.Fail(env)
		return &out
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		out := dispatch.Fail(&wire.Error{Code: wire.CodeInvalidArgs,
			Message: fmt.Sprintf("%s: %v", tool, jsonTypeError(err)), NextStep: "give " + strings.Join(fields, ", ")})
		return &out
	}
	return nil
}

// jsonTypeError says which field had the wrong type, in the user's words.
func jsonTypeError(err error) string {
	if te, ok := err.(*json.UnmarshalTypeError); ok && te.Field != "" {
		return fmt.Sprintf("argument %q must be a %s, not a %s", te.Field, te.Type.Kind(), te.Value)
	}
	return err.Error()
}

func (s *Server) capabilities(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var q discovery.Query
	if bad := decodeInput(manifests.ToolCapabilities, req.Params.Arguments, &q, []string{"kind", "name", "action", "search"}); bad != nil {
		return toolresult.Of(*bad), nil
	}
	q.Allow = oauth.ToolFilter(ctx) // over OAuth, only what the token's scopes let it run
	ans, env := discovery.Answer(s.opts.Registry.Snapshot(), q, s.opts.CapabilitiesMaxBytes)
	if env != nil {
		return toolresult.Of(dispatch.Fail(env)), nil
	}
	b, err := json.Marshal(ans)
	if err != nil {
		return toolresult.Of(dispatch.Fail(&wire.Error{Code: wire.CodeInternalError, Message: "encode capabilities"})), nil
	}
	return toolresult.Of(dispatch.Outcome{JSON: b}), nil
}

// runInput is the input of the four run tools; Tool or Agent is set
// according to the kind.
type runInput struct {
	Tool   string          `json:"tool"`
	Agent  string          `json:"agent"`
	Action string          `json:"action"`
	Args   json.RawMessage `json:"args"`
}

func (s *Server) run(kind manifests.Kind, confirmed bool) mcp.ToolHandler {
	key := "tool"
	if kind == manifests.KindAgent {
		key = "agent"
	}
	name := kind.RunTool()
	if confirmed {
		name = kind.ConfirmedTool()
	}
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in runInput
		if bad := decodeInput(name, req.Params.Arguments, &in, []string{key, "action", "args"}); bad != nil {
			return toolresult.Of(*bad), nil
		}
		target := in.Tool
		if kind == manifests.KindAgent {
			target = in.Agent
		}
		if target == "" {
			return toolresult.Of(dispatch.Fail(&wire.Error{Code: wire.CodeInvalidArgs,
				Message:  fmt.Sprintf("%s needs %q: which %s to run", name, key, key),
				NextStep: "call capabilities with {} to list them"})), nil
		}
		onProgress := mcpproto.ProgressSender(ctx, req)
		person := s.askPerson(req)
		out := s.opts.Runner.Run(ctx, dispatch.Call{Kind: kind, Name: target, Action: in.Action, Args: in.Args,
			Confirmed: confirmed, Caller: s.Caller(req), Ask: person.asker(), Client: &callClient{req: req, person: person}}, onProgress)
		return person.result(out), nil
	}
}

func (s *Server) getSkill(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Name string `json:"name"`
	}
	if bad := decodeInput(manifests.ToolGetSkill, req.Params.Arguments, &in, []string{"name"}); bad != nil {
		return toolresult.Of(*bad), nil
	}
	snap := s.opts.Registry.Snapshot()
	sk, suggestions := snap.Skill(in.Name)
	if sk == nil {
		return toolresult.Of(dispatch.Fail(&wire.Error{Code: wire.CodeUnknownSkill,
			Message: fmt.Sprintf("no skill named %q", in.Name), DidYouMean: suggestions,
			NextStep: `call capabilities with {"kind":"skill"} to list the skills`})), nil
	}
	body, err := sk.Body()
	if err != nil {
		return toolresult.Of(dispatch.Fail(&wire.Error{Code: wire.CodeNotReady,
			Message: fmt.Sprintf("skill %s cannot be read: %v", sk.Name, err)})), nil
	}
	b, _ := json.Marshal(map[string]any{"name": sk.Name, "description": sk.Description, "markdown": body})
	return toolresult.Of(dispatch.Outcome{JSON: b, Markdown: body}), nil
}
