package brain

import (
	"fmt"
	"path/filepath"
	"sort"
	"testing"

	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/plugins/notes/internal/note"
)

// TestManifestDefaultsReachHandlers: every default tool.yaml declares
// reaches the handler as the host passes it (the handlers do not repeat
// them). Each row calls an action without the arg and checks what the user
// sees against tool.yaml's value; a default removed from tool.yaml, or one
// added without a row here, fails the test.
func TestManifestDefaultsReachHandlers(t *testing.T) {
	requireGit(t)
	m, err := manifests.Parse(filepath.Join("..", "..", manifests.FileName))
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]any{}
	for _, a := range m.Actions {
		for _, arg := range a.Args {
			if arg.Default != nil {
				declared[a.Name+" "+arg.Name] = arg.Default
			}
		}
	}
	e := newEnv(t)
	seedBrain(e)
	e.ok("remember", map[string]any{"type": "fact", "content": "Atlas usa SQS.", "subject": "Projeto Atlas", "predicate": "uses_queue", "object": "[[SQS]]"})
	e.ok("write-page", map[string]any{"path": "wiki/concepts/Filas.md", "content": "Veja [[Nada Aqui]].", "frontmatter": map[string]any{"type": "concept"}})
	count := func(key string) func(map[string]any, any) error {
		return func(r map[string]any, _ any) error {
			if len(list(r, key)) == 0 {
				return fmt.Errorf("no %s (a limit of 0 reached the handler?): %v", key, r)
			}
			return nil
		}
	}
	equal := func(key string) func(map[string]any, any) error {
		return func(r map[string]any, want any) error {
			if got := r[key]; fmt.Sprint(got) != fmt.Sprint(want) {
				return fmt.Errorf("%s is %v, want tool.yaml's default %v", key, got, want)
			}
			return nil
		}
	}
	scoped := func(field string) func(map[string]any, any) error {
		return func(r map[string]any, want any) error {
			path := str(r, "path")
			if field != "" {
				path = str(obj(r, field), "path")
			}
			if fm := obj(e.ok("read", map[string]any{"path": path}), "frontmatter"); fm["scope"] != want {
				return fmt.Errorf("%s has scope %v, want tool.yaml's default %v", path, fm["scope"], want)
			}
			return nil
		}
	}
	// write-page's default mode creates the note: its answer says add.
	created := func(r map[string]any, want any) error {
		if want != "create" || str(r, "action") != "add" {
			return fmt.Errorf("write-page without mode (tool.yaml's default %v) answered action %q, want add", want, str(r, "action"))
		}
		return nil
	}
	tests := []struct {
		action, arg string
		args        map[string]any
		check       func(result map[string]any, def any) error
	}{
		{"recall", "budget-tokens", map[string]any{"task": "responder ao usuário"}, equal("budget_tokens")},
		{"search", "limit", map[string]any{"query": "SQS"}, count("hits")},
		{"search", "mode", map[string]any{"query": "SQS"}, equal("mode_requested")},
		{"graph", "depth", map[string]any{"node": "SQS"}, equal("depth")},
		{"graph", "limit", map[string]any{"node": "SQS"}, count("neighbors")},
		{"graph", "budget-tokens", map[string]any{"node": "SQS"}, count("neighbors")},
		{"facts", "limit", map[string]any{"predicate": "uses_queue"}, count("facts")},
		{"lint", "limit", map[string]any{"rules": []string{"broken_link"}}, count("findings")},
		{"recent", "limit", map[string]any{"since": "2000-01-01"}, count("ops")},
		{"write-page", "mode", map[string]any{"path": "wiki/concepts/Novo.md", "content": "Novo.", "frontmatter": map[string]any{"type": "concept"}}, created},
		{"remember", "scope", map[string]any{"type": "gotcha", "content": "Reinicie o consumidor depois do deploy."}, scoped("")},
		{"handoff-save", "scope", map[string]any{"session-handle": "S1", "next": []string{"Medir a latência"}}, scoped("handoff")},
		{"ingest", "scope", map[string]any{"content": "Filas com retentativas.", "title": "Retentativas", "source": "minutes"}, scoped("source")},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		key := tt.action + " " + tt.arg
		covered[key] = true
		t.Run(key, func(t *testing.T) {
			def, ok := declared[key]
			if !ok {
				t.Fatalf("tool.yaml declares no default for %s's %s: the handler gets none", tt.action, tt.arg)
			}
			r := e.ok(tt.action, tt.args)
			if err := tt.check(r, def); err != nil {
				t.Error(err)
			}
		})
	}
	var missing []string
	for key := range declared {
		if !covered[key] {
			missing = append(missing, key)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("tool.yaml declares defaults no row checks: %v", missing)
	}
}

// TestManifestTypesAreTheNoteSchema: remember's type enum in tool.yaml is
// the note schema's types (note.Folders, which every write checks, from
// whatever caller), so the host refuses exactly what the brain would.
func TestManifestTypesAreTheNoteSchema(t *testing.T) {
	m, err := manifests.Parse(filepath.Join("..", "..", manifests.FileName))
	if err != nil {
		t.Fatal(err)
	}
	var enum []string
	for _, arg := range m.Action("remember").Args {
		if arg.Name == "type" {
			for _, v := range arg.Enum {
				enum = append(enum, fmt.Sprint(v))
			}
		}
	}
	sort.Strings(enum)
	want := note.Types()
	sort.Strings(want)
	if fmt.Sprint(enum) != fmt.Sprint(want) {
		t.Fatalf("tool.yaml's remember type enum is %v, the note schema's types are %v", enum, want)
	}
}
