package npmserver

import (
	"strings"
	"testing"
)

func TestToolNameDropsScopeAndServerWords(t *testing.T) {
	tests := []struct{ pkg, want string }{
		{"@modelcontextprotocol/server-memory", "memory"},
		{"@modelcontextprotocol/server-filesystem", "filesystem"},
		{"@playwright/mcp", "playwright"},
		{"mcp-server-sqlite", "sqlite"},
		{"chrome-devtools-mcp", "chrome-devtools"},
		{"@upstash/context7-mcp", "context7"},
		{"airtable-mcp-server", "airtable"},
		{"@notionhq/notion-mcp-server", "notion"},
		{"Some_Server.JS", "some-server-js"},
		{"@x/7zip-mcp", "mcp-7zip"},
	}
	for _, tt := range tests {
		if got := ToolName(tt.pkg); got != tt.want {
			t.Errorf("ToolName(%q) = %q, want %q", tt.pkg, got, tt.want)
		}
	}
}

func TestSpecSplitsScopedNames(t *testing.T) {
	tests := []struct{ spec, name, version string }{
		{"@modelcontextprotocol/server-memory@2026.8.31", "@modelcontextprotocol/server-memory", "2026.8.31"},
		{"@modelcontextprotocol/server-memory", "@modelcontextprotocol/server-memory", ""},
		{"chrome-devtools-mcp@latest", "chrome-devtools-mcp", "latest"},
		{"plain", "plain", ""},
	}
	for _, tt := range tests {
		if n, v := Spec(tt.spec); n != tt.name || v != tt.version {
			t.Errorf("Spec(%q) = %q, %q, want %q, %q", tt.spec, n, v, tt.name, tt.version)
		}
	}
}

func TestEntrypointIsTheServersBin(t *testing.T) {
	tests := []struct {
		name    string
		pkg     Package
		want    string
		wantErr string
	}{
		{"one bin", Package{Name: "@m/server-memory", Bin: map[string]string{"mcp-server-memory": "./dist/index.js"}}, "node_modules/@m/server-memory/dist/index.js", ""},
		{"named like the package", Package{Name: "tool-mcp", Bin: map[string]string{"tool-mcp": "a.js", "helper": "b.js"}}, "node_modules/tool-mcp/a.js", ""},
		{"the one saying mcp", Package{Name: "x", Bin: map[string]string{"x-mcp": "m.js", "x-cli": "c.js"}}, "node_modules/x/m.js", ""},
		{"ambiguous", Package{Name: "x", Bin: map[string]string{"a": "a.js", "b": "b.js"}}, "", "several commands (a, b)"},
		{"outside", Package{Name: "x", Bin: map[string]string{"x": "../../evil.js"}}, "", "points outside the package"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.pkg.Entrypoint()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %q, %v, want error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v, want %q", got, err, tt.want)
			}
		})
	}
}

func TestManifestQuotesWhatYAMLWouldMisread(t *testing.T) {
	pl := Plugin{Name: "fs", Package: Package{Name: "@m/server-filesystem", Version: "1.0.0",
		Description: "Files: read # and write", Bin: map[string]string{"s": "dist/index.js"}},
		Args: []string{"/home/ana/My Docs"}, Env: []string{"FS_TOKEN"}}
	got, err := pl.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"name: fs\n", "protocol: mcp\n", `description: "Files: read # and write"` + "\n",
		"version: 1.0.0\n", "entrypoint: node_modules/@m/server-filesystem/dist/index.js\n",
		"interpreter: node\n", `args: ["/home/ana/My Docs"]` + "\n", `env: ["FS_TOKEN"]` + "\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("tool.yaml lacks %q:\n%s", want, got)
		}
	}
}
