package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/host/internal/oauth"
	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// ContentUser runs one of a plugin's optional RPCs (GetPrompt,
// ReadResource); *supervisor.Supervisor is the production implementation.
// It returns a failure when the plugin could not serve the request, with
// unimplemented true when the plugin does not implement the RPC at all.
type ContentUser interface {
	Use(ctx context.Context, tool *registry.Tool, what string, fn func(ctx context.Context, c *wire.Client) error) (failure *wire.Result, unimplemented bool)
}

// content is what the server publishes of the plugins' prompts and
// resources: each key ("p:notes/ingest", "r:notes://index",
// "t:notes://page/{+path}") maps to the JSON of its declaration, so a
// changed declaration is published again.
type content struct {
	published map[string]string
	// owner maps each published key to the tool contributing it, whose
	// scope a token needs to see or use it.
	owner map[string]string
	// silent maps a tool to the binary (sha256) that answered Unimplemented:
	// it contributes nothing until the binary changes.
	silent map[string]string
}

// SyncContent publishes the prompts, resources and resource templates the
// ready tools' manifests declare, namespaced by tool (prompt "notes/ingest",
// URIs "notes://…"), and withdraws those whose tool went away: the SDK
// tells connected clients (notifications/prompts/list_changed and
// resources/list_changed). Nothing is launched. It does nothing when the
// server has no ContentUser.
func (s *Server) SyncContent(snap *registry.Snapshot) {
	if s.opts.Content == nil || snap == nil {
		return
	}
	s.contentMu.Lock()
	defer s.contentMu.Unlock()
	want := map[string]string{}
	owner := map[string]string{}
	adds := map[string]func(){}
	for _, t := range snap.Tools {
		if !t.Ready || s.content.silent[t.Name()] == t.SHA256 {
			continue
		}
		tool := t.Name()
		for _, p := range t.Manifest.Prompts {
			mp := &mcp.Prompt{Name: tool + "/" + p.Name, Title: p.Title, Description: p.Description}
			for _, a := range p.Arguments {
				mp.Arguments = append(mp.Arguments, &mcp.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
			}
			key := "p:" + mp.Name
			owner[key] = tool
			want[key] = declJSON(mp)
			adds[key] = func() { s.AddPrompt(mp, s.getPrompt(tool, p.Name, mp)) }
		}
		for _, r := range t.Manifest.Resources {
			mr := &mcp.Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType}
			key := "r:" + r.URI
			owner[key] = tool
			want[key] = declJSON(mr)
			adds[key] = func() { s.AddResource(mr, s.readResource(tool)) }
		}
		for _, r := range t.Manifest.ResourceTemplates {
			mt := &mcp.ResourceTemplate{URITemplate: r.URITemplate, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType}
			key := "t:" + r.URITemplate
			owner[key] = tool
			want[key] = declJSON(mt)
			adds[key] = func() { s.AddResourceTemplate(mt, s.readResource(tool)) }
		}
	}
	for key, decl := range s.content.published {
		if want[key] != decl {
			kind, id, _ := strings.Cut(key, ":")
			switch kind {
			case "p":
				s.RemovePrompts(id)
			case "r":
				s.RemoveResources(id)
			case "t":
				s.RemoveResourceTemplates(id)
			}
			delete(s.content.published, key)
			delete(s.content.owner, key)
		}
	}
	for key, decl := range want {
		if _, ok := s.content.published[key]; !ok {
			adds[key]()
			s.content.published[key] = decl
			s.content.owner[key] = owner[key]
		}
	}
}

// FollowContent keeps the published prompts and resources in step with
// the registry: after each value on changes (registry.Changes) it syncs
// with the new snapshot. It returns when ctx ends.
func (s *Server) FollowContent(ctx context.Context, changes <-chan struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-changes:
			s.SyncContent(s.opts.Registry.Snapshot())
		}
	}
}

// silence withdraws everything tool contributes until its binary changes:
// it answered Unimplemented.
func (s *Server) silence(t *registry.Tool) {
	s.contentMu.Lock()
	s.content.silent[t.Name()] = t.SHA256
	s.contentMu.Unlock()
	s.SyncContent(s.opts.Registry.Snapshot())
}

func declJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// readyTool returns the named tool when it is still listed and ready.
func (s *Server) readyTool(name, what string) (*registry.Tool, error) {
	t, _ := s.opts.Registry.Snapshot().Tool(name)
	if t == nil || !t.Ready {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("%s is no longer available: tool %s is not ready (call capabilities to see why)", what, name)}
	}
	return t, nil
}

// callContent runs call (a prompt or resource request, named by what) on
// tool's plugin, launched on demand, when the tool is still ready. A
// plugin that answers Unimplemented is silenced, and a plugin that cannot
// be reached comes back as the JSON-RPC error.
func (s *Server) callContent(ctx context.Context, tool, what string, call func(context.Context, *wire.Client) error) error {
	if err := scopeError(ctx, tool); err != nil {
		return err
	}
	t, err := s.readyTool(tool, what)
	if err != nil {
		return err
	}
	fail, unimplemented := s.opts.Content.Use(ctx, t, what, call)
	if unimplemented {
		s.silence(t)
	}
	if fail != nil {
		return failure(fail.GetError(), nil)
	}
	return nil
}

// scopeError refuses a prompt or resource request whose token's scopes do
// not allow tool, the tool contributing it: the same insufficient_scope
// refusal as a tools/call (403 over OAuth), as a JSON-RPC error since
// prompts and resources have no isError result. Requests without a token
// pass.
func scopeError(ctx context.Context, tool string) error {
	refused := oauth.Check(ctx, tool)
	if refused == nil {
		return nil
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
		Message: string(refused.Code) + ": " + refused.Message + " (" + refused.NextStep + ")"}
}

// filterContent narrows a prompts/list, resources/list or
// resources/templates/list answer to what the tools the request's token
// allows contribute; requests without a token see everything.
func (s *Server) filterContent(ctx context.Context, res mcp.Result) {
	allow := oauth.ToolFilter(ctx)
	if allow == nil {
		return
	}
	s.contentMu.Lock()
	defer s.contentMu.Unlock()
	ok := func(key string) bool {
		tool, found := s.content.owner[key]
		return found && allow(tool)
	}
	switch r := res.(type) {
	case *mcp.ListPromptsResult:
		r.Prompts = keep(r.Prompts, func(p *mcp.Prompt) bool { return ok("p:" + p.Name) })
	case *mcp.ListResourcesResult:
		r.Resources = keep(r.Resources, func(x *mcp.Resource) bool { return ok("r:" + x.URI) })
	case *mcp.ListResourceTemplatesResult:
		r.ResourceTemplates = keep(r.ResourceTemplates, func(x *mcp.ResourceTemplate) bool { return ok("t:" + x.URITemplate) })
	}
}

// keep returns a new slice of the elements of in that ok accepts (never
// nil, so an empty list stays a JSON array).
func keep[T any](in []T, ok func(T) bool) []T {
	out := make([]T, 0, len(in))
	for _, x := range in {
		if ok(x) {
			out = append(out, x)
		}
	}
	return out
}

// contentMiddleware filters the content lists by the token's scopes.
func (s *Server) contentMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err == nil && res != nil {
			switch method {
			case "prompts/list", "resources/list", "resources/templates/list":
				s.filterContent(ctx, res)
			}
		}
		return res, err
	}
}

// contentCaller is the caller of a prompt or resource request: always the
// MCP channel.
func contentCaller(ss *mcp.ServerSession) *wire.Caller {
	c := &wire.Caller{ClientName: "unknown", Channel: wire.ChannelMCP}
	if ss != nil {
		if ip := ss.InitializeParams(); ip != nil && ip.ClientInfo != nil && ip.ClientInfo.Name != "" {
			c.ClientName, c.ClientVersion = ip.ClientInfo.Name, ip.ClientInfo.Version
		}
	}
	return c
}

// failure turns a plugin's failure into a JSON-RPC error: prompts and
// resources have no isError result.
func failure(env *wire.ErrorEnvelope, notFound error) error {
	if env.GetCode() == "not_found" && notFound != nil {
		return notFound
	}
	msg := env.GetMessage()
	if env.GetNextStep() != "" {
		msg += " (" + env.GetNextStep() + ")"
	}
	code := int64(jsonrpc.CodeInternalError)
	switch env.GetCode() {
	case string(wire.CodeInvalidArgs), "invalid_argument", "not_found", "unsafe_path", "invalid_path":
		code = jsonrpc.CodeInvalidParams
	}
	return &jsonrpc.Error{Code: code, Message: env.GetCode() + ": " + msg}
}

// getPrompt renders tool's prompt through its plugin, launched on demand.
func (s *Server) getPrompt(tool, prompt string, decl *mcp.Prompt) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		if err := scopeError(ctx, tool); err != nil {
			return nil, err
		}
		for _, a := range decl.Arguments {
			if a.Required && req.Params.Arguments[a.Name] == "" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
					Message: fmt.Sprintf("prompt %s needs argument %q: %s", decl.Name, a.Name, a.Description)}
			}
		}
		var resp *wire.GetPromptResponse
		if err := s.callContent(ctx, tool, "prompt "+decl.Name, func(ctx context.Context, c *wire.Client) (err error) {
			resp, err = c.GetPrompt(ctx, &wire.GetPromptRequest{Name: prompt, Arguments: req.Params.Arguments, Caller: contentCaller(req.Session)})
			return err
		}); err != nil {
			return nil, err
		}
		if resp.GetError() != nil {
			return nil, failure(resp.GetError(), nil)
		}
		out := &mcp.GetPromptResult{Description: resp.GetDescription()}
		if out.Description == "" {
			out.Description = decl.Description
		}
		for _, m := range resp.GetMessages() {
			role := mcp.Role(m.GetRole())
			if role != "assistant" {
				role = "user"
			}
			out.Messages = append(out.Messages, &mcp.PromptMessage{Role: role, Content: &mcp.TextContent{Text: m.GetText()}})
		}
		return out, nil
	}
}

// readResource reads a resource of tool through its plugin, launched on
// demand.
func (s *Server) readResource(tool string) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		var resp *wire.ReadResourceResponse
		if err := s.callContent(ctx, tool, "resource "+uri, func(ctx context.Context, c *wire.Client) (err error) {
			resp, err = c.ReadResource(ctx, &wire.ReadResourceRequest{Uri: uri, Caller: contentCaller(req.Session)})
			return err
		}); err != nil {
			return nil, err
		}
		if resp.GetError() != nil {
			return nil, failure(resp.GetError(), mcp.ResourceNotFoundError(uri))
		}
		out := &mcp.ReadResourceResult{}
		for _, c := range resp.GetContents() {
			out.Contents = append(out.Contents, &mcp.ResourceContents{URI: c.GetUri(), MIMEType: c.GetMimeType(), Text: c.GetText(), Blob: c.GetBlob()})
		}
		if len(out.Contents) == 0 {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return out, nil
	}
}
