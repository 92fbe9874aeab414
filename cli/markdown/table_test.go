package markdown

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestRenderFitsTables(t *testing.T) {
	tests := []struct {
		name   string
		md     string
		width  int
		want   []string // lines (trimmed) the output holds
		refuse []string
	}{
		{"a wide table keeps its names whole and says what it left out",
			"Usage:\n\n| Model | Cost | Calls | Input | Output | Cache write | Cache read | Total |\n|---|---:|---:|---:|---:|---:|---:|---:|\n" +
				"| claude-sonnet-4-5-20250929 | $10.12 | 100 | 1,234,567 | 234,567 | 3,456,789 | 45,678,901 | 50,604,824 |\n",
			80, []string{"claude-sonnet-4-5-20250929  $10.12    100", "(left out: Cache read, Total; to fit 80 columns)"}, []string{"claude-sonnet-4-5-2025092\n"}},
		{"markup in cells is read as text", "| A | B |\n|---|---|\n| **bold** `code` | a \\| pipe &amp; more |\n",
			80, []string{"bold code  a | pipe & more"}, []string{"**", "&amp;"}},
		{"a table in a code fence stays code", "```\n| A | B |\n|---|---|\n| x | y |\n```\n",
			80, []string{"| A | B |"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Render(tt.md, tt.width, false, true)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(out, "\n") {
				if ansi.StringWidth(line) > tt.width {
					t.Errorf("line wider than %d: %q", tt.width, line)
				}
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
