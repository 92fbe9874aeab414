package workbook

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unsafe"
)

// Gatherer turns the cells of a format that stores one record a cell, row
// by row (.xls, .xlsb), into Rows: it holds the row being gathered, hands
// it on when a cell of another row comes, and keeps the sheet's extent
// and used range in its Stats. Rows and columns are 0-based.
type Gatherer struct {
	st *Stats
	o  StreamOptions
	fn func(Row) error

	row      int // the row being gathered; -1 before the first
	cells    []Value
	formulas []string
	hasValue bool
	// arenas hold the text of dates and times with Borrow, in turn: one
	// is written, the other reused once the row after next starts. A
	// reader makes a cell's value before Set learns that it starts a new
	// row, so a row's first value lands in the previous row's arena, which
	// must outlive that row too.
	arenas [2][]byte
	cur    int

	minRow, minCol, maxRow, maxCol int
}

// NewGatherer returns a Gatherer that hands each row holding a value to
// fn, as Stream's options o ask, and keeps the extent in st.
func NewGatherer(st *Stats, o StreamOptions, fn func(Row) error) *Gatherer {
	return &Gatherer{st: st, o: o, fn: fn, row: -1, minRow: math.MaxInt, minCol: math.MaxInt, maxRow: -1, maxCol: -1}
}

// Extent widens the sheet's extent to the cell (r, c), which holds no
// value (a formatted blank, a merged range's corner).
func (g *Gatherer) Extent(r, c int) {
	g.st.MaxRow = max(g.st.MaxRow, r+1)
	g.st.MaxColumn = max(g.st.MaxColumn, c+1)
}

// Set puts a value at (r, c), handing on the row before when r starts a
// new one; formula marks a formula cell.
func (g *Gatherer) Set(r, c int, v Value, formula bool) error {
	if r != g.row {
		if err := g.Flush(); err != nil {
			return err
		}
		g.row = r
	}
	g.Extent(r, c)
	if g.o.StatsOnly {
		if !v.IsEmpty() {
			g.data(r, c)
		}
		return nil
	}
	for len(g.cells) <= c {
		g.cells = append(g.cells, Value{})
	}
	g.cells[c] = v
	if formula && g.o.Formulas && g.o.FormulaMarks {
		for len(g.formulas) <= c {
			g.formulas = append(g.formulas, "")
		}
		g.formulas[c] = "="
	}
	if !v.IsEmpty() {
		g.data(r, c)
	}
	return nil
}

// Serial converts a number shown in a date, time or elapsed-time format
// as SerialValue does; with Borrow, the text of a date or time is a view
// of a buffer that the next row reuses.
func (g *Gatherer) Serial(x float64, date1904, elapsed bool) Value {
	if !g.o.Borrow {
		return serialToValue(x, date1904, elapsed)
	}
	a := &g.arenas[g.cur]
	start := len(*a)
	v, b := appendSerial(*a, x, date1904, elapsed)
	*a = b
	if v.Str == "" && len(b) > start {
		v.Str = unsafe.String(&b[start], len(b)-start)
	}
	return v
}

// Formula gives the cell (r, c) of the row being gathered its formula
// text, when Stream was asked for formulas as text (not marks); text may
// be NoFormulaText's.
func (g *Gatherer) Formula(r, c int, text string) {
	if !g.o.Formulas || g.o.FormulaMarks || g.o.StatsOnly || r != g.row {
		return
	}
	for len(g.formulas) <= c {
		g.formulas = append(g.formulas, "")
	}
	g.formulas[c] = text
}

// NoFormulaText is the Row.Formulas entry of a formula cell whose
// formula cannot be given as text (a binary format's token not
// decompiled), with the reason; FormulaReason reads it back.
func NoFormulaText(reason string) string { return noTextMark + reason }

// FormulaReason returns the reason of a NoFormulaText entry, and whether
// f is one.
func FormulaReason(f string) (string, bool) {
	if r, ok := strings.CutPrefix(f, noTextMark); ok {
		return r, true
	}
	return "", false
}

// noTextMark starts a NoFormulaText entry: no formula text starts with a
// NUL.
const noTextMark = "\x00"

// Replace sets the value of a cell already Set in the row being gathered
// (a formula's text result, stored in a record after its cell); a cell of
// another row, or none, is left alone.
func (g *Gatherer) Replace(r, c int, v Value) {
	if r == g.row && c < len(g.cells) {
		g.cells[c] = v
	}
}

func (g *Gatherer) data(r, c int) {
	g.hasValue = true
	g.minRow, g.maxRow = min(g.minRow, r), max(g.maxRow, r)
	g.minCol, g.maxCol = min(g.minCol, c), max(g.maxCol, c)
}

// Flush hands the gathered row on when it holds a value.
func (g *Gatherer) Flush() error {
	if g.row < 0 || !g.hasValue {
		g.reset()
		return nil
	}
	g.st.DataRows++
	cells := g.cells
	for len(cells) > 0 && cells[len(cells)-1].IsEmpty() {
		cells = cells[:len(cells)-1]
	}
	row := Row{Num: g.row + 1, Cells: cells}
	if len(g.formulas) > 0 {
		row.Formulas = g.formulas
	}
	if g.o.StatsOnly {
		row.Cells = nil
	}
	err := g.fn(row)
	g.reset()
	return err
}

func (g *Gatherer) reset() {
	clear(g.cells)
	g.cells = g.cells[:0]
	clear(g.formulas)
	g.formulas = g.formulas[:0]
	g.cur ^= 1
	g.arenas[g.cur] = g.arenas[g.cur][:0]
	g.hasValue = false
}

// UsedRange is the A1 range spanning the cells set with a value, "" when
// none were.
func (g *Gatherer) UsedRange() string {
	if g.maxCol < 0 {
		return ""
	}
	return CellName(g.minRow+1, g.minCol+1) + ":" + CellName(g.maxRow+1, g.maxCol+1)
}

// Finish ends the stream of the sheet named sheet that err ended: a stop
// asked by the caller is no error, a read to the end marks the Stats
// complete, the used range is recorded, and an error that is neither a
// workbook.Error nor a cancellation is named invalid for that sheet.
func (g *Gatherer) Finish(sheet string, err error) error {
	if errors.Is(err, ErrStop) {
		err = nil
	} else if err == nil {
		g.st.Complete = true
	}
	g.st.UsedRange = g.UsedRange()
	if err != nil {
		var we *Error
		if !errors.As(err, &we) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			err = &Error{Kind: Invalid, Msg: fmt.Sprintf("sheet %q cannot be read: %v", sheet, err)}
		}
	}
	return err
}

// errorNames are the error codes of the binary formats (.xls, .xlsb) by
// the names Excel shows.
var errorNames = map[byte]string{
	0x00: "#NULL!", 0x07: "#DIV/0!", 0x0F: "#VALUE!", 0x17: "#REF!",
	0x1D: "#NAME?", 0x24: "#NUM!", 0x2A: "#N/A", 0x2B: "#GETTING_DATA",
}

// ErrorValue is the error cell of a binary format's error code, by the
// name Excel shows (#ERRn! for a code Excel has no name for).
func ErrorValue(code byte) Value {
	name, ok := errorNames[code]
	if !ok {
		name = "#ERR" + strconv.Itoa(int(code)) + "!"
	}
	return Value{Kind: KindError, Str: name}
}
