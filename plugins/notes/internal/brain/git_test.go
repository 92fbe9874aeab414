package brain

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTrailersRoundTrip: what commitMessage writes, the log reader reads back the same from a real
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
			msg, err := commitMessage("remember: add gotcha: x", []string{"- add gotcha: x"}, tt.in)
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

// TestCommitMessageMatchesInterpretTrailers: the message commitMessage
// writes is the one git interpret-trailers writes for the same subject,
// body and trailers — with and without a body, with every trailer, with
// only the required ones, and with a subject and body lines that look like
// trailers or end in spaces.
func TestCommitMessageMatchesInterpretTrailers(t *testing.T) {
	requireGit(t)
	ctx := context.Background()
	full := trailers{Op: "op1", Action: "remember", Session: "S", Client: "claude-code/1.0", Request: "7", Channel: "mcp", Approved: true, Undoes: []string{"a", "b"}}
	tests := []struct {
		name    string
		subject string
		body    []string
		in      trailers
	}{
		{"every trailer", "remember: add gotcha: x", []string{"- add gotcha: x"}, full},
		{"no body", "init: new brain", nil, trailers{Op: "op2", Action: "init", Session: "none", Client: "notes"}},
		{"trailer-like lines", "Notes-Op: forged", []string{"- Notes-Op: forged", "- Signed-off-by: someone"}, full},
		{"spaces and line breaks", "remember: add gotcha: title  \n second line ", []string{"- update: a  ", "- b\n- c"}, trailers{Op: "op3", Action: "undo", Client: "cli", Undoes: []string{"op1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := commitMessage(tt.subject, tt.body, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			var in strings.Builder
			in.WriteString(oneLine(tt.subject) + "\n")
			if len(tt.body) > 0 {
				in.WriteString("\n")
				for _, l := range tt.body {
					in.WriteString(oneLine(l) + "\n")
				}
			}
			args := []string{"interpret-trailers", "--where", "end", "--if-exists", "add", "--if-missing", "add"}
			for _, f := range tt.in.text() {
				if *f.v != "" {
					args = append(args, "--trailer", f.key+": "+*f.v)
				}
			}
			if tt.in.Approved {
				args = append(args, "--trailer", trailerApproved+": user")
			}
			for _, u := range tt.in.Undoes {
				args = append(args, "--trailer", trailerUndoes+": "+u)
			}
			want, err := gitRunner{dir: t.TempDir(), env: []string{"GIT_DIR=/nonexistent"}}.runInput(ctx, in.String(), args...)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("commitMessage wrote:\n%q\ngit interpret-trailers writes:\n%q", got, want)
			}
		})
	}
}
