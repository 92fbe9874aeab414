package main

import (
	"os"
	"os/exec"
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
		{"no MCP in it", []string{"--from-npm", "semver@7.6.0"}, 1, "semver@7.6.0 does not look like an MCP server: it depends on no MCP library"},
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
