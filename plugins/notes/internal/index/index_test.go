package index

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/plugins/notes/internal/note"
)

// openTemp opens a new index in the test's temporary folder, closed when
// the test ends.
func openTemp(t *testing.T) *Index {
	t.Helper()
	ix, err := Open(context.Background(), filepath.Join(t.TempDir(), "i.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func TestSearchAndThenOr(t *testing.T) {
	ctx := context.Background()
	ix := openTemp(t)
	b, err := ix.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for path, raw := range map[string]string{
		"a.md": "---\ntype: concept\ntitle: Filas\n---\n\nSQS e Kafka são filas.\n",
		"b.md": "---\ntype: concept\ntitle: Kafka\n---\n\nKafka particiona tópicos.\n",
		"c.md": "---\ntype: concept\ntitle: Old\nvalid_until: 2020-01-01\n---\n\nSQS antigo.\n",
		"d.md": "---\ntype: concept\ntitle: 日本語のメモ\n---\n\n東京のサーバーは毎晩再起動します。한국어 문장도 있습니다.\n",
	} {
		if err := b.Put(ctx, note.Parse(path, []byte(raw))); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		q, mode string
		n       int
	}{
		{"sqs kafka", "and", 1},
		{"sqs tópicos", "or", 2},
		{"TOPICOS", "and", 1},
		{"nada", "none", 0},
		{"!!!", "none", 0},
		{"東京", "and", 1},
		{"再起動", "and", 1},
		{"京の", "and", 1},
		{"大阪", "none", 0},
		{"문장도", "and", 1},
		{"メモ sqs", "or", 2},
	}
	for _, tt := range tests {
		hits, mode, _, err := ix.Search(ctx, tt.q, Filter{AsOf: "2026-01-01"}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if mode != tt.mode || len(hits) != tt.n {
			t.Errorf("%q: mode %s with %d hits, want %s with %d", tt.q, mode, len(hits), tt.mode, tt.n)
		}
	}
	rows, _, err := ix.Resolve(ctx, "[[kafka]]")
	if err != nil || len(rows) != 1 || rows[0].Path != "b.md" {
		t.Fatalf("Resolve: %v %v", rows, err)
	}
}

func TestReopenOtherSchemaResets(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "i.db")
	ix, err := Open(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ix.Begin(ctx)
	_ = b.SetMeta(ctx, "head", "abc")
	_ = b.SetMeta(ctx, "schema", "0")
	_ = b.Commit()
	ix.Close()
	ix, err = Open(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.Meta(ctx, "head") != "" {
		t.Fatal("an index of another schema kept its head")
	}
}
