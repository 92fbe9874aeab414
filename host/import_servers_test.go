package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/host/internal/clientconfig"
	"github.com/toolhost/toolhost/internal/testplugin"
)

// fakeHome makes a fresh HOME (and the working folder a project in it)
// while npm keeps the cache and settings of the real one.
func fakeHome(t *testing.T) (home, project string) {
	t.Helper()
	needNPM(t)
	t.Setenv("npm_config_cache", npmCacheDir())
	// Exact versions are pinned: npm may take package data from its cache.
	t.Setenv("npm_config_prefer_offline", "true")
	if real, err := os.UserHomeDir(); err == nil && os.Getenv("npm_config_userconfig") == "" {
		t.Setenv("npm_config_userconfig", filepath.Join(real, ".npmrc"))
	}
	home = t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	project = filepath.Join(home, "app")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(project)
	return home, project
}

const claudeJSON = `{
  "numStartups": 12,
  "mcpServers": {
    "memory": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-memory@2026.8.31"],
      "env": {"MEMORY_FILE_PATH": "/home/ana/secret-memory.jsonl"}
    },
    "fetch": {"type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"], "env": {}},
    "notion": {"type": "http", "url": "https://mcp.notion.com/mcp"}
  },
  "projects": {
    "/home/ana/app": {
      "allowedTools": [],
      "mcpServers": {
        "memory": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory@2026.8.31"], "env": {"MEMORY_FILE_PATH": "/home/ana/secret-memory.jsonl"}},
        "numbers": {"type": "stdio", "command": "npx", "args": ["-y", "is-number@7.0.0"]}
      }
    }
  }
}
`

const mcpJSON = `{
  "mcpServers": {
    "github": {"command": "docker", "args": ["run", "-i", "--rm", "ghcr.io/github/github-mcp-server"], "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_x"}},
    "graph": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory@2026.8.31"], "env": {"MEMORY_FILE_PATH": "/elsewhere.jsonl"}},
    "kg": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory@2026.8.31"], "env": {"MEMORY_FILE_PATH": "/home/ana/secret-memory.jsonl"}}
  }
}
`

// TestImportServersMovesClaudeCodesServers runs `install-client
// claude-code --import-servers` on a ~/.claude.json with user and
// per-project entries and a project .mcp.json: the dry run says what
// becomes which folder and why the rest stays, writing nothing; --confirm
// writes the folder, takes the imported entries out, adds the toolhost
// entry with their env values, and keeps the file as it was.
func TestImportServersMovesClaudeCodesServers(t *testing.T) {
	home, project := fakeHome(t)
	cfg := filepath.Join(home, ".claude.json")
	testplugin.WriteFile(t, cfg, claudeJSON)
	testplugin.WriteFile(t, filepath.Join(project, ".mcp.json"), mcpJSON)
	plugins := t.TempDir()

	code, out, errOut := runHost(t, plugins, "install-client", "claude-code", "--import-servers")
	if code != 0 {
		t.Fatalf("dry run: exit %d: %s%s", code, out, errOut)
	}
	for _, want := range []string{
		"dry run, nothing written",
		"3 of 8 server entries become plugin folders in " + plugins,
		"-> " + filepath.Join(plugins, "memory") + "  @modelcontextprotocol/server-memory@2026.8.31",
		"env MEMORY_FILE_PATH: the values move to the toolhost entry's env in " + cfg,
		"memory (local to /home/ana/app, " + cfg + ")",
		"the same server as memory (user)",
		"a Python server (uvx)",
		"a remote server",
		"is-number@7.0.0 is not an MCP server",
		"it runs in a container (docker)",
		"its MEMORY_FILE_PATH differs from the one of memory (user)",
		".mcp.json is the project's, often shared through git",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the dry run does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "secret-memory") || strings.Contains(out, "ghp_x") {
		t.Errorf("the dry run shows an env value:\n%s", out)
	}
	if got, _ := os.ReadFile(cfg); string(got) != claudeJSON {
		t.Fatalf("the dry run changed %s:\n%s", cfg, got)
	}
	if ents, _ := os.ReadDir(plugins); len(ents) != 0 {
		t.Fatalf("the dry run wrote %v", ents)
	}

	code, out, errOut = runHost(t, plugins, "install-client", "claude-code", "--import-servers", "--confirm")
	if code != 0 {
		t.Fatalf("confirm: exit %d: %s%s", code, out, errOut)
	}
	manifest, err := os.ReadFile(filepath.Join(plugins, "memory", "tool.yaml"))
	if err != nil || !strings.Contains(string(manifest), `env: ["MEMORY_FILE_PATH"]`) || strings.Contains(string(manifest), "secret-memory") {
		t.Errorf("tool.yaml (%v) should name the variable and hold no value:\n%s", err, manifest)
	}
	if !strings.Contains(out, "approve memory") {
		t.Errorf("confirm does not say to approve the plugin:\n%s", out)
	}

	raw, _ := os.ReadFile(cfg)
	user, _, err := clientconfig.Servers(raw, "mcpServers")
	if err != nil {
		t.Fatal(err)
	}
	local, _, _ := clientconfig.Servers(raw, "projects", "/home/ana/app", "mcpServers")
	for _, kept := range []string{"fetch", "notion"} {
		if user[kept] == nil {
			t.Errorf("the entry %s that could not be imported is gone:\n%s", kept, raw)
		}
	}
	if user["memory"] != nil || local["memory"] != nil {
		t.Errorf("the imported memory entries are still there:\n%s", raw)
	}
	if local["numbers"] == nil {
		t.Errorf("the project entry numbers is gone:\n%s", raw)
	}
	th := user["toolhost"]
	env, _ := th["env"].(map[string]any)
	if th == nil || env["MEMORY_FILE_PATH"] != "/home/ana/secret-memory.jsonl" || !strings.HasPrefix(env["HOST_PLUGIN_PATH"].(string), plugins) {
		t.Errorf("the toolhost entry is %v, want one passing MEMORY_FILE_PATH and reading %s", th, plugins)
	}
	if !strings.Contains(string(raw), `"numStartups": 12`) {
		t.Errorf("the rest of the file changed:\n%s", raw)
	}
	backups, _ := filepath.Glob(cfg + ".bak-import-*")
	if len(backups) != 1 {
		t.Fatalf("backups %v, want one", backups)
	}
	if b, _ := os.ReadFile(backups[0]); string(b) != claudeJSON {
		t.Errorf("the backup is not the file as it was:\n%s", b)
	}
	mcp := filepath.Join(project, ".mcp.json")
	raw, _ = os.ReadFile(mcp)
	shared, _, err := clientconfig.Servers(raw, "mcpServers")
	if err != nil || shared["kg"] != nil || shared["github"] == nil || shared["graph"] == nil || shared["toolhost"] != nil {
		t.Errorf("%s should lose kg (the same server as memory) and keep the rest, without a toolhost entry (%v):\n%s", mcp, err, raw)
	}
	if backups, _ := filepath.Glob(mcp + ".bak-import-*"); len(backups) != 1 {
		t.Errorf("backups of .mcp.json %v, want one", backups)
	} else if b, _ := os.ReadFile(backups[0]); string(b) != mcpJSON {
		t.Errorf("the backup is not .mcp.json as it was:\n%s", b)
	}
}

// TestImportServersReadsClaudeDesktop: Claude Desktop's
// claude_desktop_config.json (no type field, args after the package) is
// read; an entry whose folder exists already stays, so does one named
// like a plugin in another plugins folder, and one whose variable the
// toolhost entry sets to another value.
func TestImportServersReadsClaudeDesktop(t *testing.T) {
	home, _ := fakeHome(t)
	cfg := filepath.Join(home, ".config", "Claude", "claude_desktop_config.json")
	orig := `{
  "mcpServers": {
    "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "/home/ana/Desktop", "/home/ana/Downloads"]},
    "memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory@2026.8.31"]},
    "graph": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory@2026.8.31"], "env": {"MEMORY_FILE_PATH": "/b.jsonl"}},
    "knowledge": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory@2026.8.31"]},
    "toolhost": {"command": "/opt/toolhost/bin/host", "args": ["serve"], "env": {"MEMORY_FILE_PATH": "/a.jsonl"}}
  }
}
`
	testplugin.WriteFile(t, cfg, orig)
	plugins, other := t.TempDir(), t.TempDir()
	testplugin.WriteFile(t, filepath.Join(plugins, "memory", "tool.yaml"), "name: memory\n")
	testplugin.WriteFile(t, filepath.Join(other, "knowledge", "tool.yaml"), "name: knowledge\n")
	code, out, errOut := runHost(t, plugins+string(os.PathListSeparator)+other, "install-client", "claude-desktop", "--import-servers", "--dir", plugins)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	for _, want := range []string{
		"filesystem (Claude Desktop, " + cfg + ")",
		`-> ` + filepath.Join(plugins, "filesystem") + `  @modelcontextprotocol/server-filesystem@2026.8.31  args ["/home/ana/Desktop" "/home/ana/Downloads"]`,
		filepath.Join(plugins, "memory") + " exists already",
		"its MEMORY_FILE_PATH differs from the one the toolhost entry sets already",
		"a plugin named knowledge is in " + other + " already",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the dry run does not say %q:\n%s", want, out)
		}
	}
	if code, _, errOut := runHost(t, plugins, "install-client", "cursor", "--import-servers"); code != 1 || !strings.Contains(errOut, "Claude Code's and Claude Desktop's") {
		t.Errorf("cursor: exit %d, %q", code, errOut)
	}
}
