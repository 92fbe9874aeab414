package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

const brainyManifest = `name: brainy
description: A fixture tool that contributes prompts and resources.
entrypoint: brainy
actions:
  - {name: look, description: Look., read_only: true, reversible: true}
prompts:
  - name: ingest
    description: Take a source in.
    arguments:
      - {name: source, description: where from, required: true}
resources:
  - {uri: "brainy://index", name: index, mime_type: text/markdown}
resource_templates:
  - {uri_template: "brainy://page/{+path}", name: page, mime_type: application/json}
`

// fakePlugin answers GetPrompt and ReadResource as a plugin would, or
// Unimplemented as an older binary does.
type fakePlugin struct {
	wire.PluginClient
	mu            sync.Mutex
	unimplemented bool
	prompts       []*wire.GetPromptRequest
	reads         []string
}

func (f *fakePlugin) GetPrompt(_ context.Context, in *wire.GetPromptRequest, _ ...grpc.CallOption) (*wire.GetPromptResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.unimplemented {
		return nil, status.Error(codes.Unimplemented, "method GetPrompt not implemented")
	}
	f.prompts = append(f.prompts, in)
	return &wire.GetPromptResponse{Messages: []*wire.PromptMessage{{Role: "user", Text: "ingest " + in.GetArguments()["source"]}}}, nil
}

func (f *fakePlugin) ReadResource(_ context.Context, in *wire.ReadResourceRequest, _ ...grpc.CallOption) (*wire.ReadResourceResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads = append(f.reads, in.GetUri())
	if in.GetUri() == "brainy://page/missing.md" {
		return &wire.ReadResourceResponse{Error: &wire.ErrorEnvelope{Code: "not_found", Message: "no note missing.md"}}, nil
	}
	return &wire.ReadResourceResponse{Contents: []*wire.ResourceContents{{Uri: in.GetUri(), MimeType: "text/markdown", Text: "text of " + in.GetUri()}}}, nil
}

// fakeContent runs fn on the fake plugin, turning Unimplemented into the
// supervisor's answer.
type fakeContent struct{ plugin *fakePlugin }

func (f fakeContent) Use(ctx context.Context, _ *registry.Tool, what string, fn func(context.Context, *wire.Client) error) (*wire.Result, bool) {
	err := fn(ctx, &wire.Client{PluginClient: f.plugin})
	if status.Code(err) == codes.Unimplemented {
		return wire.Failure(wire.CodeNotReady, what+": does not serve prompts or resources", ""), true
	}
	if err != nil {
		return wire.Failure(wire.CodeInternalError, err.Error(), ""), false
	}
	return nil, false
}

func writeTool(t *testing.T, root, name, manifest string) {
	t.Helper()
	dir := filepath.Join(root, name)
	must(t, os.MkdirAll(dir, 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "tool.yaml"), []byte(manifest), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func newContentServer(t *testing.T) (*Server, *registry.Registry, *fakePlugin, string) {
	t.Helper()
	root := t.TempDir()
	writeTool(t, root, "sheets", fixtureManifest)
	writeTool(t, root, "brainy", brainyManifest)
	reg := registry.New(registry.Options{PluginDirs: []string{root}})
	if snap := reg.Scan(); len(snap.Tools) != 2 || len(snap.Broken) > 0 {
		t.Fatalf("fixtures not loaded: %+v", snap.Broken)
	}
	plugin := &fakePlugin{}
	return New(Options{Registry: reg, Runner: &fakeRunner{}, Version: "test", Content: fakeContent{plugin}}), reg, plugin, root
}

func result(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	r, _ := m["result"].(map[string]any)
	if r == nil {
		t.Fatalf("got %v, want a result", m)
	}
	return r
}

func names(list any, key string) []string {
	var out []string
	items, _ := list.([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		out = append(out, fmt.Sprint(m[key]))
	}
	slices.Sort(out)
	return out
}

func TestPromptsAndResourcesLegacy(t *testing.T) {
	s, _, plugin, _ := newContentServer(t)
	ws := startWire(t, s)
	init := result(t, ws.Call(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"wire-test","version":"9.9"}}}`))
	caps, _ := init["capabilities"].(map[string]any)
	for _, k := range []string{"prompts", "resources"} {
		c, _ := caps[k].(map[string]any)
		if c == nil || c["listChanged"] != true {
			t.Errorf("capabilities.%s: got %v, want listChanged true", k, caps[k])
		}
	}
	ws.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	if got := names(result(t, ws.Call(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))["tools"], "name"); !slices.Equal(got, []string{"capabilities", "get_skill", "run_agent", "run_agent_confirmed", "run_tool", "run_tool_confirmed"}) {
		t.Errorf("tools: got %v, want the six", got)
	}
	if got := names(result(t, ws.Call(`{"jsonrpc":"2.0","id":2,"method":"prompts/list"}`))["prompts"], "name"); !slices.Equal(got, []string{"brainy/ingest"}) {
		t.Errorf("prompts: got %v, want [brainy/ingest]", got)
	}
	if got := names(result(t, ws.Call(`{"jsonrpc":"2.0","id":3,"method":"resources/list"}`))["resources"], "uri"); !slices.Equal(got, []string{"brainy://index"}) {
		t.Errorf("resources: got %v", got)
	}
	if got := names(result(t, ws.Call(`{"jsonrpc":"2.0","id":4,"method":"resources/templates/list"}`))["resourceTemplates"], "uriTemplate"); !slices.Equal(got, []string{"brainy://page/{+path}"}) {
		t.Errorf("templates: got %v", got)
	}

	got := result(t, ws.Call(`{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"brainy/ingest","arguments":{"source":"a.md"}}}`))
	if msgs := fmt.Sprint(got["messages"]); msgs != "[map[content:map[text:ingest a.md type:text] role:user]]" {
		t.Errorf("prompt messages: got %s", msgs)
	}
	if len(plugin.prompts) != 1 || plugin.prompts[0].GetName() != "ingest" || plugin.prompts[0].GetCaller().GetChannel() != "mcp" ||
		plugin.prompts[0].GetCaller().GetClientName() != "wire-test" {
		t.Errorf("the plugin got %v, want prompt ingest from wire-test over mcp", plugin.prompts)
	}
	if r := ws.Call(`{"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"brainy/ingest"}}`); errCode(r) != -32602 || len(plugin.prompts) != 1 {
		t.Errorf("a missing required argument: got %v (plugin asked %d times), want -32602 without asking", r, len(plugin.prompts))
	}

	page := result(t, ws.Call(`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"brainy://page/wiki/a%20b.md"}}`))
	if c := fmt.Sprint(page["contents"]); c != "[map[mimeType:text/markdown text:text of brainy://page/wiki/a%20b.md uri:brainy://page/wiki/a%20b.md]]" {
		t.Errorf("read page: got %s", c)
	}
	if r := ws.Call(`{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"brainy://page/missing.md"}}`); errCode(r) != -32602 {
		t.Errorf("a missing page: got %v, want -32602 Resource not found (SEP-2164)", r)
	}
	if r := ws.Call(`{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"sheets://index"}}`); errCode(r) != -32602 || slices.Contains(plugin.reads, "sheets://index") {
		t.Errorf("an undeclared URI: got %v, want -32602 without a launch", r)
	}
}

// listChanged waits for notifications/<kind>/list_changed, answering
// nothing else in between.
func listChanged(t *testing.T, ws *wireSession, methods ...string) {
	t.Helper()
	want := map[string]bool{}
	for _, m := range methods {
		want[m] = true
	}
	for len(want) > 0 {
		m := ws.Next()
		delete(want, fmt.Sprint(m["method"]))
	}
}

func TestListChangedWhenPluginsComeAndGo(t *testing.T) {
	s, reg, plugin, root := newContentServer(t)
	ws := startWire(t, s)
	ws.Initialize("wire-test")
	must(t, os.RemoveAll(filepath.Join(root, "brainy")))
	s.SyncContent(reg.Scan())
	listChanged(t, ws, "notifications/prompts/list_changed", "notifications/resources/list_changed")
	// With no prompt published the capability is withdrawn: -32601.
	if r := ws.Call(`{"jsonrpc":"2.0","id":1,"method":"prompts/list"}`); errCode(r) != -32601 {
		t.Errorf("prompts/list after the plugin left: got %v, want -32601 (no prompts published)", r)
	}

	writeTool(t, root, "brainy", brainyManifest)
	s.SyncContent(reg.Scan())
	listChanged(t, ws, "notifications/prompts/list_changed", "notifications/resources/list_changed")
	if got := names(result(t, ws.Call(`{"jsonrpc":"2.0","id":2,"method":"prompts/list"}`))["prompts"], "name"); !slices.Equal(got, []string{"brainy/ingest"}) {
		t.Errorf("prompts after the plugin came back: got %v", got)
	}

	// An older binary answers Unimplemented: it contributes nothing.
	plugin.unimplemented = true
	if r := ws.Call(`{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"brainy/ingest","arguments":{"source":"x"}}}`); r["error"] == nil {
		t.Errorf("prompt from a plugin without the RPC: got %v, want an error", r)
	}
	listChanged(t, ws, "notifications/prompts/list_changed")
	if r := ws.Call(`{"jsonrpc":"2.0","id":4,"method":"prompts/list"}`); errCode(r) != -32601 {
		t.Errorf("prompts/list once the only plugin answered Unimplemented: got %v, want -32601 (none published)", r)
	}
}

func TestModernEraListsAndReads(t *testing.T) {
	s, _, _, _ := newContentServer(t)
	ws := startWire(t, s)
	meta := fmt.Sprintf(modernMeta, "2026-07-28")
	d := result(t, ws.Call(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta+`}}`))
	caps, _ := d["capabilities"].(map[string]any)
	if caps["prompts"] == nil || caps["resources"] == nil {
		t.Errorf("discover capabilities: got %v, want prompts and resources", caps)
	}
	if got := names(result(t, ws.Call(`{"jsonrpc":"2.0","id":2,"method":"prompts/list","params":{`+meta+`}}`))["prompts"], "name"); !slices.Equal(got, []string{"brainy/ingest"}) {
		t.Errorf("modern prompts/list: got %v", got)
	}
	r := result(t, ws.Call(`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"brainy://index",`+meta+`}}`))
	if c := fmt.Sprint(r["contents"]); c != "[map[mimeType:text/markdown text:text of brainy://index uri:brainy://index]]" {
		t.Errorf("modern resources/read: got %s", c)
	}
}

func TestNoContentNoCapabilities(t *testing.T) {
	s := newTestServer(t, nil)
	ws := startWire(t, s)
	init := result(t, ws.Call(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
	caps, _ := init["capabilities"].(map[string]any)
	if caps["prompts"] != nil || caps["resources"] != nil {
		t.Errorf("capabilities with no plugin contributing: got %v, want tools only", caps)
	}
}

// TestModernListenGetsListChanged: a modern client's subscriptions/listen
// is acknowledged, and told when a plugin leaves, under the client's own
// id (the transport renumbers calls); once the client cancels the listen,
// nothing is answered under an id it never sent.
func TestModernListenGetsListChanged(t *testing.T) {
	s, reg, _, root := newContentServer(t)
	ws := startWire(t, s)
	meta := fmt.Sprintf(modernMeta, "2026-07-28")
	result(t, ws.Call(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta+`}}`))
	ws.Send(`{"jsonrpc":"2.0","id":"listen:7","method":"subscriptions/listen","params":{` + meta + `,"notifications":{"promptsListChanged":true,"resourcesListChanged":true}}}`)
	subID := func(m map[string]any) any {
		p, _ := m["params"].(map[string]any)
		mt, _ := p["_meta"].(map[string]any)
		return mt["io.modelcontextprotocol/subscriptionId"]
	}
	if ack := ws.Next(); ack["method"] != "notifications/subscriptions/acknowledged" || subID(ack) != "listen:7" {
		t.Fatalf("listen acknowledgement: got %v, want subscriptionId listen:7", ack)
	}
	must(t, os.RemoveAll(filepath.Join(root, "brainy")))
	s.SyncContent(reg.Scan())
	seen := map[string]bool{}
	for len(seen) < 2 {
		m := ws.Next()
		if sid := subID(m); sid != "listen:7" {
			t.Errorf("%v: subscriptionId %v, want listen:7", m["method"], sid)
		}
		seen[fmt.Sprint(m["method"])] = true
	}
	if !seen["notifications/prompts/list_changed"] || !seen["notifications/resources/list_changed"] {
		t.Errorf("got %v, want prompts and resources list_changed", seen)
	}
	ws.Send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"listen:7",` + meta + `}}`)
	if r := ws.Call(`{"jsonrpc":"2.0","id":"after","method":"prompts/list","params":{` + meta + `}}`); r["id"] != "after" {
		t.Errorf("after the cancelled listen: got %v, want the answer to id after", r)
	}
}
