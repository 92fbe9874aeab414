package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// notesBrainEnv is an env serving the real notes plugin over a fresh brain
// at the returned folder.
func notesBrainEnv(t *testing.T) (*env, string) {
	t.Helper()
	if !slices.Contains(realPluginNames, "notes") {
		t.Fatal("plugins/notes did not build")
	}
	brain := filepath.Join(t.TempDir(), "brain")
	e := newEnv(t, "NOTES_BRAIN="+brain)
	e.vars = append(e.vars, "HOST_PLUGIN_PATH="+e.plugins+":"+realPlugins)
	return e, brain
}

// gitIn runs git in dir and returns its output.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestNotesHandEditFoundWithoutRestart: through `host serve` and a real MCP
// client, a remember commits index.md and log.md with the note, and a note
// a person then writes by hand into the brain is found by the next search
// of the same resident plugin, marked uncommitted, with no restart (the
// plugin's watcher; search waits for it through its own event queue, no
// sleep).
func TestNotesHandEditFoundWithoutRestart(t *testing.T) {
	e, brain := notesBrainEnv(t)
	cs := goClient(t, e, "", nil)
	sc, isErr := callTool(t, cs, "run_tool", map[string]any{"tool": "notes", "action": "remember",
		"args": map[string]any{"type": "gotcha", "title": "Staging queue limit", "content": "The staging queue drops messages larger than 256 KB."}})
	if isErr {
		t.Fatalf("remember: %v", sc)
	}
	files := strings.Fields(gitIn(t, brain, "show", "--name-only", "--format=", "HEAD"))
	for _, want := range []string{"index.md", "log.md", "memory/gotchas/staging-queue-limit.md"} {
		if !slices.Contains(files, want) {
			t.Fatalf("the remember commit changed %v, want %s in it", files, want)
		}
	}
	idx, err := os.ReadFile(filepath.Join(brain, "index.md"))
	must(t, err)
	if !strings.Contains(string(idx), "[Staging queue limit](memory/gotchas/staging-queue-limit.md)") {
		t.Fatalf("index.md does not list the note:\n%s", idx)
	}

	must(t, os.MkdirAll(filepath.Join(brain, "wiki", "topics"), 0o755))
	must(t, os.WriteFile(filepath.Join(brain, "wiki", "topics", "Zanzibar.md"),
		[]byte("---\ntype: concept\ntitle: Zanzibar\n---\nThe zanzibar service signs every outgoing request.\n"), 0o644))
	sc, isErr = callTool(t, cs, "run_tool", map[string]any{"tool": "notes", "action": "search", "args": map[string]any{"query": "zanzibar"}})
	if isErr {
		t.Fatalf("search: %v", sc)
	}
	var found map[string]any
	hits, _ := sc["hits"].([]any)
	for _, h := range hits {
		if m := h.(map[string]any); m["path"] == "wiki/topics/Zanzibar.md" {
			found = m
		}
	}
	if found == nil || found["uncommitted"] != true {
		t.Fatalf("search zanzibar: got %v, want the hand-written note marked uncommitted", sc)
	}
}
