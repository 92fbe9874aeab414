package brain

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTrailersRoundTrip: what commitMessage writes (through git
// interpret-trailers), the log reader reads back the same from a real
// commit (undo, recent and status rely on it), and the optional trailers
// are left out when empty.
func TestTrailersRoundTrip(t *testing.T) {
	requireGit(t)
	ctx := context.Background()
	g := gitRunner{dir: t.TempDir()}
	if _, err := g.run(ctx, "init", "-q", "-b", "main"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		in     trailers
		absent []string // trailer keys the message must not hold
	}{
		{"every trailer", trailers{Op: "op1", Action: "remember", Session: "S", Client: "claude-code", Request: "7", Channel: "mcp", Approved: true, Undoes: []string{"a", "b"}}, nil},
		{"only the required ones", trailers{Op: "op2", Action: "undo", Client: "cli"}, []string{"Notes-Request", "Notes-Channel", "Notes-Approved", "Notes-Undoes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, err := commitMessage(ctx, g, "remember: add gotcha: x", []string{"- add gotcha: x"}, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := g.run(ctx, "commit", "-q", "--allow-empty", "-m", msg); err != nil {
				t.Fatal(err)
			}
			entries, err := g.log(ctx, "-1")
			if err != nil || len(entries) != 1 {
				t.Fatalf("log: %v %v", entries, err)
			}
			got := entries[0].Trailer
			if diff := cmp.Diff(tt.in, got); diff != "" {
				t.Errorf("read back (-wrote +read):\n%s\nmessage:\n%s", diff, msg)
			}
			for _, key := range tt.absent {
				if strings.Contains(msg, key+":") {
					t.Errorf("message holds %s, which is empty:\n%s", key, msg)
				}
			}
		})
	}
}
