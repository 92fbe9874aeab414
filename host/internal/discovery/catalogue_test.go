package discovery

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/toolhost/toolhost/registry"
)

// mcpTool is one tool of an MCP server's tools/list answer.
type mcpTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	InputSchema struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	} `json:"inputSchema"`
}

// kebab spells an MCP name (snake_case, camelCase, API-get-user) as the
// manifest's lowercase kebab-case.
func kebab(s string) string { return strings.Join(words(s), "-") }

// manifestOf turns one server's tools/list answer into a tool.yaml: one
// action per tool, its top-level arguments with their type, description
// and string enum values.
func manifestOf(t testing.TB, server string, tools []mcpTool) []byte {
	t.Helper()
	type arg struct {
		Name        string   `yaml:"name"`
		Type        string   `yaml:"type"`
		Required    bool     `yaml:"required,omitempty"`
		Description string   `yaml:"description,omitempty"`
		Enum        []string `yaml:"enum,omitempty"`
	}
	type action struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
		Args        []arg  `yaml:"args,omitempty"`
	}
	m := struct {
		Name        string   `yaml:"name"`
		Description string   `yaml:"description"`
		Entrypoint  string   `yaml:"entrypoint"`
		Actions     []action `yaml:"actions"`
	}{Name: server, Description: "Tools of the " + server + " MCP server.", Entrypoint: server}
	for _, tl := range tools {
		a := action{Name: kebab(tl.Name), Description: strings.TrimSpace(tl.Description)}
		if a.Description == "" {
			a.Description = tl.Name
		}
		names := make([]string, 0, len(tl.InputSchema.Properties))
		for n := range tl.InputSchema.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		seen := map[string]bool{}
		for _, n := range names {
			p := tl.InputSchema.Properties[n]
			k := kebab(n)
			if k == "" || seen[k] {
				continue
			}
			seen[k] = true
			g := arg{Name: k, Type: jsonType(p["type"]), Required: slices.Contains(tl.InputSchema.Required, n)}
			g.Description, _ = p["description"].(string)
			if enum, ok := p["enum"].([]any); ok && g.Type == "string" {
				for _, v := range enum {
					if s, ok := v.(string); ok && s != "" {
						g.Enum = append(g.Enum, s)
					}
				}
				if len(g.Enum) != len(enum) {
					g.Enum = nil
				}
			}
			a.Args = append(a.Args, g)
		}
		m.Actions = append(m.Actions, a)
	}
	b, err := yaml.Marshal(m)
	if err != nil {
		t.Fatalf("manifest of %s: %v", server, err)
	}
	return b
}

// jsonType is the manifest type of a JSON Schema type: the first non-null
// one of a list; object when the schema names none.
func jsonType(v any) string {
	switch t := v.(type) {
	case string:
		if slices.Contains([]string{"string", "integer", "number", "boolean", "array", "object"}, t) {
			return t
		}
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				return jsonType(s)
			}
		}
	}
	return "object"
}

var (
	largeOnce sync.Once
	largeSnap *registry.Snapshot
	largeErr  string
	largeDefs []byte
)

// largeCatalogue loads testdata/catalogue/*.json as manifests in a
// registry snapshot (stand-in binaries: nothing runs). It also returns
// every tool definition as one tools/list answer would list them, the
// bytes a client without toolhost puts in context.
func largeCatalogue(t testing.TB) (*registry.Snapshot, []byte) {
	t.Helper()
	largeOnce.Do(func() {
		files, err := filepath.Glob(filepath.Join("testdata", "catalogue", "*.json"))
		if err != nil || len(files) == 0 {
			largeErr = "no testdata/catalogue/*.json"
			return
		}
		root, err := os.MkdirTemp("", "catalogue-")
		if err != nil {
			largeErr = err.Error()
			return
		}
		var all []json.RawMessage
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				largeErr = err.Error()
				return
			}
			var list struct {
				Tools []json.RawMessage `json:"tools"`
			}
			var typed struct {
				Tools []mcpTool `json:"tools"`
			}
			if err := json.Unmarshal(raw, &list); err != nil {
				largeErr = f + ": " + err.Error()
				return
			}
			json.Unmarshal(raw, &typed)
			all = append(all, list.Tools...)
			server := strings.TrimSuffix(filepath.Base(f), ".json")
			dir := filepath.Join(root, server)
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, "tool.yaml"), manifestOf(t, server, typed.Tools), 0o644)
			os.WriteFile(filepath.Join(dir, server), []byte("#!/bin/sh\n"), 0o755)
		}
		largeSnap = registry.New(registry.Options{PluginDirs: []string{root}}).Scan()
		os.RemoveAll(root)
		for _, b := range largeSnap.Broken {
			largeErr += b.Path + ": " + b.Error + "\n"
		}
		largeDefs, _ = json.Marshal(map[string]any{"tools": all})
	})
	if largeErr != "" {
		t.Fatalf("large catalogue: %s", largeErr)
	}
	return largeSnap, largeDefs
}

// shippedCatalogue is the registry over the repository's own plugins and
// skills, as `host serve` in a checkout sees them.
func shippedCatalogue(t testing.TB) *registry.Snapshot {
	t.Helper()
	root := filepath.Join("..", "..", "..")
	snap := registry.New(registry.Options{PluginDirs: []string{filepath.Join(root, "plugins")},
		SkillDirs: []string{filepath.Join(root, "skills")}}).Scan()
	for _, b := range snap.Broken {
		t.Fatalf("shipped catalogue: %s: %s", b.Path, b.Error)
	}
	if len(snap.Tools) == 0 || len(snap.Skills) == 0 {
		t.Fatalf("shipped catalogue: %d tools, %d skills", len(snap.Tools), len(snap.Skills))
	}
	return snap
}
