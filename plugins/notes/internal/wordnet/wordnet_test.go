package wordnet

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeDB writes a small database in WordNet's own format: data lines at
// the byte offsets their index lines name.
func writeDB(t *testing.T, synsets map[string][][]string) string {
	t.Helper()
	dir := t.TempDir()
	for _, pos := range poses {
		header := "  1 This is a licence header line, as WordNet's files start with.  \n"
		data := header
		lemmas := map[string][]int{}
		for _, words := range synsets[pos] {
			off := len(data)
			var b strings.Builder
			fmt.Fprintf(&b, "%08d 03 %c %02x", off, pos[0], len(words))
			for _, w := range words {
				fmt.Fprintf(&b, " %s 0", w)
			}
			b.WriteString(" 000 | a gloss  \n")
			data += b.String()
			for _, w := range words {
				key, _, _ := strings.Cut(strings.ToLower(w), "(") // the index has no adjective markers
				lemmas[key] = append(lemmas[key], off)
			}
		}
		var keys []string
		for k := range lemmas {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		index := header
		for _, k := range keys {
			offs := lemmas[k]
			index += fmt.Sprintf("%s %c %d 1 @ %d 0", k, pos[0], len(offs), len(offs))
			for _, o := range offs {
				index += fmt.Sprintf(" %08d", o)
			}
			index += "  \n"
		}
		for name, text := range map[string]string{"index." + pos: index, "data." + pos: data} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

func TestSynonyms(t *testing.T) {
	dir := writeDB(t, map[string][][]string{
		"noun": {{"car", "auto", "automobile", "motorcar"}, {"car", "railcar"}, {"car", "gondola"}, {"stash", "cache"}},
		"verb": {{"stash", "stash_away", "hoard"}, {"delete", "erase"}},
		"adj":  {{"quick(a)", "fast"}},
	})
	wn, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer wn.Close()
	tests := []struct {
		word   string
		senses int
		want   []string
	}{
		{"car", 1, []string{"auto", "automobile", "motorcar"}},
		{"car", 2, []string{"auto", "automobile", "motorcar", "railcar"}},
		{"cars", 2, []string{"auto", "automobile", "motorcar", "railcar"}}, // plural resolved
		{"Stash", 1, []string{"cache", "hoard"}},                           // collocations left out
		{"deleted", 1, []string{"erase"}},                                  // past tense resolved
		{"quick", 1, []string{"fast"}},                                     // adjective marker dropped
		{"zebra", 2, nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%d", tt.word, tt.senses), func(t *testing.T) {
			got := wn.Synonyms(tt.word, tt.senses)
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Synonyms(%q, %d) = %v, want %v", tt.word, tt.senses, got, tt.want)
			}
		})
	}
}

func TestOpenMissing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "none")
	_, err := Open(dir)
	if err == nil || !strings.Contains(err.Error(), dir) {
		t.Fatalf("Open(%s): got %v, want an error naming the folder", dir, err)
	}
}

// TestDebianDatabase reads the database Debian's wordnet-base installs
// (make deps installs it).
func TestDebianDatabase(t *testing.T) {
	if _, err := os.Stat(filepath.Join(DefaultDir, "index.noun")); err != nil {
		t.Skipf("WordNet is not installed at %s (make deps installs wordnet-base): %v", DefaultDir, err)
	}
	wn, err := Open(DefaultDir)
	if err != nil {
		t.Fatal(err)
	}
	defer wn.Close()
	for word, want := range map[string]string{"car": "automobile", "delete": "erase", "shelve": "postpone", "cars": "automobile"} {
		if got := wn.Synonyms(word, 2); !slices.Contains(got, want) {
			t.Errorf("Synonyms(%q) = %v, want %q among them", word, got, want)
		}
	}
}
