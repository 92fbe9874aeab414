package mcpproto

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The prompts capability follows what the plugins contribute: while no
// prompt is published the server declares no prompts capability (in
// initialize and server/discover) and answers every prompts/* method with
// -32601, as for any method it does not implement; once one is published
// (AddPrompt) it declares the capability and answers them. A server that
// declared nothing but answered prompts/list anyway told a client two
// different things (the conformance suite's
// sep-2575-server-declares-prompts-in-discover).

// AddPrompt publishes a prompt (replacing one of the same name). The
// prompts capability is declared from then on.
func (s *Server) AddPrompt(p *mcp.Prompt, h mcp.PromptHandler) {
	s.promptsMu.Lock()
	defer s.promptsMu.Unlock()
	if s.prompts == nil {
		s.prompts = map[string]bool{}
	}
	s.prompts[p.Name] = true
	s.mcp.AddPrompt(p, h)
}

// RemovePrompts withdraws prompts by name; with the last one gone the
// prompts capability is no longer declared.
func (s *Server) RemovePrompts(names ...string) {
	s.promptsMu.Lock()
	defer s.promptsMu.Unlock()
	for _, n := range names {
		delete(s.prompts, n)
	}
	s.mcp.RemovePrompts(names...)
}

// hasPrompts reports whether any prompt is published.
func (s *Server) hasPrompts() bool {
	s.promptsMu.Lock()
	defer s.promptsMu.Unlock()
	return len(s.prompts) > 0
}

// AddResource publishes a fixed resource (replacing one of the same URI).
// The resources capability is declared from then on.
func (s *Server) AddResource(r *mcp.Resource, h mcp.ResourceHandler) {
	s.trackResource("r:"+r.URI, true)
	s.mcp.AddResource(r, h)
}

// AddResourceTemplate publishes a resource template (replacing one of the
// same template). The resources capability is declared from then on.
func (s *Server) AddResourceTemplate(t *mcp.ResourceTemplate, h mcp.ResourceHandler) {
	s.trackResource("t:"+t.URITemplate, true)
	s.mcp.AddResourceTemplate(t, h)
}

// RemoveResources withdraws fixed resources by URI; with the last resource
// and template gone the resources capability is no longer declared.
func (s *Server) RemoveResources(uris ...string) {
	for _, u := range uris {
		s.trackResource("r:"+u, false)
	}
	s.mcp.RemoveResources(uris...)
}

// RemoveResourceTemplates withdraws resource templates.
func (s *Server) RemoveResourceTemplates(templates ...string) {
	for _, t := range templates {
		s.trackResource("t:"+t, false)
	}
	s.mcp.RemoveResourceTemplates(templates...)
}

func (s *Server) trackResource(key string, on bool) {
	s.resourcesMu.Lock()
	defer s.resourcesMu.Unlock()
	if s.resources == nil {
		s.resources = map[string]bool{}
	}
	if on {
		s.resources[key] = true
	} else {
		delete(s.resources, key)
	}
}

// hasResources reports whether any resource or template is published.
func (s *Server) hasResources() bool {
	s.resourcesMu.Lock()
	defer s.resourcesMu.Unlock()
	return len(s.resources) > 0
}

// capabilities is what the server declares: tools always, prompts and
// resources while some are published.
func (s *Server) capabilities() *mcp.ServerCapabilities {
	c := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}
	if s.hasPrompts() {
		c.Prompts = &mcp.PromptCapabilities{ListChanged: true}
	}
	if s.hasResources() {
		c.Resources = &mcp.ResourceCapabilities{ListChanged: true}
	}
	return c
}

// undeclaredMethod answers a method of a capability the server does not
// declare with -32601 (nil when the method is served).
func (s *Server) undeclaredMethod(_ context.Context, method string) error {
	if strings.HasPrefix(method, "prompts/") && !s.hasPrompts() {
		return &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
			Message: "Method not found: " + method + " (this server publishes no prompts; it declares the prompts capability when a plugin contributes some)"}
	}

	return nil
}
