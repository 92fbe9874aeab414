package journal

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// osFiles reads and writes plain files under a folder.
type osFiles struct{ root string }

func (f osFiles) Read(rel string) ([]byte, error) { return os.ReadFile(filepath.Join(f.root, rel)) }
func (f osFiles) Write(rel string, data []byte) error {
	return os.WriteFile(filepath.Join(f.root, rel), data, 0o644)
}

// TestRestorePutsBackOnlyTheOperationsFiles: after an operation died, a
// file holding what it wrote gets its old content back, a file it created
// goes, and a file someone changed since is left as they left it.
func TestRestorePutsBackOnlyTheOperationsFiles(t *testing.T) {
	root := t.TempDir()
	s := Store{Root: root, Dir: ".notes/journal", Files: osFiles{root}}
	write := func(rel, content string) {
		if err := os.WriteFile(filepath.Join(root, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("edited.md", "before\n")
	write("theirs.md", "before\n")
	j, err := s.Begin("op1", "remember", "head", []string{"edited.md", "theirs.md", "new.md"},
		map[string][]byte{"edited.md": []byte("op wrote\n"), "theirs.md": []byte("op wrote\n"), "new.md": []byte("op wrote\n")})
	if err != nil {
		t.Fatal(err)
	}
	write("edited.md", "op wrote\n")
	write("theirs.md", "a person wrote\n")
	write("new.md", "op wrote\n")
	if js, err := s.Pending(); err != nil || len(js) != 1 || js[0].Op != "op1" {
		t.Fatalf("pending %v, %v; want op1", js, err)
	}
	paths, skipped, err := s.Restore(j)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(paths, []string{"edited.md", "new.md"}) || !slices.Equal(skipped, []string{"theirs.md"}) {
		t.Fatalf("restored %v, skipped %v", paths, skipped)
	}
	for rel, want := range map[string]string{"edited.md": "before\n", "theirs.md": "a person wrote\n"} {
		if got, _ := os.ReadFile(filepath.Join(root, rel)); string(got) != want {
			t.Errorf("%s holds %q, want %q", rel, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "new.md")); !os.IsNotExist(err) {
		t.Errorf("new.md is still there: %v", err)
	}
	s.End(j)
	if s.Any() {
		t.Fatal("the journal is still there after End")
	}
}
