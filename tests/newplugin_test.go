package tests

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewPlugin scaffolds a Go tool and a Python tool with
// `host new-plugin` into a fresh plugins folder: each builds, passes its
// own test, is approved, is listed ready at once and answers a call.
func TestNewPlugin(t *testing.T) {
	plugins := t.TempDir()
	home := t.TempDir()
	// Go's build and module caches stay the test's own (they would default
	// under the fresh XDG_CACHE_HOME and rebuild gRPC from nothing, minutes).
	// The agent scaffold differs from the tool's in its manifest, which
	// host/internal/scaffold's test parses.
	goCache, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	must(t, err)
	caches := strings.Fields(string(goCache))
	vars := append(filteredEnviron(), "HOST_PLUGIN_PATH="+plugins, "HOST_SKILL_PATH="+t.TempDir(),
		"XDG_CACHE_HOME="+filepath.Join(home, "cache"), "XDG_DATA_HOME="+filepath.Join(home, "data"),
		"XDG_STATE_HOME="+filepath.Join(home, "state"), "GOCACHE="+caches[0], "GOMODCACHE="+caches[1])
	host := func(args ...string) (string, error) {
		cmd := exec.Command(hostBin, args...)
		cmd.Env = vars
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	tests := []struct {
		name string
		args []string
	}{
		{"greeter", []string{"--toolhost", repoRoot}},
		{"counter", []string{"--lang", "python"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := host(append([]string{"new-plugin", tt.name}, tt.args...)...)
			if err != nil {
				t.Fatalf("host new-plugin %s: %v\n%s", tt.name, err, out)
			}
			if !strings.Contains(out, "approved (it was new)") || !strings.Contains(out, " ready") {
				t.Errorf("new-plugin did not approve it or show it ready:\n%s", out)
			}
			out, err = host("list", "--json")
			if err != nil {
				t.Fatalf("host list: %v\n%s", err, out)
			}
			var list struct {
				Tools []struct {
					Name  string `json:"name"`
					Ready bool   `json:"ready"`
				} `json:"tools"`
			}
			must(t, json.Unmarshal([]byte(out), &list))
			ready := false
			for _, tool := range list.Tools {
				ready = ready || (tool.Name == tt.name && tool.Ready)
			}
			if !ready {
				t.Fatalf("%s not listed ready: %s", tt.name, out)
			}
			out, err = host("call", tt.name, "greet", "--arg", "name=Ana", "--json")
			if err != nil || !strings.Contains(out, `"hello, Ana"`) {
				t.Errorf("host call %s greet: %v\n%s", tt.name, err, out)
			}
		})
	}
	// A second scaffold of the same name refuses to overwrite.
	if out, err := host("new-plugin", "counter", "--lang", "python"); err == nil || !strings.Contains(out, "exists already") {
		t.Errorf("scaffolding over an existing folder: %v\n%s", err, out)
	}
}
