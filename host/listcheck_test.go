package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// TestListChecksActions: `host list` says not ready for a binary that does
// not implement its tool.yaml's actions (only `host check` caught it
// before), and remembers the binaries that matched.
func TestListChecksActions(t *testing.T) {
	plugins, state, cache := t.TempDir(), t.TempDir(), t.TempDir()
	dir := testplugin.Install(t, plugins, "1")
	// The same binary under a manifest declaring an action it lacks.
	manifest, err := os.ReadFile(filepath.Join(dir, "tool.yaml"))
	must(t, err)
	liar := strings.Replace(string(manifest), "name: testtool", "name: liar", 1) +
		"  - name: ghost\n    description: Not in the binary.\n    read_only: true\n"
	liar = strings.Replace(liar, "entrypoint: testtool", "entrypoint: liar", 1)
	testplugin.WriteFile(t, filepath.Join(plugins, "liar", "tool.yaml"), liar)
	testplugin.CopyBinary(t, filepath.Join(dir, "testtool"), filepath.Join(plugins, "liar", "liar"))
	testplugin.ApproveCached(t, plugins, state, cache)
	t.Setenv("HOST_PLUGIN_PATH", plugins)
	t.Setenv("HOST_SKILL_PATH", t.TempDir())
	t.Setenv("XDG_STATE_HOME", state)
	t.Setenv("XDG_CACHE_HOME", cache)

	list := func() map[string]map[string]any {
		t.Helper()
		var out, errOut strings.Builder
		if code := run(t.Context(), []string{"list", "--json"}, &out, &errOut); code != 0 {
			t.Fatalf("host list: exit %d: %s", code, errOut.String())
		}
		var got struct{ Tools []map[string]any }
		must(t, json.Unmarshal([]byte(out.String()), &got))
		byName := map[string]map[string]any{}
		for _, tool := range got.Tools {
			byName[tool["name"].(string)] = tool
		}
		return byName
	}
	for round := range 2 { // the second answers testtool from the cache, liar checked again
		got := list()
		if got["testtool"]["ready"] != true {
			t.Errorf("round %d: testtool: got %v, want ready", round, got["testtool"])
		}
		if got["liar"]["ready"] != false || !strings.Contains(got["liar"]["not_ready"].(string), "actions in tool.yaml but not in the binary: ghost") {
			t.Errorf("round %d: liar: got %v, want not ready naming ghost", round, got["liar"])
		}
	}
	b, err := os.ReadFile(filepath.Join(cache, "toolhost", describeCacheFile))
	must(t, err)
	var remembered map[string]bool
	must(t, json.Unmarshal(b, &remembered))
	if len(remembered) != 1 {
		t.Errorf("remembered %v, want testtool's binary alone", remembered)
	}
	var out strings.Builder
	run(t.Context(), []string{"list"}, &out, &strings.Builder{})
	if !strings.Contains(out.String(), "not ready: ") || !strings.Contains(out.String(), "ghost") {
		t.Errorf("host list does not say liar is not ready:\n%s", out.String())
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
