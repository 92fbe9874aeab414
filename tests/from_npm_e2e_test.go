package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// TestFromNPMServerIsApprovedFoundAndCalled is the path of a person who
// hosts an npm MCP server: `host new-plugin --from-npm` writes the folder
// of @modelcontextprotocol/server-memory at its exact version, `host
// approve` pins its tools, `capabilities` search finds them, a call that
// writes asks for approval first, and the server answers through the host.
func TestFromNPMServerIsApprovedFoundAndCalled(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		testplugin.Missing(t, "npm", "install Node.js (`make deps` installs it)")
	}
	plugins, home := t.TempDir(), t.TempDir()
	memory := filepath.Join(home, "memory.jsonl")
	cache := os.Getenv("npm_config_cache")
	if cache == "" {
		h, _ := os.UserHomeDir()
		cache = filepath.Join(h, ".npm")
	}
	vars := append(filteredEnviron(), "HOST_PLUGIN_PATH="+plugins, "HOST_SKILL_PATH="+t.TempDir(),
		"XDG_CACHE_HOME="+filepath.Join(home, "cache"), "XDG_DATA_HOME="+filepath.Join(home, "data"),
		"XDG_STATE_HOME="+filepath.Join(home, "state"), "npm_config_cache="+cache, "npm_config_prefer_offline=true", "MEMORY_FILE_PATH="+memory)
	host := func(args ...string) (string, error) {
		cmd := exec.Command(hostBin, args...)
		cmd.Env = vars
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := host("new-plugin", "--from-npm", "@modelcontextprotocol/server-memory@2026.8.31", "--env", "MEMORY_FILE_PATH"); err != nil {
		t.Fatalf("new-plugin --from-npm: %v\n%s", err, out)
	}
	var pj struct{ Dependencies map[string]string }
	raw, err := os.ReadFile(filepath.Join(plugins, "memory", "package.json"))
	must(t, err)
	must(t, json.Unmarshal(raw, &pj))
	if pj.Dependencies["@modelcontextprotocol/server-memory"] != "2026.8.31" {
		t.Errorf("package.json does not pin the exact version:\n%s", raw)
	}
	var lock struct {
		Packages map[string]struct{ Version, Integrity string }
	}
	raw, err = os.ReadFile(filepath.Join(plugins, "memory", "package-lock.json"))
	must(t, err)
	must(t, json.Unmarshal(raw, &lock))
	if p := lock.Packages["node_modules/@modelcontextprotocol/server-memory"]; p.Version != "2026.8.31" || !strings.HasPrefix(p.Integrity, "sha512-") {
		t.Errorf("package-lock.json pins the server as %+v", p)
	}

	if out, err := host("approve", "memory"); err != nil {
		t.Fatalf("approve: %v\n%s", err, out)
	}
	out, err := host("capabilities", "--search", "search my memory for Acme")
	if err != nil || !strings.Contains(out, `"action": "search_nodes"`) {
		t.Errorf("capabilities search does not find the memory server's search_nodes: %v\n%s", err, out)
	}
	// create_entities says it destroys nothing (destructiveHint false), so
	// it runs unattended; delete_entities says it does, so it waits for a person.
	args := `{"entities":[{"name":"Ana","entityType":"person","observations":["works at Acme"]}]}`
	if out, err := host("call", "memory", "create_entities", "--args", args); err != nil {
		t.Fatalf("create_entities: %v\n%s", err, out)
	}
	del := `{"entityNames":["Ana"]}`
	if out, err := host("call", "memory", "delete_entities", "--args", del); err == nil || !strings.Contains(out, "approval_required") {
		t.Errorf("delete_entities without --confirm: %v\n%s", err, out)
	}
	out, err = host("call", "memory", "read_graph", "--json")
	if err != nil || !strings.Contains(out, "works at Acme") {
		t.Errorf("read_graph: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(memory); !strings.Contains(string(b), "Acme") {
		t.Errorf("the server did not write MEMORY_FILE_PATH (%s), which tool.yaml passes by name: %q", memory, b)
	}
}
