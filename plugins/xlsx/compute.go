package main

import (
	"context"
	"errors"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/formula"
	"github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"
)

// cellBytes is what the formula engine holds per cell it keeps for
// references, counted against the call's memory budget.
const cellBytes = 128

// computer computes, for one call, the formulas a workbook stores without
// a cached value: one formula.Book, made at the first such formula, so a
// workbook whose formulas are all cached costs nothing.
type computer struct {
	ctx  context.Context
	w    *workbook.Workbook
	book *formula.Book
}

func newComputer(ctx context.Context, w *workbook.Workbook) *computer {
	return &computer{ctx: ctx, w: w}
}

// forSheet is the workbook.ComputeFunc of the named sheet. A formula the
// engine does not compute gives its reason; so does one whose references
// cannot be read (a corrupt sheet it refers to). Only a cancelled call
// stops the stream.
func (c *computer) forSheet(sheet string) workbook.ComputeFunc {
	return func(row, col int, text string) (workbook.Value, string, error) {
		if c.book == nil {
			c.book = formula.New(c.ctx, c.w)
			c.book.MaxCells = max(1<<16, int(limits().MaxMemory/cellBytes))
		}
		v, err := c.book.Compute(sheet, row, col, text)
		var u *formula.Unsupported
		switch {
		case err == nil:
			return v, "", nil
		case errors.As(err, &u):
			return workbook.Value{}, u.Reason, nil
		case c.ctx.Err() != nil:
			return workbook.Value{}, "", c.ctx.Err()
		}
		return workbook.Value{}, "cannot be computed: " + err.Error(), nil
	}
}
