package brain

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTrailersRoundTrip: what commitMessage writes, the log reader reads
// back the same (undo, recent and status rely on it), and the optional
// trailers are left out when empty.
func TestTrailersRoundTrip(t *testing.T) {
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
			msg := commitMessage("remember: add gotcha: x", []string{"- add gotcha: x"}, tt.in)
			var got trailers
			for _, line := range strings.Split(msg, "\n") {
				got.parseTrailer(line)
			}
			if diff := cmp.Diff(tt.in, got); diff != "" {
				t.Errorf("read back (-wrote +read):\n%s\nmessage:\n%s", diff, msg)
			}
			for _, key := range tt.absent {
				if strings.Contains(msg, key+":") {
					t.Errorf("message holds %s, which is empty:\n%s", key, msg)
				}
			}
			if !strings.Contains(msg, "Notes-Session: \n") && tt.in.Session == "" {
				t.Errorf("the session line is left out when empty (it is always written):\n%s", msg)
			}
		})
	}
}
