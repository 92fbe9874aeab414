package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// repo makes a repository in a temporary folder with files committed.
func repo(t *testing.T, files map[string]string) Runner {
	t.Helper()
	if _, err := Binary(); err != nil {
		t.Skip(err)
	}
	g := Runner{Dir: t.TempDir()}
	for p, c := range files {
		write(t, g, p, c)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "init"}} {
		if _, err := g.Run(context.Background(), args...); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func write(t *testing.T, g Runner, p, content string) {
	t.Helper()
	abs := filepath.Join(g.Dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCommitPathsRefusals: a commit whose paths hold what HEAD holds is
// ErrNothingToCommit, and one whose path is a folder in HEAD (its files
// taken out of the index by hand) is a FolderError; neither moves HEAD.
func TestCommitPathsRefusals(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		setup func(t *testing.T, g Runner)
		path  string
		want  func(error) bool
	}{
		{"nothing to commit", func(t *testing.T, g Runner) {}, "a.md",
			func(err error) bool { return errors.Is(err, ErrNothingToCommit) }},
		{"a folder in HEAD", func(t *testing.T, g Runner) {
			if _, err := g.Run(ctx, "rm", "-q", "-r", "--cached", "d"); err != nil {
				t.Fatal(err)
			}
			if err := os.RemoveAll(filepath.Join(g.Dir, "d")); err != nil {
				t.Fatal(err)
			}
			write(t, g, "d", "now a file\n")
		}, "d", func(err error) bool { var fe *FolderError; return errors.As(err, &fe) && fe.Path == "d" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := repo(t, map[string]string{"a.md": "a\n", "d/x.md": "x\n"})
			tt.setup(t, g)
			head, _ := g.Head(ctx)
			err := CommitPaths(ctx, g, []string{tt.path}, "commit "+tt.path)
			if !tt.want(err) {
				t.Fatalf("got %v", err)
			}
			if now, _ := g.Head(ctx); now != head {
				t.Fatalf("HEAD moved %s → %s", head, now)
			}
		})
	}
}

// TestCleanMessage: messages are cleaned as git commit -m cleans them.
func TestCleanMessage(t *testing.T) {
	for in, want := range map[string]string{
		"subject":                          "subject\n",
		"\n\nsubject  \n\n\n\nbody \t\n\n": "subject\n\nbody\n",
		"a\r\nb":                           "a\nb\n",
		"  \n \n":                          "",
	} {
		if got := cleanMessage(in); got != want {
			t.Errorf("cleanMessage(%q) = %q, want %q", in, got, want)
		}
	}
}
