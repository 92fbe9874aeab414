package main

import (
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/plugins/usage/internal/report"
)

// TestMarkdownTablesEscapeLogText: a model name from a log holding a | or
// a line break stays inside its table cell; the report reaches notes
// (spend-review records it), so a break would write lines of its own.
func TestMarkdownTablesEscapeLogText(t *testing.T) {
	evil := "claude-x | $0 |\n# Injected heading\r\n- [ ] injected"
	w := &window{Label: "last_7_days", Timezone: "UTC", loc: time.UTC}
	s := &report.Savings{CostUSD: 1, Turns: 2, EditTurns: 1,
		Findings: []report.Finding{{Title: evil, ImpactUSD: 1, Detail: evil}},
		OneShot:  []report.ModelOneShot{{Model: evil, EditTurns: 1, CostUSD: 1}}}
	md := renderSavings(w, s, nil, 0).Markdown
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "# Injected") || strings.HasPrefix(line, "- [ ] injected") {
			t.Errorf("a log's text starts a line of its own: %q\n%s", line, md)
		}
		// The findings table has three cells, the one-shot table five.
		if n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|"); strings.HasPrefix(line, "| claude-x") && n != 4 && n != 6 {
			t.Errorf("a log's | splits a cell (%d cell borders): %q", n, line)
		}
	}
}
