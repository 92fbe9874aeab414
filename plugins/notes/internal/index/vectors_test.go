package index

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/toolhost/toolhost/plugins/notes/internal/note"
)

// putNotes puts notes into ix in one batch, in path order: the sections'
// order (their rowids) is then the same every run, and tests that give the
// nth pending section the nth vector know which section that is (in a
// map's order, TestVectorsFollowSections failed when b.md went in first).
func putNotes(t *testing.T, ix *Index, notes map[string]string) {
	t.Helper()
	ctx := context.Background()
	b, err := ix.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range slices.Sorted(maps.Keys(notes)) {
		if err := b.Put(ctx, note.Parse(path, []byte(notes[path]))); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}

// axis is a unit vector along dimension i of 4.
func axis(i int) []float32 {
	v := make([]float32, 4)
	v[i] = 1
	return v
}

// TestVectorsFollowSections: sections get vectors, a replaced note's
// section waits for a new one (even when SQLite hands its rowid to the new
// text), a vector made for text that changed meanwhile is not assigned,
// and vector search ranks notes by their best section within the filter.
func TestVectorsFollowSections(t *testing.T) {
	ctx := context.Background()
	ix := openTemp(t)
	putNotes(t, ix, map[string]string{
		"a.md": "---\ntype: concept\ntitle: A\n---\n\nalpha\n",
		"b.md": "---\ntype: source\ntitle: B\n---\n\nbeta\n\n## Two\n\nbeta two\n",
	})
	pending, err := ix.PendingSections(ctx, "m1")
	if err != nil || len(pending) != 3 {
		t.Fatalf("pending %v (%v), want 3 sections", pending, err)
	}
	var items []SectionVector
	for i, s := range pending {
		items = append(items, SectionVector{Section: s, Hash: s.Path + s.Text, Vec: axis(i)})
	}
	if err := ix.PutVectors(ctx, items); err != nil {
		t.Fatal(err)
	}
	if p, _ := ix.PendingSections(ctx, "m1"); len(p) != 0 {
		t.Fatalf("after PutVectors: pending %v, want none", p)
	}
	// b.md's second section is axis(2): a query along it finds b first.
	hits, err := ix.VectorSearch(ctx, axis(2), Filter{}, 10)
	if err != nil || len(hits) != 2 || hits[0].Path != "b.md" || hits[0].Score != 1 || len(hits[0].Heading) != 1 {
		t.Fatalf("vector search: %+v (%v), want b.md first at 1 with its heading", hits, err)
	}
	if hits, _ := ix.VectorSearch(ctx, axis(2), Filter{Types: []string{"concept"}}, 10); len(hits) != 1 || hits[0].Path != "a.md" {
		t.Fatalf("vector search of concepts: %+v, want a.md only", hits)
	}
	if h, err := ix.Hit(ctx, hits[0]); err != nil || h.Title != "B" || h.Snippet != "## Two beta two" {
		t.Fatalf("hit: %+v (%v), want B with its section as the snippet", h, err)
	}
	// Rewrite b.md: its sections are new rows (the last rowids may be
	// reused) and must wait for new vectors.
	putNotes(t, ix, map[string]string{"b.md": "---\ntype: source\ntitle: B\n---\n\ngamma\n\n## Two\n\ngamma two\n"})
	pending, _ = ix.PendingSections(ctx, "m1")
	if len(pending) != 2 || pending[0].Text != "gamma" {
		t.Fatalf("after rewriting b.md: pending %+v, want its 2 new sections", pending)
	}
	// A vector made for text that changed before it was stored is not
	// assigned.
	stale := SectionVector{Section: pending[0], Hash: "stale", Vec: axis(3)}
	stale.Text = "gamma as it was"
	if err := ix.PutVectors(ctx, []SectionVector{stale}); err != nil {
		t.Fatal(err)
	}
	if p, _ := ix.PendingSections(ctx, "m1"); len(p) != 2 {
		t.Fatalf("after storing a vector for old text: pending %d, want 2", len(p))
	}
	// Another model's vectors do not count.
	if p, _ := ix.PendingSections(ctx, "m2"); len(p) != 3 {
		t.Fatalf("for another model: pending %d, want all 3", len(p))
	}
}
