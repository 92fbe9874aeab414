package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// referenceServers are the three reference MCP servers as the bench runs
// them directly: entrypoint under tests/mcp-servers/node_modules and args.
var referenceServers = []struct{ name, entry, args string }{
	{"memory", "@modelcontextprotocol/server-memory/dist/index.js", ""},
	{"filesystem", "@modelcontextprotocol/server-filesystem/dist/index.js", "FILES"},
	{"everything", "@modelcontextprotocol/server-everything/dist/index.js", "stdio"},
}

// jsonBytes is the length of v as JSON: what a result costs in a model's
// context.
func jsonBytes(b *testing.B, v any) int {
	raw, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	return len(raw)
}

// BenchmarkMCPContextBytes prints, for the three reference MCP servers
// together, the bytes of their whole tools/list — what a client connected
// to each of them puts in the model's context — against the bytes of a
// toolhost session that serves them as plugins: its own tools/list, a
// capabilities search, the found action's args, and the call.
func BenchmarkMCPContextBytes(b *testing.B) {
	modules := mcpServerModules(b)
	files := b.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	direct := 0
	for _, s := range referenceServers {
		args := []string{filepath.Join(modules, s.entry)}
		if s.args == "FILES" {
			args = append(args, files)
		} else if s.args != "" {
			args = append(args, s.args)
		}
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command("node", args...), TerminateDuration: time.Second}, nil)
		if err != nil {
			b.Fatalf("%s: %v", s.name, err)
		}
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			b.Fatalf("%s: tools/list: %v", s.name, err)
		}
		direct += jsonBytes(b, res)
		cs.Close()
	}

	var plugins []mcpPlugin
	for _, s := range referenceServers {
		m := fmt.Sprintf("name: %s\nprotocol: mcp\ndescription: The reference MCP %s server\nentrypoint: node_modules/%s\ninterpreter: node\n", s.name, s.name, s.entry)
		if s.args == "FILES" {
			m += fmt.Sprintf("args: [%q]\n", files)
		} else if s.args != "" {
			m += fmt.Sprintf("args: [%q]\n", s.args)
		}
		plugins = append(plugins, mcpPlugin{name: s.name, manifest: m})
	}
	e := mcpEnv(b, plugins, "MEMORY_FILE_PATH="+filepath.Join(b.TempDir(), "memory.jsonl"))
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: e.serveCmd()}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	b.ResetTimer()
	session := 0
	for range b.N {
		list, err := cs.ListTools(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		session = jsonBytes(b, list)
		for _, call := range []struct {
			name string
			args map[string]any
		}{
			{"capabilities", map[string]any{"search": "remember a fact about a person"}},
			{"capabilities", map[string]any{"name": "memory", "action": "create_entities"}},
			{"run_tool", map[string]any{"tool": "memory", "action": "create_entities", "args": map[string]any{
				"entities": []any{map[string]any{"name": "Ana", "entityType": "person", "observations": []any{"prefers tea"}}}}}},
		} {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: call.name, Arguments: call.args})
			if err != nil || res.IsError {
				b.Fatalf("%s: %v %v", call.name, err, res)
			}
			session += jsonBytes(b, call.args) + jsonBytes(b, res)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(direct), "tools-list-bytes")
	b.ReportMetric(float64(session), "toolhost-session-bytes")
	fmt.Printf("mcp context bytes: the three servers' tools/list %d, a toolhost session that finds and calls memory create_entities %d (%.1fx fewer)\n",
		direct, session, float64(direct)/float64(session))
}
