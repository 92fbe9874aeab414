package source

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnlistableFolderIsOneProblem: in each provider's tree, a folder
// that cannot be listed (a symbolic link loop, which even root cannot
// list) is one Problem naming the provider's folder and the reason, and
// the sessions beside it are still found; a folder that is missing is no
// problem at all.
func TestUnlistableFolderIsOneProblem(t *testing.T) {
	tests := []struct {
		name     string
		provider Provider
		env      string   // the variable naming the provider's folder
		files    []string // files to write, below that folder
		loop     string   // a folder made a link to itself; "" for none
		found    int      // sources found
		problem  string   // what the one Problem says; "" for none
	}{
		{"claude subagents", Claude{}, "CLAUDE_CONFIG_DIR",
			[]string{"projects/-home-dev/s1.jsonl", "projects/-home-dev/s2/subagents/agent-a.jsonl", "projects/-home-dev/s3/x"},
			"projects/-home-dev/s3/subagents", 2, "1 folder(s) under a Claude Code projects/ folder could not be listed"},
		{"claude no subagents", Claude{}, "CLAUDE_CONFIG_DIR",
			[]string{"projects/-home-dev/s1.jsonl", "projects/-home-dev/s3/x"}, "", 1, ""},
		{"gemini chats", Gemini{}, "USAGE_GEMINI_DIR",
			[]string{"tmp/p1/chats/session-1.json", "tmp/p2/x"},
			"tmp/p2/chats", 1, "1 folder(s) under Gemini CLI's tmp/ could not be listed"},
		{"gemini no chats", Gemini{}, "USAGE_GEMINI_DIR",
			[]string{"tmp/p1/chats/session-1.json", "tmp/p2/x"}, "", 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for _, f := range tt.files {
				p := filepath.Join(root, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.loop != "" {
				loop := filepath.Join(root, tt.loop)
				if err := os.Symlink(loop, loop); err != nil {
					t.Fatal(err)
				}
			}
			dsc, err := tt.provider.Discover(func(k string) string {
				if k == tt.env {
					return root
				}
				return ""
			})
			if err != nil {
				t.Fatalf("Discover: %v", err)
			}
			if len(dsc.Sources) != tt.found {
				t.Errorf("found %d sources %+v, want %d", len(dsc.Sources), dsc.Sources, tt.found)
			}
			switch {
			case tt.problem == "" && len(dsc.Problems) != 0:
				t.Errorf("got problems %v, want none", dsc.Problems)
			case tt.problem != "" && (len(dsc.Problems) != 1 || !strings.Contains(dsc.Problems[0].Error(), tt.problem) ||
				!strings.Contains(dsc.Problems[0].Error(), "too many levels of symbolic links")):
				t.Errorf("got problems %v, want one saying %q and why", dsc.Problems, tt.problem)
			}
		})
	}
}
