package main

import (
	"context"
	"strings"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"
)

// levelSeparator joins the levels of a multi-row header into one key.
const levelSeparator = " / "

// mergedRange is one merged range of a sheet, 1-based and inclusive.
type mergedRange struct{ r1, c1, r2, c2 int }

// sheetMerges reads a sheet's merged ranges, which follow its cell data.
func sheetMerges(ctx context.Context, w *workbook.Workbook, sh *workbook.Sheet) ([]mergedRange, error) {
	refs, err := w.MergedRanges(ctx, sh)
	var out []mergedRange
	for _, ref := range refs {
		a, b, ok := strings.Cut(ref, ":")
		if !ok {
			continue
		}
		r1, c1, ok1 := workbook.ParseRef(a)
		r2, c2, ok2 := workbook.ParseRef(b)
		if ok1 && ok2 {
			out = append(out, mergedRange{min(r1, r2), min(c1, c2), max(r1, r2), max(c1, c2)})
		}
	}
	return out, err
}

// header gathers a header that may span rows, for records and describe.
// The rule: the header starts at its first row (the first holding a
// value, or header-row). A row whose only value is a label merged across
// columns is a title above the header, not part of it. The header reaches
// down to the last row of the ranges merged from its first row, and one
// row further when its first row has a label merged across columns and
// none down, if that row holds text under each such label (its
// sub-labels). In each header row a merged range's label stands in every
// column it covers; a column's key is its rows' labels joined with " / ",
// a label repeated down the column (merged across rows) once.
//
// The merged ranges follow the cell data in the file, so reading them
// costs a second pass over the sheet's bytes; it is paid only when the
// header looks merged: a gap between its labels, a single label, or data
// wider than it.
type header struct {
	load     func() ([]mergedRange, error)
	explicit bool // header-row was given: no row before it is a title

	merges  []mergedRange
	loaded  bool
	first   int // the header's first row, 0 until begun
	last    int
	guessed bool // last is the row under labels merged across, if it holds sub-labels
	decided bool // last is known
	done    bool
	rows    [][]workbook.Value // the header rows, from first
}

// begin makes r the header's first row.
func (h *header) begin(r workbook.Row) {
	h.first, h.last = r.Num, r.Num
	h.rows = nil
	h.add(r)
}

// next offers the row after the header's rows so far: true when it
// belongs to the header, false when it is data (the header is then done).
func (h *header) next(r workbook.Row) (bool, error) {
	if h.done {
		return false, nil
	}
	if !h.decided {
		if err := h.decide(&r); err != nil {
			return false, err
		}
		if h.first == r.Num {
			// The first row was a title: r begins the header.
			return true, nil
		}
	}
	if r.Num <= h.last && h.takes(r) {
		h.add(r)
		if r.Num == h.last {
			h.done = true
		}
		return true, nil
	}
	h.done = true
	return false, nil
}

// finish completes a header that the sheet ended inside of.
func (h *header) finish() error {
	if !h.decided && h.first > 0 {
		if err := h.decide(nil); err != nil {
			return err
		}
	}
	h.done = true
	return nil
}

// decide reads the merged ranges when the header looks merged, drops a
// title row (making r, the row after it, the header's first) and finds
// where the header ends.
func (h *header) decide(r *workbook.Row) error {
	h.decided = true
	top := h.rows[0]
	values, gap := 0, false
	for i, c := range top {
		if c.IsEmpty() {
			gap = gap || i < len(top)-1 && values > 0
			continue
		}
		values++
	}
	if gap || values == 1 || r != nil && len(r.Cells) > len(top) {
		if !h.loaded {
			m, err := h.load()
			if err != nil {
				return err
			}
			h.merges, h.loaded = m, true
		}
	}
	if r != nil && !h.explicit && h.titleRow(h.first, top) {
		h.begin(*r)
	}
	h.extent()
	if h.last == h.first {
		h.done = true
	}
	return nil
}

// titleRow reports whether a row's only value is a label merged across
// columns that starts it.
func (h *header) titleRow(row int, cells []workbook.Value) bool {
	n, at := 0, 0
	for i, c := range cells {
		if !c.IsEmpty() {
			n++
			at = i + 1
		}
	}
	if n != 1 {
		return false
	}
	for _, m := range h.merges {
		if m.r1 == row && m.c1 == at && m.c2 > m.c1 && m.r2 == m.r1 {
			return true
		}
	}
	return false
}

// extent finds the header's last row from the ranges merged in its first.
func (h *header) extent() {
	h.last = h.first
	across := false
	for _, m := range h.merges {
		if m.r1 != h.first {
			continue
		}
		h.last = max(h.last, m.r2)
		if m.c2 > m.c1 && m.r2 == m.r1 {
			across = true
		}
	}
	if across && h.last == h.first {
		h.last, h.guessed = h.first+1, true
	}
}

// takes reports whether row r, at or above last, belongs to the header:
// a guessed row does only when it holds text under every label merged
// across columns; otherwise the header ends above it (and last says so).
func (h *header) takes(r workbook.Row) bool {
	if !h.guessed || r.Num != h.last {
		return true
	}
	for _, m := range h.merges {
		if m.r1 != h.first || m.r2 != h.first || m.c2 == m.c1 {
			continue
		}
		for c := m.c1; c <= m.c2; c++ {
			if c > len(r.Cells) || r.Cells[c-1].Kind != workbook.KindString {
				h.last = h.first
				return false
			}
		}
	}
	return true
}

// add keeps a header row's cells.
func (h *header) add(r workbook.Row) {
	for len(h.rows) < r.Num-h.first {
		h.rows = append(h.rows, nil)
	}
	cells := make([]workbook.Value, len(r.Cells))
	for i, c := range r.Cells {
		cells[i] = c.Owned()
	}
	h.rows = append(h.rows, cells)
}

// labels returns one label per column: each header row's value, or the
// value of the merged range covering the cell, levels joined.
func (h *header) labels() []workbook.Value {
	width := 0
	for _, r := range h.rows {
		width = max(width, len(r))
	}
	for _, m := range h.merges {
		if m.r1 <= h.last && m.r2 >= h.first {
			width = max(width, m.c2)
		}
	}
	at := func(row, col int) workbook.Value {
		for _, m := range h.merges {
			if m.r1 <= row && row <= m.r2 && m.c1 <= col && col <= m.c2 {
				row, col = m.r1, m.c1
				break
			}
		}
		if i := row - h.first; i >= 0 && i < len(h.rows) && col-1 < len(h.rows[i]) {
			return h.rows[i][col-1]
		}
		return workbook.Value{}
	}
	out := make([]workbook.Value, width)
	for c := 1; c <= width; c++ {
		var parts []string
		var only workbook.Value
		for row := h.first; row <= h.last; row++ {
			v := at(row, c)
			t := strings.TrimSpace(v.Text())
			if t == "" || len(parts) > 0 && parts[len(parts)-1] == t {
				continue
			}
			parts = append(parts, t)
			only = v
		}
		switch len(parts) {
		case 0:
		case 1:
			out[c-1] = only
		default:
			out[c-1] = workbook.Value{Kind: workbook.KindString, Str: strings.Join(parts, levelSeparator)}
		}
	}
	// Trailing empty labels are no columns.
	for len(out) > 0 && out[len(out)-1].IsEmpty() {
		out = out[:len(out)-1]
	}
	return out
}
