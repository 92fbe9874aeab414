package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestRenderTerminal: the plugin's Markdown at a terminal: tables fitted
// by cli/table (aligned, a \| kept in its cell, columns left out with a
// note when too wide), **strong** text and headings bold with colour and
// plain without, no escape sequence on a dumb terminal.
func TestRenderTerminal(t *testing.T) {
	md := "# Usage\n\n**$4.14** over 46 calls · _partial_\n\n| Model | Cost | Calls |\n|---|---:|---:|\n| claude-x \\| y | $1.65 | 6 |\n| gpt-5 | $0.03 | 12 |\n\n- a note\n"
	tests := []struct {
		name         string
		width        int
		colour, dumb bool
		want, refuse []string
	}{
		{"plain", 80, false, false,
			[]string{"Usage\n", "$4.14 over 46 calls · _partial_", "Model          Cost  Calls", "claude-x | y  $1.65      6", "gpt-5         $0.03     12", "- a note"},
			[]string{"**", "\x1b[", "|---"}},
		{"colour", 80, true, false,
			[]string{"\x1b[1mUsage\x1b[0m", "\x1b[1m$4.14\x1b[0m over", "\x1b[1mModel\x1b[0m"}, nil},
		{"dumb", 80, true, true, []string{"$4.14 over"}, []string{"\x1b["}},
		{"narrow", 14, false, false, []string{"(left out:", "Cost, Calls;"}, []string{"Calls  ", "$1.65"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := renderTerminal(md, tt.width, tt.colour, tt.dumb)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, r := range tt.refuse {
				if strings.Contains(out, r) {
					t.Errorf("output holds %q:\n%s", r, out)
				}
			}
		})
	}
}

// TestNoGlamourLinked: the plugin does not link glamour or its syntax
// highlighter, whose package initialisation every start (the statusline
// on each update, each CLI call) would pay and whose tables it would hold.
func TestNoGlamourLinked(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "glamour") || strings.Contains(dep, "chroma") {
			t.Errorf("the plugin links %s", dep)
		}
	}
}
