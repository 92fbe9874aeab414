package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// needNPM returns npm's path, or fails or skips t when it is missing.
func needNPM(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("npm")
	if err != nil {
		testplugin.Missing(t, "npm", "install Node.js (`make deps` installs it)")
	}
	return p
}

const memorySpec = "@modelcontextprotocol/server-memory@2026.8.31"

// TestNewPluginFromNPMRefusesWhatIsNoServer: a package that does not
// exist, a version npm does not have and a package that is no MCP server
// each fail with what is wrong, and write nothing; a dry run shows the
// tool.yaml and writes nothing either.
func TestNewPluginFromNPMRefusesWhatIsNoServer(t *testing.T) {
	needNPM(t)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     string
	}{
		{"no such package", []string{"--from-npm", "toolhost-no-such-package-zz@1.0.0"}, 1, "npm has no package toolhost-no-such-package-zz"},
		{"no such version", []string{"--from-npm", "@modelcontextprotocol/server-memory@0.0.1"}, 1, "has no version 0.0.1"},
		{"not a server", []string{"--from-npm", "is-number@7.0.0"}, 1, "is not an MCP server toolhost can start: its package.json names no bin"},
		{"bad name", []string{"--from-npm", memorySpec, "Memory"}, 1, `plugin name "Memory": use lowercase kebab-case`},
		{"dry run", []string{"--from-npm", memorySpec, "--dry-run", "--server-arg", "--x"}, 0, "entrypoint: node_modules/@modelcontextprotocol/server-memory/dist/index.js\n    interpreter: node\n    args: [\"--x\"]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			code, out, errOut := runHost(t, t.TempDir(), append([]string{"new-plugin", "--dir", dir}, tt.args...)...)
			if code != tt.wantCode || !strings.Contains(out+errOut, tt.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, out, errOut, tt.wantCode, tt.want)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("wrote %v", ents)
			}
		})
	}
}

// TestNewPluginFromNPMPinsTheServer writes the memory server's folder as
// a person does and checks what the host will run: tool.yaml names the
// installed script, package.json pins the exact version, package-lock.json
// pins its tarball, and npm ran no install script.
func TestNewPluginFromNPMPinsTheServer(t *testing.T) {
	needNPM(t)
	dir := t.TempDir()
	code, out, errOut := runHost(t, t.TempDir(), "new-plugin", "--dir", dir, "--from-npm", memorySpec, "--env", "MEMORY_FILE_PATH")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	plug := filepath.Join(dir, "memory")
	if !strings.Contains(out, "wrote "+plug) || !strings.Contains(out, "approve memory") {
		t.Errorf("stdout %q does not say what it wrote and what to do next", out)
	}
	manifest, _ := os.ReadFile(filepath.Join(plug, "tool.yaml"))
	for _, want := range []string{"name: memory\n", "protocol: mcp\n", "version: 2026.8.31\n",
		"entrypoint: node_modules/@modelcontextprotocol/server-memory/dist/index.js\n", `env: ["MEMORY_FILE_PATH"]`} {
		if !strings.Contains(string(manifest), want) {
			t.Errorf("tool.yaml lacks %q:\n%s", want, manifest)
		}
	}
	if _, err := os.Stat(filepath.Join(plug, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js")); err != nil {
		t.Errorf("the entrypoint is not installed: %v", err)
	}
	var pj struct{ Dependencies map[string]string }
	raw, _ := os.ReadFile(filepath.Join(plug, "package.json"))
	if err := json.Unmarshal(raw, &pj); err != nil || pj.Dependencies["@modelcontextprotocol/server-memory"] != "2026.8.31" {
		t.Errorf("package.json does not pin the exact version (%v):\n%s", err, raw)
	}
	var lock struct {
		Packages map[string]struct{ Version, Integrity string }
	}
	raw, _ = os.ReadFile(filepath.Join(plug, "package-lock.json"))
	if err := json.Unmarshal(raw, &lock); err != nil {
		t.Fatalf("package-lock.json: %v", err)
	}
	if p := lock.Packages["node_modules/@modelcontextprotocol/server-memory"]; p.Version != "2026.8.31" || !strings.HasPrefix(p.Integrity, "sha512-") {
		t.Errorf("package-lock.json pins the server as %+v", p)
	}
	if code, _, errOut := runHost(t, t.TempDir(), "new-plugin", "--dir", dir, "--from-npm", memorySpec); code != 1 || !strings.Contains(errOut, "exists already") {
		t.Errorf("a second write over the folder: exit %d, %q", code, errOut)
	}
}
