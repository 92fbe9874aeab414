package brain

import (
	"context"
	"testing"

	"github.com/toolhost/toolhost/plugins/notes/internal/catalogue"
)

// TestIndexMDAfterWritesMatchesARebuild: across writes that reuse the
// catalogue, a commit made by hand, and a person's uncommitted retitle,
// every write's index.md is the catalogue rebuilt from the index.
func TestIndexMDAfterWritesMatchesARebuild(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	ctx := context.Background()
	check := func(step string) {
		t.Helper()
		b := e.brain()
		entries, err := b.catalogueEntries(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := e.file("index.md"), string(catalogue.Render(entries)); got != want {
			t.Fatalf("%s: index.md is not the rebuilt catalogue:\n%s\nwant:\n%s", step, got, want)
		}
	}
	e.ok("remember", map[string]any{"type": "gotcha", "title": "Port clash", "content": "Port 8080 is taken by the proxy."})
	e.ok("remember", map[string]any{"type": "preference", "title": "Tabs", "content": "Indent Go with tabs."})
	check("two remembers")
	e.writeHuman("wiki/concepts/by-hand.md", "---\ntype: concept\ntitle: By hand\n---\nwritten by a person\n")
	e.ok("remember", map[string]any{"type": "gotcha", "title": "Slow vacuum", "content": "Vacuum runs before the nightly migration."})
	check("a remember after a commit by hand")
	// The resident plugin's watcher takes the retitle into the index.
	_, indexed := e.watched()
	e.handWrite("wiki/concepts/by-hand.md", "---\ntype: concept\ntitle: Retitled by hand\n---\nwritten by a person\n")
	for p := range indexed {
		if p == "wiki/concepts/by-hand.md" {
			break
		}
	}
	e.ok("remember", map[string]any{"type": "decision", "title": "Queues", "content": "The billing queue moves to SQS."})
	check("a remember after an uncommitted retitle")
	e.ok("remember", map[string]any{"type": "decision", "title": "Buckets", "content": "Terraform state lives in the shared bucket."})
	check("the next remember")
}
