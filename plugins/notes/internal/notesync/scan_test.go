package notesync

import (
	"testing"

	"github.com/toolhost/toolhost/plugins/notes/internal/secrets/secretstest"
)

// TestScanHumanKeepsToAddedLinesAndHonoursTheMarker: sync's scan of what
// it sends looks only at the lines a push adds, and a person's
// AllowSecretMarker on a line leaves it out.
func TestScanHumanKeepsToAddedLinesAndHonoursTheMarker(t *testing.T) {
	fx := secretstest.Fixtures(1)
	tok := fx["github-token"]
	content := "a\nold " + tok + "\nnew " + tok + "\nallowed " + tok + " " + AllowSecretMarker + "\n"
	got := scanHuman("n.md", content, map[int]bool{3: true, 4: true})
	if len(got) != 1 || got[0].Line != 3 || got[0].File != "n.md" {
		t.Fatalf("got %+v, want one finding on line 3 of n.md", got)
	}
	if all := scanHuman("n.md", content, nil); len(all) != 2 {
		t.Fatalf("got %d findings scanning every line, want 2 (lines 2 and 3): %+v", len(all), all)
	}
}
