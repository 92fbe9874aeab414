package sdk

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/cli"
	"github.com/toolhost/toolhost/cli/markdown"
)

// shelfManifest has a read-only action with defaults and an irreversible
// one (its name holds the verb "delete").
const shelfManifest = `name: shelf
description: Keeps books on a shelf.
version: 2.3.4
entrypoint: shelf
actions:
  - name: list
    description: List the books.
    read_only: true
    args:
      - {name: limit, type: integer, minimum: 1, default: 10, description: Most books}
      - {name: order, type: string, enum: [title, date], default: title}
      - {name: shelf, type: string, required: true, description: Which shelf}
  - name: delete-book
    description: Delete a book for good.
    args:
      - {name: title, type: string, required: true}
`

func shelfPlugin(deleted *[]string) Plugin {
	return Plugin{Actions: map[string]Handler{
		"list": func(_ context.Context, req *Request) (*Result, error) {
			return &Result{Data: map[string]any{"books": []map[string]any{{"title": "Emma", "year": 1815}, {"title": "Ulysses", "year": 1922}}},
				Markdown: "## Books\n\n- *Emma*\n- *Ulysses*"}, nil
		},
		"delete-book": func(_ context.Context, req *Request) (*Result, error) {
			var a struct {
				Title string `json:"title"`
			}
			if err := req.Bind(&a); err != nil {
				return nil, err
			}
			*deleted = append(*deleted, a.Title)
			return &Result{Data: map[string]any{"deleted": a.Title}}, nil
		},
	}}
}

func TestCLIModeHelpAndVersion(t *testing.T) {
	m := mustParse(t, "shelf/tool.yaml", shelfManifest)
	tests := []struct {
		name    string
		args    []string
		code    int
		stdout  []string
		noStdin bool
	}{
		{"tool help on stdout with args and defaults", []string{"--help"}, cli.ExitOK,
			[]string{"shelf 2.3.4", "list", "--limit", "(default 10)", "one of title|date", "(required)", "delete-book", "irreversible", "Exit codes"}, false},
		{"action help on stdout", []string{"list", "--help"}, cli.ExitOK, []string{"--order", `(default title)`, "Exit codes"}, false},
		{"irreversible action help says how to confirm", []string{"delete-book", "-h"}, cli.ExitOK, []string{"--confirm"}, false},
		{"version", []string{"--version"}, cli.ExitOK, []string{"shelf 2.3.4\n"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := runCLIWith(context.Background(), shelfPlugin(new([]string)), m, tt.args, nil, &out, &errOut, nil)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out.String(), errOut.String())
			}
			for _, w := range tt.stdout {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out.String())
				}
			}
			if errOut.Len() > 0 {
				t.Errorf("stderr is not empty: %s", errOut.String())
			}
		})
	}
}

func TestCLIModeConfirm(t *testing.T) {
	m := mustParse(t, "shelf/tool.yaml", shelfManifest)
	asked := &cli.Term{Ask: true, Width: 80}
	tests := []struct {
		name    string
		args    []string
		term    *cli.Term
		stdin   string
		code    int
		deleted int
		stdout  string
		stderr  string
	}{
		{"refused without --confirm when nobody can be asked", []string{"delete-book", "--title", "Emma"}, nil, "", cli.ExitFailure, 0,
			"run the same `shelf delete-book …` again with --confirm if you mean it", ""},
		{"--confirm runs it", []string{"delete-book", "--title", "Emma", "--confirm"}, nil, "", cli.ExitOK, 1, `"deleted": "Emma"`, ""},
		{"y at the prompt runs it", []string{"delete-book", "--title", "Emma"}, asked, "y\n", cli.ExitOK, 1, `"deleted": "Emma"`, "[y/N]"},
		{"anything else at the prompt does not", []string{"delete-book", "--title", "Emma"}, asked, "\n", cli.ExitFailure, 0, "approval_required", "[y/N]"},
		{"end of input at the prompt does not", []string{"delete-book", "--title", "Emma"}, asked, "", cli.ExitFailure, 0, "you did not confirm it", "[y/N]"},
		{"a read-only action asks nothing", []string{"list", "--shelf", "a"}, asked, "", cli.ExitOK, 0, `"Emma"`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var deleted []string
			var out, errOut bytes.Buffer
			var term *cli.Term
			if tt.term != nil {
				cp := *tt.term
				term = &cp
			}
			code := runCLIWith(context.Background(), shelfPlugin(&deleted), m, tt.args, strings.NewReader(tt.stdin), &out, &errOut, term)
			if code != tt.code || len(deleted) != tt.deleted {
				t.Fatalf("exit %d and %d deleted, want %d and %d\nstdout: %s\nstderr: %s", code, len(deleted), tt.code, tt.deleted, out.String(), errOut.String())
			}
			if !strings.Contains(out.String(), tt.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.stdout, out.String())
			}
			if !strings.Contains(errOut.String(), tt.stderr) || tt.stderr == "" && errOut.Len() > 0 {
				t.Errorf("stderr = %q, want it to hold %q", errOut.String(), tt.stderr)
			}
		})
	}
}

func TestCLIModeUsageErrors(t *testing.T) {
	m := mustParse(t, "shelf/tool.yaml", shelfManifest)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"unknown flag with no value is an unknown arg", []string{"list", "--shelff"}, []string{"shelf list has no arg --shelff", `"shelf"`, "shelf list --help"}},
		{"unknown action points to --help", []string{"lsit"}, []string{`"list"`, "run `shelf --help` to list the actions"}},
		{"a word that is not a flag", []string{"list", "a"}, []string{"args are given as --NAME VALUE", "shelf list --help"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			code := runCLIWith(context.Background(), shelfPlugin(new([]string)), m, tt.args, nil, &out, io.Discard, nil)
			if code != cli.ExitUsage {
				t.Errorf("exit %d, want %d", code, cli.ExitUsage)
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

// TestCLIModeOnATerminal: rendered for a person, or raw JSON with --json;
// the next step in the plugin's own words.
func TestCLIModeOnATerminal(t *testing.T) {
	m := mustParse(t, "shelf/tool.yaml", shelfManifest)
	tests := []struct {
		name     string
		renderer bool // the plugin sets RenderMarkdown
		args     []string
		want     []string
		refuse   []string
	}{
		{"Markdown rendered", true, []string{"list", "--shelf", "a"}, []string{"Books", "Emma"}, []string{"*Emma*", `"books"`}},
		{"no renderer: the Markdown as written", false, []string{"list", "--shelf", "a"}, []string{"## Books\n\n- *Emma*\n"}, []string{`"books"`}},
		{"--json alone: raw JSON", true, []string{"list", "--shelf", "a", "--json"}, []string{`"books": [`}, []string{"*Emma*"}},
		{"error in the plugin's words", true, []string{"list"}, []string{"error:", "next: run `shelf list --help` for the args"}, []string{"capabilities", `"error"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			p := shelfPlugin(new([]string))
			if tt.renderer {
				p.RenderMarkdown = markdown.Render
			}
			runCLIWith(context.Background(), p, m, tt.args, nil, &out, io.Discard, &cli.Term{Render: true, Width: 80})
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out.String())
				}
			}
			for _, w := range tt.refuse {
				if strings.Contains(out.String(), w) {
					t.Errorf("stdout holds %q:\n%s", w, out.String())
				}
			}
		})
	}
}
