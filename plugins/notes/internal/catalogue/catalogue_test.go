package catalogue

import (
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
	types := []string{"preference", "gotcha", "decision", "procedure", "fact", "concept", "entity", "episode", "", "unknown-type"}
	scopes := []string{"global", "project:atlas", "project:b"}
	titles := []string{"Queue", "queue", "Índice", "a [b] c", "Zebra", "alpha", "Alpha", "mid (x)"}
	entry := func(i int) Entry {
		return Entry{Path: fmt.Sprintf("memory/x/n%03d.md", i), Type: types[r.IntN(len(types))],
			Title: titles[r.IntN(len(titles))], Scope: scopes[r.IntN(len(scopes))]}
	}
	for round := range 50 {
		final := map[string]Entry{}
		var base []Entry
		for i := range 40 {
			e := entry(i)
			base = append(base, e)
			final[e.Path] = e
		}
		set := New(base)
		type change struct {
			path string
			data []byte
		}
		var pending []change
		for range 1 + r.IntN(6) {
			e := entry(r.IntN(60))
			switch r.IntN(4) {
			case 0:
				pending = append(pending, change{path: e.Path})
				delete(final, e.Path)
			case 1:
				archived := "memory/_archive/" + filepath.Base(e.Path)
				pending = append(pending, change{path: archived, data: []byte("---\ntitle: gone\n---\n")})
			default:
				fm := fmt.Sprintf("---\ntitle: %q\nscope: %s\n", e.Title, e.Scope)
				if e.Type != "" {
					fm += "type: " + e.Type + "\n"
				}
				pending = append(pending, change{path: e.Path, data: []byte(fm + "---\n\nbody\n")})
				final[e.Path] = e
			}
		}
		for _, ch := range pending {
			set.Apply(ch.path, ch.data)
		}
		var want []Entry
		for _, e := range final {
			want = append(want, e)
		}
		if got, wantCat := string(set.Render()), string(Render(want)); got != wantCat {
			t.Fatalf("round %d: changed catalogue differs from a rebuild:\n%s\nwant:\n%s", round, got, wantCat)
		}
	}
}
