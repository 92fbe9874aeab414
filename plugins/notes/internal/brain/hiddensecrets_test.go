package brain

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/plugins/notes/internal/notesync"
	"github.com/toolhost/toolhost/plugins/notes/internal/secrets/secretstest"
)

// TestHiddenSecretsNeverReachHistory: the forms that reached the remote
// (secretstest.Hidden: keys as unarmoured DER or OpenSSH bodies, tokens
// encoded, compressed, split, spaced or full-width, passwords stated in
// prose) are refused by an agent's write (secret_detected) and block
// sync when a person wrote them by hand (secrets lists each file; nothing
// is pushed).
func TestHiddenSecretsNeverReachHistory(t *testing.T) {
	requireGit(t)
	forms := secretstest.Hidden(36)
	names := make([]string, 0, len(forms))
	for n := range forms {
		names = append(names, n)
	}
	sort.Strings(names)

	remote := bareRemote(t)
	e := machine(t, "laptop", remote, false)
	e.sync(notesync.OK)
	for i, n := range names {
		e.fails(CodeSecretDetected, "write-page", map[string]any{"path": fmt.Sprintf("wiki/concepts/agent-%d.md", i), "mode": "create",
			"content": forms[n], "frontmatter": map[string]any{"type": "concept"}})
		e.handEdit(fmt.Sprintf("wiki/concepts/hand-%d.md", i), "---\ntype: concept\n---\n\n"+forms[n]+"\n")
	}
	m := e.sync(notesync.Blocked)
	flagged := map[string]bool{}
	for _, s := range list(m, "secrets") {
		flagged[str(s.(map[string]any), "file")] = true
	}
	for i, n := range names {
		if p := fmt.Sprintf("wiki/concepts/hand-%d.md", i); !flagged[p] {
			t.Errorf("sync did not flag %s (%s)", p, n)
		}
	}
	out, err := (gitRunner{dir: remote}).run(context.Background(), "ls-tree", "-r", "--name-only", "main")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "hand-") {
		t.Fatalf("sync pushed the hand-written secrets:\n%s", out)
	}
}
