package sdk

import (
	"context"
	"fmt"
	"sort"

	"github.com/toolhost/toolhost/sdk/wire"
)

// PromptHandler renders one prompt. A returned *Error reaches the client as
// the prompt's error; a panic is recovered into an internal_error.
type PromptHandler func(ctx context.Context, req *PromptRequest) (*PromptResult, error)

// PromptRequest asks for one prompt with its arguments.
type PromptRequest struct {
	// Name is the prompt's name as tool.yaml declares it.
	Name string
	// Arguments are the client's values, by argument name.
	Arguments map[string]string
	// Caller says who asked.
	Caller Caller
}

// PromptResult is a rendered prompt: messages a client puts in front of
// the model.
type PromptResult struct {
	Description string
	Messages    []PromptMessage
}

// PromptMessage is one message of a prompt; Role is "user" or "assistant".
type PromptMessage struct {
	Role string
	Text string
}

// ResourceHandler reads one resource by URI. It returns an *Error with
// CodeNotFound when no such resource exists.
type ResourceHandler func(ctx context.Context, req *ResourceRequest) (*ResourceContents, error)

// ResourceRequest asks for one resource.
type ResourceRequest struct {
	URI    string
	Caller Caller
}

// ResourceContents is a read resource: Text (or Blob for bytes) of
// MIMEType.
type ResourceContents struct {
	MIMEType string
	Text     string
	Blob     []byte
}

// CodeNotFound answers a resource (or prompt) that does not exist.
const CodeNotFound Code = "not_found"

// ListPrompts names the prompts the plugin serves, sorted.
func (s *server) ListPrompts(context.Context, *wire.ListPromptsRequest) (*wire.ListPromptsResponse, error) {
	names := make([]string, 0, len(s.plugin.Prompts))
	for n := range s.plugin.Prompts {
		names = append(names, n)
	}
	sort.Strings(names)
	return &wire.ListPromptsResponse{Names: names}, nil
}

// GetPrompt renders one prompt.
func (s *server) GetPrompt(ctx context.Context, in *wire.GetPromptRequest) (resp *wire.GetPromptResponse, _ error) {
	h, ok := s.plugin.Prompts[in.GetName()]
	if !ok {
		return &wire.GetPromptResponse{Error: ErrorToWire(&Error{Code: CodeNotFound,
			Message: fmt.Sprintf("no prompt named %q", in.GetName())})}, nil
	}
	defer func() {
		if r := recover(); r != nil {
			resp = &wire.GetPromptResponse{Error: ErrorToWire(panicked(r, "prompt "+in.GetName()))}
		}
	}()
	res, err := h(ctx, &PromptRequest{Name: in.GetName(), Arguments: in.GetArguments(), Caller: callerFromWire(in.GetCaller())})
	if err != nil {
		return &wire.GetPromptResponse{Error: ErrorToWire(AsError(err))}, nil
	}
	out := &wire.GetPromptResponse{Description: res.Description}
	for _, m := range res.Messages {
		out.Messages = append(out.Messages, &wire.PromptMessage{Role: m.Role, Text: m.Text})
	}
	return out, nil
}

// ListResources names the resources and templates the plugin serves.
func (s *server) ListResources(context.Context, *wire.ListResourcesRequest) (*wire.ListResourcesResponse, error) {
	return &wire.ListResourcesResponse{Uris: s.plugin.ResourceURIs, UriTemplates: s.plugin.ResourceTemplates}, nil
}

// ReadResource reads one resource.
func (s *server) ReadResource(ctx context.Context, in *wire.ReadResourceRequest) (resp *wire.ReadResourceResponse, _ error) {
	if s.plugin.Resources == nil {
		return &wire.ReadResourceResponse{Error: ErrorToWire(&Error{Code: CodeNotFound,
			Message: fmt.Sprintf("no resource %s: this plugin serves no resources", in.GetUri())})}, nil
	}
	defer func() {
		if r := recover(); r != nil {
			resp = &wire.ReadResourceResponse{Error: ErrorToWire(panicked(r, "reading "+in.GetUri()))}
		}
	}()
	c, err := s.plugin.Resources(ctx, &ResourceRequest{URI: in.GetUri(), Caller: callerFromWire(in.GetCaller())})
	if err != nil {
		return &wire.ReadResourceResponse{Error: ErrorToWire(AsError(err))}, nil
	}
	return &wire.ReadResourceResponse{Contents: []*wire.ResourceContents{{Uri: in.GetUri(), MimeType: c.MIMEType, Text: c.Text, Blob: c.Blob}}}, nil
}
