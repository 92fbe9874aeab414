package brain

import (
	"strings"
	"testing"

	"github.com/toolhost/toolhost/sdk"
)

// TestWritesNeverLoseHandEdits: a note a person edited by hand and did
// not commit is never overwritten: write-page (overwrite and append),
// patch-page, forget and undo of the op that wrote it answer a conflict
// (or git's refusal) naming the note, and the hand edit is still in the
// file; once the person commits it, the same write goes through.
func TestWritesNeverLoseHandEdits(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	const rel = "wiki/concepts/Queues.md"
	created := e.ok("write-page", map[string]any{"path": rel, "mode": "create", "content": "We use SQS for billing.", "frontmatter": map[string]any{"type": "concept"}})
	id := str(created, "id")
	hand := strings.Replace(e.file(rel), "We use SQS for billing.", "We use SQS for billing.\n\nHand note: the DLQ is drained by the on-call.", 1)
	e.handEdit(rel, hand)
	head := e.head()

	calls := []struct {
		action    string
		args      map[string]any
		confirmed bool
	}{
		{"write-page", map[string]any{"path": rel, "mode": "overwrite", "content": "We use Kafka for billing."}, false},
		{"write-page", map[string]any{"path": rel, "mode": "append", "content": "Also Kafka."}, false},
		{"patch-page", map[string]any{"path": rel, "old": "SQS", "new": "Kafka"}, false},
		{"forget", map[string]any{"id": id, "reason": "outdated"}, true},
	}
	for _, c := range calls {
		m, err := e.callWith(sdk.Caller{ClientName: "claude-code", Confirmed: c.confirmed}, c.action, c.args)
		if err == nil && str(m, "status") == "confirmation_required" {
			// The person said yes: the call comes again with the token.
			c.args["confirm-token"] = str(m, "confirm_token")
			m, err = e.callWith(sdk.Caller{ClientName: "claude-code", Confirmed: c.confirmed}, c.action, c.args)
		}
		if err == nil {
			t.Fatalf("%s %v over a hand edit: got %v, want a conflict", c.action, c.args, m)
		}
		if err.Code != CodeConflict || !strings.Contains(err.Message, rel) {
			t.Fatalf("%s: got %s %q, want conflict naming %s", c.action, err.Code, err.Message, rel)
		}
		if got := e.file(rel); got != hand {
			t.Fatalf("%s lost the hand edit; file now:\n%s", c.action, got)
		}
	}
	if _, err := e.call("undo", map[string]any{"op": str(created, "op")}); err == nil {
		t.Fatal("undo over a hand edit went through")
	}
	if got := e.file(rel); got != hand {
		t.Fatalf("undo lost the hand edit; file now:\n%s", got)
	}
	if got := e.head(); got != head {
		t.Fatalf("a refused write committed (HEAD %s, was %s)", got, head)
	}

	// Committed by the person: the agent's overwrite goes through, and the
	// hand edit is in history.
	e.git("commit", "-q", "-am", "by hand")
	e.ok("write-page", map[string]any{"path": rel, "mode": "overwrite", "content": "We use Kafka for billing."})
	if !strings.Contains(e.git("log", "-p", "--", rel), "Hand note: the DLQ") {
		t.Fatal("the hand edit is not in history")
	}
}
