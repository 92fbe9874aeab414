package main

import (
	"regexp"
	"strings"

	clitable "github.com/toolhost/toolhost/cli/table"
)

// renderTerminal renders the plugin's own Markdown for a person at a
// terminal (sdk.Plugin.RenderMarkdown): its tables through cli/table,
// fitted to width as every terminal table is; **strong** text and headings
// in bold (plain without colour); the rest as written. The plugin does not
// link cli/markdown's glamour renderer: its syntax highlighter's package
// initialisation and code would be paid by every start of the plugin (the
// statusline, each CLI call) and held in its memory, for the few
// constructs this plugin writes.
func renderTerminal(md string, width int, colour, dumb bool) (string, error) {
	bold := colour && !dumb
	var b strings.Builder
	lines := strings.Split(strings.TrimRight(md, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		if n := tableLines(lines[i:]); n > 0 {
			b.WriteString(fitMarkdownTable(lines[i:i+n], width, bold))
			i += n - 1
			continue
		}
		b.WriteString(inline(lines[i], bold))
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// delimiterRow matches a Markdown table's delimiter row (|---|---:|).
var delimiterRow = regexp.MustCompile(`^\|(\s*:?-+:?\s*\|)+$`)

// tableLines is how many of lines make a table (a header row, a delimiter
// row and the rows up to a line that is not one), or 0.
func tableLines(lines []string) int {
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "|") || !delimiterRow.MatchString(strings.TrimSpace(lines[1])) {
		return 0
	}
	n := 2
	for n < len(lines) && strings.HasPrefix(lines[n], "|") {
		n++
	}
	return n
}

// fitMarkdownTable prints a table's lines as a cli/table width columns wide.
func fitMarkdownTable(lines []string, width int, bold bool) string {
	t := clitable.Table{Width: width}
	for _, a := range cells(lines[1]) {
		al := clitable.AlignLeft
		if strings.HasSuffix(a, ":") && !strings.HasPrefix(a, ":") {
			al = clitable.AlignRight
		}
		t.Align = append(t.Align, al)
	}
	for _, h := range cells(lines[0]) {
		h = inline(h, false)
		if bold && h != "" {
			h = "\x1b[1m" + h + "\x1b[0m"
		}
		t.Header = append(t.Header, h)
	}
	for _, l := range lines[2:] {
		var row []string
		for _, c := range cells(l) {
			row = append(row, inline(c, false))
		}
		t.Rows = append(t.Rows, row)
	}
	return t.String()
}

// cells splits a table row at its unescaped |, unescaping \| in the cells.
func cells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	if strings.HasSuffix(row, "|") && !strings.HasSuffix(row, `\|`) {
		row = row[:len(row)-1]
	}
	var out []string
	var cell strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			cell.WriteByte('|')
			i++
		case row[i] == '|':
			out = append(out, strings.TrimSpace(cell.String()))
			cell.Reset()
		default:
			cell.WriteByte(row[i])
		}
	}
	return append(out, strings.TrimSpace(cell.String()))
}

// inline renders a line of text: a heading's marks and **strong** marks
// become bold (or go, without it).
func inline(s string, bold bool) string {
	if h := strings.TrimLeft(s, "#"); h != s && strings.HasPrefix(h, " ") {
		s = "**" + strings.TrimSpace(h) + "**"
	}
	parts := strings.Split(s, "**")
	if len(parts)%2 == 0 { // an unpaired **: leave the line as written
		return s
	}
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 && bold {
			b.WriteString("\x1b[1m" + p + "\x1b[0m")
			continue
		}
		b.WriteString(p)
	}
	return b.String()
}
