package brain

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// TestCatalogueChangesMatchARebuild: a catalogue changed line by line
// (notes added, retitled, moved to another type or scope, archived,
// removed) renders the same index.md as one built from the final notes.
func TestCatalogueChangesMatchARebuild(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	types := append(benchTypes, "", "unknown-type")
	scopes := []string{"global", "project:atlas", "project:b"}
	titles := []string{"Queue", "queue", "Índice", "a [b] c", "Zebra", "alpha", "Alpha", "mid (x)"}
	entry := func(i int) catEntry {
		return catEntry{Path: fmt.Sprintf("memory/x/n%03d.md", i), Type: types[r.IntN(len(types))],
			Title: titles[r.IntN(len(titles))], Scope: scopes[r.IntN(len(scopes))]}
	}
	for round := range 50 {
		final := map[string]catEntry{}
		var base []catEntry
		for i := range 40 {
			e := entry(i)
			base = append(base, e)
			final[e.Path] = e
		}
		set := newCatSet(base)
		var pending []change
		for range 1 + r.IntN(6) {
			e := entry(r.IntN(60))
			switch r.IntN(4) {
			case 0:
				pending = append(pending, change{Path: e.Path})
				delete(final, e.Path)
			case 1:
				archived := "memory/_archive/" + filepath.Base(e.Path)
				pending = append(pending, change{Path: archived, Data: []byte("---\ntitle: gone\n---\n")})
			default:
				fm := fmt.Sprintf("---\ntitle: %q\nscope: %s\n", e.Title, e.Scope)
				if e.Type != "" {
					fm += "type: " + e.Type + "\n"
				}
				pending = append(pending, change{Path: e.Path, Data: []byte(fm + "---\n\nbody\n")})
				final[e.Path] = e
			}
		}
		set.apply(pending)
		var want []catEntry
		for _, e := range final {
			want = append(want, e)
		}
		if got, wantCat := string(set.render()), string(catalogue(want)); got != wantCat {
			t.Fatalf("round %d: changed catalogue differs from a rebuild:\n%s\nwant:\n%s", round, got, wantCat)
		}
	}
}

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
		if got, want := e.file("index.md"), string(catalogue(entries)); got != want {
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
