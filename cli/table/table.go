// Package table prints rows of text as a table that fits a terminal.
package table

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Align is where a Table column's text sits in its width.
type Align int

// The column alignments.
const (
	AlignLeft Align = iota
	AlignRight
)

// Table is rows of text cells under a header, printed to fit a terminal
// Width columns wide. Every table the terminal prints goes through it (a
// JSON result's rows, a rendered Markdown table, `host list`), so all of
// them fit the same way: a column as wide as its widest cell when all fit;
// otherwise the text columns wrap at spaces, each at least as wide as its
// longest word, so no name or number is cut; when even that is too wide,
// whole columns are left out, lowest Priority first, and a note under the
// table names them. A cell may hold several lines.
type Table struct {
	Header []string   // nil for a table with no header row
	Rows   [][]string // each at most len(Header) cells (or any number when Header is nil)
	Align  []Align    // per column; missing entries are AlignLeft
	// Priority orders the columns for leaving out: the column with the
	// lowest value goes first. nil keeps the columns left to right (the
	// last goes first); the first column is never left out.
	Priority []int
	Indent   string // printed before every line
	Width    int    // the terminal's width; 0 or less: no limit
	// LeftOut is what the note under the table says after the left-out
	// columns' names (e.g. "--json shows them"); empty: "to fit N columns".
	LeftOut string
	// Stack prints each row as its own block of "HEADER  value" lines,
	// instead of leaving columns out, when the columns do not fit even
	// wrapped: for rows whose every field matters (a result's records).
	Stack bool
	// Whole keeps every column: when they do not fit, the last one's long
	// words break instead (a table of a key and its value).
	Whole bool
}

// tableGap is the space between columns.
const tableGap = 2

// longWord is the widest word a column keeps whole however narrow it
// gets: a name (a model, a tool, an id) is narrower; a longer word is a
// path or a URL, which breaks after a "/" where it must.
const longWord = 30

// Fprint prints t to w.
func (t *Table) Fprint(w io.Writer) error {
	_, err := io.WriteString(w, t.String())
	return err
}

// String is t as printed.
func (t *Table) String() string {
	n := len(t.Header)
	for _, r := range t.Rows {
		n = max(n, len(r))
	}
	if n == 0 {
		return ""
	}
	natural, least := make([]int, n), make([]int, n)
	measure := func(i int, cell string) {
		for _, line := range strings.Split(cell, "\n") {
			natural[i] = max(natural[i], ansi.StringWidth(line))
			for _, word := range strings.Fields(line) {
				least[i] = max(least[i], min(ansi.StringWidth(word), longWord))
			}
		}
	}
	for i, h := range t.Header {
		measure(i, h)
	}
	for _, r := range t.Rows {
		for i, c := range r {
			measure(i, c)
		}
	}
	keep := make([]int, n) // the columns shown, in order
	for i := range keep {
		keep[i] = i
	}
	var avail int
	room := func() int { return t.Width - ansi.StringWidth(t.Indent) - tableGap*(len(keep)-1) }
	if t.Width > 0 {
		if t.Stack && t.Header != nil && len(keep) > 1 && sumOf(least, keep) > room() {
			return t.stacked()
		}
		if last := keep[len(keep)-1]; t.Whole && sumOf(least, keep) > room() {
			least[last] = max(room()-(sumOf(least, keep)-least[last]), 1)
		}
		for len(keep) > 1 && sumOf(least, keep) > room() {
			d := t.dropIndex(keep)
			keep = slices.Delete(keep, d, d+1)
		}
		avail = room()
	}
	widths := fitWidths(natural, least, keep, avail, t.Width > 0)
	if c := keep[0]; len(keep) == 1 && t.Width > 0 && widths[c] > avail {
		widths[c] = max(avail, 1) // one word wider than the terminal: it breaks
	}
	var b strings.Builder
	if t.Header != nil {
		t.writeRow(&b, t.Header, keep, widths)
	}
	for _, r := range t.Rows {
		t.writeRow(&b, r, keep, widths)
	}
	if len(keep) < n {
		var names []string
		for i := range n {
			if !slices.Contains(keep, i) {
				name := fmt.Sprintf("column %d", i+1)
				if i < len(t.Header) && strings.TrimSpace(t.Header[i]) != "" {
					name = strings.Join(strings.Fields(t.Header[i]), " ")
				}
				names = append(names, name)
			}
		}
		why := t.LeftOut
		if why == "" {
			why = fmt.Sprintf("to fit %d columns", t.Width)
		}
		note := fmt.Sprintf("(left out: %s; %s)", strings.Join(names, ", "), why)
		width := 0
		if t.Width > 0 {
			width = max(t.Width-ansi.StringWidth(t.Indent), 1)
		}
		for _, line := range wrapWords(note, width) {
			b.WriteString(t.Indent + line + "\n")
		}
	}
	return b.String()
}

// stacked is t with each row as a block of "HEADER  value" lines (empty
// cells left out), the blocks apart by a blank line.
func (t *Table) stacked() string {
	var b strings.Builder
	for i, r := range t.Rows {
		if i > 0 {
			b.WriteString("\n")
		}
		block := Table{Indent: t.Indent, Width: t.Width, Whole: true}
		for c, v := range r {
			if c < len(t.Header) && v != "" {
				block.Rows = append(block.Rows, []string{t.Header[c], v})
			}
		}
		b.WriteString(block.String())
	}
	return b.String()
}

// dropIndex is the index in keep of the column to leave out next.
func (t *Table) dropIndex(keep []int) int {
	best := len(keep) - 1
	if t.Priority == nil {
		return best
	}
	prio := func(col int) int {
		if col < len(t.Priority) {
			return t.Priority[col]
		}
		return -1 // a column with no priority given goes first
	}
	for k := len(keep) - 1; k >= 1; k-- {
		if prio(keep[k]) < prio(keep[best]) {
			best = k
		}
	}
	if best == 0 {
		best = len(keep) - 1
	}
	return best
}

func sumOf(w []int, cols []int) int {
	s := 0
	for _, c := range cols {
		s += w[c]
	}
	return s
}

// fitWidths is each kept column's width: its natural width when the
// columns fit in avail (or limited is false); otherwise its least width
// plus a share of the room left over, in proportion to how much narrower
// than natural the column would be.
func fitWidths(natural, least, keep []int, avail int, limited bool) map[int]int {
	widths := map[int]int{}
	if !limited || sumOf(natural, keep) <= avail {
		for _, c := range keep {
			widths[c] = natural[c]
		}
		return widths
	}
	spare := avail - sumOf(least, keep)
	want := 0
	for _, c := range keep {
		widths[c] = least[c]
		want += natural[c] - least[c]
	}
	if spare <= 0 || want == 0 {
		return widths
	}
	given := 0
	for _, c := range keep {
		add := spare * (natural[c] - least[c]) / want
		widths[c] += add
		given += add
	}
	for given < spare { // the rounding's remainder, left to right
		progressed := false
		for _, c := range keep {
			if given < spare && widths[c] < natural[c] {
				widths[c]++
				given++
				progressed = true
			}
		}
		if !progressed {
			break
		}
	}
	return widths
}

// writeRow writes one row: each cell wrapped to its column, the row as
// many lines as its tallest cell.
func (t *Table) writeRow(b *strings.Builder, row []string, keep []int, widths map[int]int) {
	cells := make([][]string, len(keep))
	height := 1
	for k, c := range keep {
		text := ""
		if c < len(row) {
			text = row[c]
		}
		cells[k] = wrapWords(text, widths[c])
		height = max(height, len(cells[k]))
	}
	for line := range height {
		var lb strings.Builder
		lb.WriteString(t.Indent)
		for k, c := range keep {
			s := ""
			if line < len(cells[k]) {
				s = cells[k][line]
			}
			pad := widths[c] - ansi.StringWidth(s)
			if k > 0 {
				lb.WriteString(strings.Repeat(" ", tableGap))
			}
			if c < len(t.Align) && t.Align[c] == AlignRight {
				lb.WriteString(strings.Repeat(" ", max(pad, 0)) + s)
			} else {
				lb.WriteString(s + strings.Repeat(" ", max(pad, 0)))
			}
		}
		b.WriteString(strings.TrimRight(lb.String(), " "))
		b.WriteByte('\n')
	}
}

// wrapWords breaks text into lines at most width columns wide, at spaces
// and at the text's own line breaks; a word wider than width (only when
// the terminal is narrower than it) is broken where it must be.
func wrapWords(text string, width int) []string {
	var out []string
	for _, para := range strings.Split(text, "\n") {
		words := strings.Fields(para)
		if len(words) == 0 {
			out = append(out, "")
			continue
		}
		line := ""
		for _, w := range words {
			switch {
			case line == "":
				line = w
			case ansi.StringWidth(line)+1+ansi.StringWidth(w) <= width:
				line += " " + w
			default:
				out = append(out, line)
				line = w
			}
			if width > 0 && ansi.StringWidth(line) > width {
				parts := breakWord(line, width)
				out = append(out, parts[:len(parts)-1]...)
				line = parts[len(parts)-1]
			}
		}
		out = append(out, line)
	}
	return out
}

// breakWord breaks a word wider than width into lines at most width wide,
// after a "/" where one falls in the line, else at the width.
func breakWord(word string, width int) []string {
	var out []string
	for ansi.StringWidth(word) > width {
		head := ansi.Truncate(word, width, "")
		if i := strings.LastIndexByte(head, '/'); i > 0 && i < len(head)-1 {
			head = head[:i+1]
		}
		out = append(out, head)
		word = word[len(head):]
	}
	return append(out, word)
}
