package formula

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"
)

// Book computes formulas of one open workbook. It reads a sheet's cells
// through the workbook's own reader the first time a formula refers to
// them, and keeps them (up to MaxCells) for the rest of the call. A Book
// is not safe for concurrent use.
type Book struct {
	ctx context.Context
	w   *workbook.Workbook
	// MaxCells bounds the cells held for references across all sheets; a
	// formula that needs more is not computed.
	MaxCells int
	// Recalculate computes every formula, ignoring the values cached in
	// the file, as a spreadsheet recalculating on load does (for measuring
	// the engine against another).
	Recalculate bool

	sheets map[string]*sheetData
	held   int
}

// New returns a Book for w. Reads it makes stop when ctx is done.
func New(ctx context.Context, w *workbook.Workbook) *Book {
	return &Book{ctx: ctx, w: w, MaxCells: 4 << 20, sheets: map[string]*sheetData{}}
}

type cellData struct {
	row, col int
	v        workbook.Value
	f        string // formula text without "=", "" when none
}

type sheetData struct {
	name  string
	cells []cellData // sorted by row, then column
	err   error
	memo  map[[2]int]memoEntry
}

type memoEntry struct {
	done bool // false while being computed: a cycle
	v    value
	err  error
}

// rangeRef is an evaluated reference.
type rangeRef struct {
	sh             *sheetData
	r1, c1, r2, c2 int
}

func (r *rangeRef) rows() int { return r.r2 - r.r1 + 1 }
func (r *rangeRef) cols() int { return r.c2 - r.c1 + 1 }

// Compute returns the value of the formula (with or without its "=") in
// cell row, col of the named sheet, or an *Unsupported error saying why
// it cannot be computed; other errors are the workbook's.
func (b *Book) Compute(sheet string, row, col int, text string) (workbook.Value, error) {
	sh, err := b.sheet(sheet)
	if err != nil {
		return workbook.Value{}, err
	}
	key := [2]int{row, col}
	if m, ok := sh.memo[key]; ok && m.done {
		return toCell(m.v), m.err
	}
	v, err := b.evalText(sh, row, col, strings.TrimPrefix(text, "="))
	if err != nil {
		return workbook.Value{}, err
	}
	return toCell(v), nil
}

// sheet loads the named sheet's cells, once.
func (b *Book) sheet(name string) (*sheetData, error) {
	k := strings.ToUpper(name)
	if sh, ok := b.sheets[k]; ok {
		return sh, sh.err
	}
	var ws *workbook.Sheet
	for i := range b.w.Sheets {
		if strings.EqualFold(b.w.Sheets[i].Name, name) {
			ws = &b.w.Sheets[i]
		}
	}
	if ws == nil {
		return nil, nil
	}
	sh := &sheetData{name: ws.Name, memo: map[[2]int]memoEntry{}}
	b.sheets[k] = sh
	_, err := b.w.Stream(b.ctx, ws, &workbook.StreamOptions{Formulas: true, Serials: true}, func(r workbook.Row) error {
		for i := range max(len(r.Cells), len(r.Formulas)) {
			var c cellData
			if i < len(r.Cells) {
				c.v = r.Cells[i]
			}
			if i < len(r.Formulas) {
				c.f = strings.TrimPrefix(r.Formulas[i], "=")
			}
			if c.v.IsEmpty() && c.f == "" {
				continue
			}
			c.row, c.col = r.Num, i+1
			if b.held++; b.held > b.MaxCells {
				return unsupported("refers to sheet %q, and the sheets referred to hold more than %d cells, the most kept for computing", ws.Name, b.MaxCells)
			}
			sh.cells = append(sh.cells, c)
		}
		return nil
	})
	if err != nil {
		sh.err = fmt.Errorf("formula: read sheet %q: %w", ws.Name, err)
		var u *Unsupported
		if errors.As(err, &u) {
			sh.err = u
		}
		sh.cells = nil
	}
	// Rows come in document order; sort for lookups when a writer did not.
	if !sort.SliceIsSorted(sh.cells, func(i, j int) bool { return less(sh.cells[i], sh.cells[j]) }) {
		sort.SliceStable(sh.cells, func(i, j int) bool { return less(sh.cells[i], sh.cells[j]) })
	}
	return sh, sh.err
}

func less(a, b cellData) bool { return a.row < b.row || a.row == b.row && a.col < b.col }

// find returns the index of the first cell at or after (row, col).
func (sh *sheetData) find(row, col int) int {
	return sort.Search(len(sh.cells), func(i int) bool {
		c := sh.cells[i]
		return c.row > row || c.row == row && c.col >= col
	})
}

// cell returns the value of one cell, computing a formula the file holds
// no value for (or every formula, with Recalculate).
func (b *Book) cell(sh *sheetData, row, col int) (value, error) {
	i := sh.find(row, col)
	if i >= len(sh.cells) || sh.cells[i].row != row || sh.cells[i].col != col {
		return value{}, nil
	}
	return b.cellAt(sh, i)
}

func (b *Book) cellAt(sh *sheetData, i int) (value, error) {
	c := sh.cells[i]
	if c.f == "" || !b.Recalculate && !c.v.IsEmpty() {
		return fromCell(c.v)
	}
	return b.evalText(sh, c.row, c.col, c.f)
}

func (b *Book) evalText(sh *sheetData, row, col int, text string) (value, error) {
	key := [2]int{row, col}
	if m, ok := sh.memo[key]; ok {
		if !m.done {
			return value{}, unsupported("is part of a circular reference through %s!%s", sh.name, workbook.CellName(row, col))
		}
		return m.v, m.err
	}
	if err := b.ctx.Err(); err != nil {
		return value{}, err
	}
	sh.memo[key] = memoEntry{}
	v, err := b.evalFormula(sh, row, col, text)
	sh.memo[key] = memoEntry{done: true, v: v, err: err}
	return v, err
}

func (b *Book) evalFormula(sh *sheetData, row, col int, text string) (value, error) {
	n, err := parse(text)
	if err != nil {
		return value{}, err
	}
	e := &evaluator{b: b, sh: sh, row: row, col: col}
	r, err := e.eval(n)
	if err != nil {
		return value{}, err
	}
	v, err := e.single(r)
	if err != nil {
		return value{}, err
	}
	if v.k == vEmpty {
		// A formula showing an empty cell shows 0.
		v = num(0)
	}
	if v.k == vNum && (math.IsNaN(v.n) || math.IsInf(v.n, 0)) {
		v = errNum
	}
	return v, nil
}

// each calls fn for every stored cell of the range, in row order, skipping
// empty ones; its values are computed as cell does.
func (b *Book) each(r *rangeRef, fn func(row, col int, v value) error) error {
	if r.sh == nil {
		return nil
	}
	sh := r.sh
	for i := sh.find(r.r1, r.c1); i < len(sh.cells) && sh.cells[i].row <= r.r2; i++ {
		c := sh.cells[i]
		if c.col < r.c1 {
			i = sh.find(c.row, r.c1) - 1
			continue
		}
		if c.col > r.c2 {
			i = sh.find(c.row+1, r.c1) - 1
			continue
		}
		v, err := b.cellAt(sh, i)
		if err != nil {
			return err
		}
		if err := fn(c.row, c.col, v); err != nil {
			return err
		}
	}
	return nil
}
