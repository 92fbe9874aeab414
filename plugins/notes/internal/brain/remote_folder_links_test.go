//go:build unix

package brain

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/plugins/notes/internal/notesync"
)

// TestSyncRefusesFolderLinksAndSubmodulesFromTheRemote: the link need not
// be the note itself. Another machine pushes a commit whose tree makes a
// whole folder (wiki/concepts) a symbolic link to a folder outside the
// brain, or adds a submodule (mode 160000); sync refuses each, names the
// path and why, merges nothing, and no reader returns the outside text.
func TestSyncRefusesFolderLinksAndSubmodulesFromTheRemote(t *testing.T) {
	requireGit(t)
	outside, word := outsideSecret(t)
	ctx := context.Background()
	tests := []struct {
		name, path, why string
		add             func(t *testing.T, og gitRunner, other string)
	}{
		{"a folder on the way is a link", "wiki/concepts", "symbolic link", func(t *testing.T, og gitRunner, other string) {
			abs := filepath.Join(other, "wiki", "concepts")
			if err := os.RemoveAll(abs); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Dir(outside), abs); err != nil {
				t.Fatal(err)
			}
			if _, err := og.run(ctx, "add", "-A"); err != nil {
				t.Fatal(err)
			}
		}},
		{"a submodule", "wiki/sub", "submodule", func(t *testing.T, og gitRunner, other string) {
			head, err := og.run(ctx, "rev-parse", "HEAD")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := og.run(ctx, "update-index", "--add", "--cacheinfo", "160000,"+strings.TrimSpace(head)+",wiki/sub"); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			remote := bareRemote(t)
			a := machine(t, "laptop", remote, false)
			a.ok("remember", map[string]any{"content": "The billing consumer reads from SQS.", "type": "fact", "subject": "billing", "predicate": "reads-from", "object": "SQS"})
			a.sync(notesync.OK)

			other := filepath.Join(t.TempDir(), "other")
			if _, err := (gitRunner{dir: filepath.Dir(other)}).run(ctx, "clone", "-q", remote, other); err != nil {
				t.Fatal(err)
			}
			og := gitRunner{dir: other}
			tt.add(t, og, other)
			for _, args := range [][]string{{"commit", "-q", "-m", "hostile"}, {"push", "-q", "origin", "HEAD:main"}} {
				if _, err := og.run(ctx, args...); err != nil {
					t.Fatal(err)
				}
			}

			head := a.head()
			m := a.sync(notesync.Blocked)
			if got := strings.Join(unsafePaths(list(m, "unsafe_files")), ","); !strings.Contains(got, tt.path) {
				t.Fatalf("sync: unsafe_files %q, want %s named: %v", got, tt.path, m)
			}
			if !strings.Contains(str(m, "message"), tt.why) {
				t.Fatalf("sync message %q does not say %q", str(m, "message"), tt.why)
			}
			if got := a.head(); got != head {
				t.Fatalf("sync merged the hostile commit (HEAD %s, was %s)", got, head)
			}
			noOutsideText(t, a, word)
		})
	}
}
