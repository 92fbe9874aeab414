package embed

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// modelDir is where `make notes-model` installs the model, from this
// package's folder.
var modelDir = filepath.Join("..", "..", "model", filepath.FromSlash(PackagePath))

func loadModel(t testing.TB) *USE {
	t.Helper()
	if os.Getenv(EnvModelDir) == "" {
		t.Setenv(EnvModelDir, modelDir)
	}
	dir, err := Locate()
	if err != nil {
		t.Fatal(err)
	}
	u, err := LoadUSE(dir)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

type reference struct {
	Text   string    `json:"text"`
	IDs    []int     `json:"ids"`
	Vector []float32 `json:"vector"`
}

func loadReference(t *testing.T) []reference {
	t.Helper()
	return testplugin.JSONFile[[]reference](t, "testdata/reference.json")
}

func TestMatchesReference(t *testing.T) {
	u := loadModel(t)
	refs := loadReference(t)
	if raceDetector {
		// Under -race the forward pass is ~10x slower: the first four
		// sentences and the one past 128 pieces still check the port.
		refs = append(refs[:4:4], refs[18])
	}
	for _, r := range refs {
		got := u.tok.Encode(r.Text)
		if len(got) != len(r.IDs) {
			t.Errorf("%q: %d ids %v, want %d %v", r.Text, len(got), got, len(r.IDs), r.IDs)
			continue
		}
		for i := range got {
			if got[i] != r.IDs[i] {
				t.Errorf("%q: ids %v, want %v", r.Text, got, r.IDs)
				break
			}
		}
		v, err := u.Embed(context.Background(), []string{r.Text})
		if err != nil {
			t.Fatal(err)
		}
		if c := Cosine(v[0], r.Vector); c < 0.999 {
			t.Errorf("%q: cosine to the reference %.5f, want ≥ 0.999", r.Text, c)
		} else {
			t.Logf("%q: cosine %.6f", r.Text[:min(30, len(r.Text))], c)
		}
	}
}

// BenchmarkEmbed times one note at the model's full 128 pieces and one
// question of about 12.
func BenchmarkEmbed(b *testing.B) {
	u := loadModel(b)
	long := ""
	for len(u.Tokens(long)) < maxTokens {
		long += "List commits that are reachable by following the parent links from the given commit. "
	}
	for _, c := range []struct{ name, text string }{{"note128", long}, {"question", "How do I undo the last commit but keep my changes?"}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := u.Embed(context.Background(), []string{c.text}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
