// Package clientconfig knows where each MCP client keeps its servers and
// edits those files in place: Set and Remove change one entry of a JSON or
// JSONC file and nothing else (comments, order, formatting are kept), so
// `host install-client` and `uninstall-client` are idempotent and lose
// nothing.
package clientconfig

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// Env is what a config path depends on: the operating system (GOOS
// values), the user's home, and the variables the clients read.
type Env struct {
	GOOS string
	Home string
	// AppData is %APPDATA% on Windows (default Home\AppData\Roaming).
	AppData string
	// XDGConfigHome is $XDG_CONFIG_HOME (default Home/.config).
	XDGConfigHome string
}

func (e Env) configHome() string {
	if e.XDGConfigHome != "" {
		return e.XDGConfigHome
	}
	return filepath.Join(e.Home, ".config")
}

func (e Env) appData() string {
	if e.AppData != "" {
		return e.AppData
	}
	return filepath.Join(e.Home, "AppData", "Roaming")
}

// Client is one MCP client's config: where it is and how an entry looks.
type Client struct {
	// Name is how `host install-client` names it.
	Name string
	// Key is the top-level object holding the servers.
	Key string
	// Entry is the server entry for the host at exe.
	Entry func(exe string) map[string]any
	// paths lists the candidate config files, preferred first: an existing
	// one wins, else the first.
	paths func(e Env) []string
}

// Paths lists the config files the client may read on e's system,
// preferred first.
func (c Client) Paths(e Env) []string { return c.paths(e) }

// Path is the config file to edit: the first of Paths that exists
// (exists reports that), else the first.
func (c Client) Path(e Env, exists func(string) bool) string {
	ps := c.paths(e)
	for _, p := range ps {
		if exists(p) {
			return p
		}
	}
	return ps[0]
}

func stdioEntry(exe string) map[string]any {
	return map[string]any{"command": exe, "args": []any{"serve"}}
}

var clients = []Client{
	{
		Name: "claude-code", Key: "mcpServers",
		Entry: func(exe string) map[string]any {
			return map[string]any{"type": "stdio", "command": exe, "args": []any{"serve"}}
		},
		// ~/.claude.json on every system (%USERPROFILE%\.claude.json on Windows).
		paths: func(e Env) []string { return []string{filepath.Join(e.Home, ".claude.json")} },
	},
	{
		Name: "cursor", Key: "mcpServers", Entry: stdioEntry,
		paths: func(e Env) []string { return []string{filepath.Join(e.Home, ".cursor", "mcp.json")} },
	},
	{
		Name: "claude-desktop", Key: "mcpServers", Entry: stdioEntry,
		paths: func(e Env) []string {
			const file = "claude_desktop_config.json"
			switch e.GOOS {
			case "darwin":
				return []string{filepath.Join(e.Home, "Library", "Application Support", "Claude", file)}
			case "windows":
				return []string{filepath.Join(e.appData(), "Claude", file)}
			}
			return []string{filepath.Join(e.configHome(), "Claude", file)}
		},
	},
	{
		Name: "opencode", Key: "mcp",
		Entry: func(exe string) map[string]any {
			return map[string]any{"type": "local", "command": []any{exe, "serve"}, "enabled": true}
		},
		// opencode reads ~/.config/opencode on every system (XDG layout,
		// also on macOS and Windows); opencode.jsonc wins when it exists.
		paths: func(e Env) []string {
			dir := filepath.Join(e.configHome(), "opencode")
			return []string{filepath.Join(dir, "opencode.json"), filepath.Join(dir, "opencode.jsonc")}
		},
	},
}

// Lookup returns the named client.
func Lookup(name string) (Client, bool) {
	for _, c := range clients {
		if c.Name == name {
			return c, true
		}
	}
	return Client{}, false
}

// Names lists the clients, sorted.
func Names() []string {
	var out []string
	for _, c := range clients {
		out = append(out, c.Name)
	}
	sort.Strings(out)
	return out
}

// Diff shows what changes from old to new as a unified diff of the lines
// that differ, with two lines of context (configs change in one place).
func Diff(path string, old, new []byte) string {
	a, b := strings.SplitAfter(string(old), "\n"), strings.SplitAfter(string(new), "\n")
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	if pre == len(a) && pre == len(b) {
		return ""
	}
	const context = 2
	from := max(0, pre-context)
	toA, toB := min(len(a), len(a)-suf+context), min(len(b), len(b)-suf+context)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s (new)\n@@ -%d,%d +%d,%d @@\n", path, path, from+1, toA-from, from+1, toB-from)
	line := func(prefix, s string) {
		sb.WriteString(prefix + strings.TrimSuffix(s, "\n") + "\n")
	}
	for _, s := range a[from:pre] {
		line(" ", s)
	}
	for _, s := range a[pre : len(a)-suf] {
		line("-", s)
	}
	for _, s := range b[pre : len(b)-suf] {
		line("+", s)
	}
	for _, s := range a[len(a)-suf : toA] {
		line(" ", s)
	}
	return sb.String()
}
