package clientconfig

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
)

const exe = "/opt/toolhost/bin/host"

// fixtures maps each client to its config fixture under testdata/.
var fixtures = map[string]string{
	"claude-code":    "claude-code.json",
	"cursor":         "cursor.json",
	"claude-desktop": "claude-desktop.json",
	"opencode":       "opencode.jsonc",
}

// wantPath is each client's config file, relative to home, per system.
var wantPath = map[string]map[string]string{
	"claude-code":    {"linux": ".claude.json", "darwin": ".claude.json", "windows": ".claude.json"},
	"cursor":         {"linux": ".cursor/mcp.json", "darwin": ".cursor/mcp.json", "windows": ".cursor/mcp.json"},
	"claude-desktop": {"linux": ".config/Claude/claude_desktop_config.json", "darwin": "Library/Application Support/Claude/claude_desktop_config.json", "windows": "AppData/Roaming/Claude/claude_desktop_config.json"},
	"opencode":       {"linux": ".config/opencode/opencode.jsonc", "darwin": ".config/opencode/opencode.jsonc", "windows": ".config/opencode/opencode.jsonc"},
}

// entryOf decodes doc (JSON or JSONC) and returns c's toolhost entry.
func entryOf(t *testing.T, c Client, doc []byte) map[string]any {
	t.Helper()
	std, err := Standard(doc)
	if err != nil {
		t.Fatalf("not valid: %v\n%s", err, doc)
	}
	var v map[string]any
	if err := json.Unmarshal(std, &v); err != nil {
		t.Fatal(err)
	}
	servers, _ := v[c.Key].(map[string]any)
	e, _ := servers[ServerName].(map[string]any)
	return e
}

// TestInstallUninstallEveryClientEverySystem installs into and uninstalls
// from each client's fixture config at its path on Linux, macOS and
// Windows (under a temporary home): the entry is the client's shape, a
// second install says it is already there, the first backup is kept,
// uninstall gives back the file byte for byte.
func TestInstallUninstallEveryClientEverySystem(t *testing.T) {
	for _, goos := range []string{"linux", "darwin", "windows"} {
		for _, name := range Names() {
			t.Run(goos+"/"+name, func(t *testing.T) {
				c, _ := Lookup(name)
				home := t.TempDir()
				env := Env{GOOS: goos, Home: home}
				fixture, err := os.ReadFile(filepath.Join("testdata", fixtures[name]))
				if err != nil {
					t.Fatal(err)
				}
				// The fixture sits where the client keeps it (opencode: its .jsonc).
				want := filepath.Join(home, filepath.FromSlash(wantPath[name][goos]))
				if err := os.MkdirAll(filepath.Dir(want), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(want, fixture, 0o644); err != nil {
					t.Fatal(err)
				}
				exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
				path := c.Path(env, exists)
				if path != want {
					t.Fatalf("config path: got %s, want %s", path, want)
				}

				dry, err := Install(c, path, exe, true)
				if err != nil {
					t.Fatal(err)
				}
				if got, _ := os.ReadFile(path); string(got) != string(fixture) || !strings.Contains(dry.Diff, `+`) || !strings.Contains(dry.Diff, `"toolhost"`) {
					t.Fatalf("dry run wrote or showed no diff:\n%s", dry.Diff)
				}

				o, err := Install(c, path, exe, false)
				if err != nil || !o.Changed {
					t.Fatalf("install: %+v %v", o, err)
				}
				installed, _ := os.ReadFile(path)
				e := entryOf(t, c, installed)
				if e == nil || !strings.Contains(testplugin.JSON(t, e), exe) {
					t.Fatalf("no toolhost entry after install:\n%s", installed)
				}
				if want := testplugin.JSON(t, c.Entry(exe)); testplugin.JSON(t, e) != want {
					t.Errorf("entry: got %s, want %s", testplugin.JSON(t, e), want)
				}
				if bak, _ := os.ReadFile(path + ".bak"); string(bak) != string(fixture) {
					t.Errorf("backup is not the file as it was")
				}
				if name == "opencode" && !strings.Contains(string(installed), "// a comment after a value") {
					t.Errorf("comments of the JSONC file lost:\n%s", installed)
				}

				again, err := Install(c, path, exe, false)
				if err != nil || again.Changed {
					t.Fatalf("second install changed the file: %+v %v", again, err)
				}

				u, err := Uninstall(c, path, false)
				if err != nil || !u.Changed {
					t.Fatalf("uninstall: %+v %v", u, err)
				}
				if got, _ := os.ReadFile(path); string(got) != string(fixture) {
					t.Errorf("uninstall did not give the file back:\n got: %s\nwant: %s", got, fixture)
				}
				if u2, err := Uninstall(c, path, false); err != nil || u2.Changed {
					t.Errorf("second uninstall: %+v %v", u2, err)
				}

				// A later install keeps the first backup, not the file in between.
				if _, err := Install(c, path, "/elsewhere/host", false); err != nil {
					t.Fatal(err)
				}
				if _, err := Install(c, path, exe, false); err != nil {
					t.Fatal(err)
				}
				if bak, _ := os.ReadFile(path + ".bak"); string(bak) != string(fixture) {
					t.Errorf("the first backup was overwritten")
				}
			})
		}
	}
}

// TestPaths checks each client's config path per system, with no file
// present (the preferred one) and with the variables the clients read.
func TestPaths(t *testing.T) {
	home := "/home/ana"
	tests := []struct {
		client string
		env    Env
		want   string
	}{
		{"claude-desktop", Env{GOOS: "linux", Home: home}, "/home/ana/.config/Claude/claude_desktop_config.json"},
		{"claude-desktop", Env{GOOS: "linux", Home: home, XDGConfigHome: "/cfg"}, "/cfg/Claude/claude_desktop_config.json"},
		{"claude-desktop", Env{GOOS: "darwin", Home: home}, "/home/ana/Library/Application Support/Claude/claude_desktop_config.json"},
		{"claude-desktop", Env{GOOS: "windows", Home: home, AppData: "/roaming"}, "/roaming/Claude/claude_desktop_config.json"},
		{"opencode", Env{GOOS: "linux", Home: home}, "/home/ana/.config/opencode/opencode.json"},
		{"claude-code", Env{GOOS: "windows", Home: home}, "/home/ana/.claude.json"},
		{"cursor", Env{GOOS: "darwin", Home: home}, "/home/ana/.cursor/mcp.json"},
	}
	for _, tt := range tests {
		c, _ := Lookup(tt.client)
		if got := c.Path(tt.env, func(string) bool { return false }); filepath.ToSlash(got) != tt.want {
			t.Errorf("%s on %s: got %s, want %s", tt.client, tt.env.GOOS, got, tt.want)
		}
	}
}

func TestSetIntoNewAndEmptyFiles(t *testing.T) {
	c, _ := Lookup("cursor")
	for _, doc := range []string{"", "{}", "{\n}\n", `{"mcpServers": {}}`, "// only a comment\n{}"} {
		out, changed, err := Set([]byte(doc), c.Key, ServerName, c.Entry(exe))
		if err != nil || !changed {
			t.Fatalf("%q: %v", doc, err)
		}
		if e := entryOf(t, c, out); e == nil {
			t.Errorf("%q: no entry in\n%s", doc, out)
		}
	}
}

// TestSetKeepsTheLayout: the new entry goes first in its object, on lines
// of its own at the file's indent, and an empty object is opened onto
// lines of its own; what was there stays as it was.
func TestSetKeepsTheLayout(t *testing.T) {
	const entry = "\"toolhost\": {\n      \"command\": \"/h\"\n    }"
	tests := []struct {
		name, doc, want string
	}{
		{"empty file object", "{}", "{\n  \"mcpServers\": {\n    " + entry + "\n  }\n}"},
		{"no servers key", "{\n  \"theme\": \"dark\"\n}\n", "{\n  \"mcpServers\": {\n    " + entry + "\n  },\n  \"theme\": \"dark\"\n}\n"},
		{"empty servers", "{\n  \"mcpServers\": {}\n}\n", "{\n  \"mcpServers\": {\n    " + entry + "\n  }\n}\n"},
		{"other server", "{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"}\n  }\n}\n",
			"{\n  \"mcpServers\": {\n    " + entry + ",\n    \"other\": {\"command\": \"x\"}\n  }\n}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed, err := Set([]byte(tt.doc), "mcpServers", "toolhost", map[string]any{"command": "/h"})
			if err != nil || !changed || string(got) != tt.want {
				t.Errorf("got %q (changed %v, %v), want %q", got, changed, err, tt.want)
			}
		})
	}
}

func TestBrokenConfigIsRefused(t *testing.T) {
	dir := t.TempDir()
	c, _ := Lookup("cursor")
	for _, doc := range []string{`{"mcpServers": {`, `{"mcpServers": []}`, `{"a": 1 /* open`} {
		path := filepath.Join(dir, "mcp.json")
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Install(c, path, exe, false); err == nil {
			t.Errorf("%q: installed into a broken config", doc)
		}
		if got, _ := os.ReadFile(path); string(got) != doc {
			t.Errorf("%q: a refused install changed the file to %s", doc, got)
		}
	}
}

func TestRemoveKeepsTheRest(t *testing.T) {
	tests := []struct{ doc, want string }{
		{`{"s": {"toolhost": {}, "a": 1}}`, `{"s": { "a": 1}}`},
		{`{"s": {"a": 1, "toolhost": {}}}`, `{"s": {"a": 1}}`},
		{`{"s": {"a": 1, "toolhost": {}, "b": 2}}`, `{"s": {"a": 1, "b": 2}}`},
		{"{\"s\": {\n  \"a\": 1, // keep me\n  \"toolhost\": {}\n}}", "{\"s\": {\n  \"a\": 1 // keep me\n}}"},
		{`{"s": {"toolhost": {}}}`, `{}`},
		{`{"x": 1, "s": {"toolhost": {}}}`, `{"x": 1}`},
		{`{"s": {"a": 1}}`, `{"s": {"a": 1}}`},
		{`{"other": {"toolhost": {}}}`, `{"other": {"toolhost": {}}}`},
	}
	for _, tt := range tests {
		got, _, err := Remove([]byte(tt.doc), "s", ServerName)
		if err != nil {
			t.Fatalf("%s: %v", tt.doc, err)
		}
		if string(got) != tt.want {
			t.Errorf("remove from %s: got %s, want %s", tt.doc, got, tt.want)
		}
	}
}
