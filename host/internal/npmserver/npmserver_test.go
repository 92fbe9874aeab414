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

func TestFromCommandReadsNPXEntries(t *testing.T) {
	tests := []struct {
		name     string
		command  string
		args     []string
		spec     string
		rest     []string
		whyMatch string
	}{
		{"npx -y", "npx", []string{"-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "/home/ana/docs"}, "@modelcontextprotocol/server-filesystem@2026.8.31", []string{"/home/ana/docs"}, ""},
		{"bare npx", "/usr/local/bin/npx", []string{"chrome-devtools-mcp@latest"}, "chrome-devtools-mcp@latest", []string{}, ""},
		{"windows", "cmd", []string{"/c", "npx", "-y", "@upstash/context7-mcp"}, "@upstash/context7-mcp", []string{}, ""},
		{"uvx", "uvx", []string{"mcp-server-fetch"}, "", nil, "a Python server (uvx)"},
		{"docker", "docker", []string{"run", "-i", "ghcr.io/github/github-mcp-server"}, "", nil, "runs in a container"},
		{"node script", "node", []string{"/home/ana/srv/index.js"}, "", nil, "a script on this machine"},
		{"npx -p", "npx", []string{"-p", "pkg", "other"}, "", nil, "npx -p runs a command"},
		{"expansion", "npx", []string{"-y", "pkg", "${HOME}/x"}, "", nil, "only the client expands"},
		{"binary", "/opt/bin/github-mcp-server", []string{"stdio"}, "", nil, "a program on this machine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, rest, why := FromCommand(tt.command, tt.args)
			if tt.whyMatch != "" {
				if !strings.Contains(why, tt.whyMatch) {
					t.Fatalf("why = %q, want %q", why, tt.whyMatch)
				}
				return
			}
			if why != "" || spec != tt.spec || strings.Join(rest, " ") != strings.Join(tt.rest, " ") {
				t.Fatalf("got %q %q %q, want %q %q", spec, rest, why, tt.spec, tt.rest)
			}
		})
	}
}
