package ptg

import "github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"

// Sheet gives a sheet's formula cells their text as the records arrive, in
// .xls and .xlsb alike: a cell's own tokens, or the shared or array
// formula it points to, whose defining record follows the formula's first
// cell.
type Sheet struct {
	// Names decompiles tokens.
	Names *Names
	// Emit receives a cell's formula text (or workbook.NoFormulaText).
	Emit func(r, c int, text string)
	// Budget bounds the bytes of shared and array formulas kept.
	Budget int

	shared map[[2]int]sharedFormula
	bytes  int
	exp    [2]int
	hasExp bool
}

// sharedFormula is a shared or array formula's tokens and their data.
type sharedFormula struct {
	rgce, extra []byte
	array       bool
}

// NotKept is the formula entry of a cell whose shared or array formula's
// definition is not at hand.
var NotKept = workbook.NoFormulaText("it is part of a shared or array formula whose definition was not found, or not kept (the sheet's shared formulas pass the memory kept for them)")

// NoText gives cell (r, c) no text, for reason.
func (s *Sheet) NoText(r, c int, reason string) {
	s.hasExp = false
	s.Emit(r, c, workbook.NoFormulaText(reason))
}

// Skip forgets a first cell awaiting its definition: the record read is
// not its definition.
func (s *Sheet) Skip() { s.hasExp = false }

// Cell gives cell (r, c) the text of its own tokens.
func (s *Sheet) Cell(r, c int, rgce, extra []byte) {
	s.hasExp = false
	s.text(r, c, rgce, extra)
}

// Points gives cell (r, c) the text of the shared or array formula whose
// first cell is at; when (r, c) is that first cell and the definition has
// not come yet, the next Define for it gives the text.
func (s *Sheet) Points(r, c int, at [2]int) {
	s.hasExp = false
	sf, ok := s.shared[at]
	switch {
	case ok && sf.array && at != [2]int{r, c}:
		// A cell of an array formula's result: as in .xlsx, only its
		// first cell holds the formula.
	case ok:
		s.text(r, c, sf.rgce, sf.extra)
	case at == [2]int{r, c}:
		s.exp, s.hasExp = at, true
	default:
		s.Emit(r, c, NotKept)
	}
}

// Define keeps a shared (or, when array, an array) formula whose first cell
// is at, and gives that cell its text when it was just read.
func (s *Sheet) Define(at [2]int, rgce, extra []byte, array bool) {
	if s.shared == nil {
		s.shared = map[[2]int]sharedFormula{}
	}
	if s.bytes += len(rgce) + len(extra); s.bytes > s.Budget {
		// A sheet of more shared formulas than any real one: the cells
		// of the ones past the budget get no text, with the reason.
		if s.hasExp && s.exp == at {
			s.Emit(at[0], at[1], NotKept)
		}
		s.hasExp = false
		return
	}
	s.shared[at] = sharedFormula{rgce: append([]byte(nil), rgce...), extra: append([]byte(nil), extra...), array: array}
	if s.hasExp && s.exp == at {
		s.text(at[0], at[1], rgce, extra)
		s.hasExp = false
	}
}

func (s *Sheet) text(r, c int, rgce, extra []byte) {
	text, err := s.Names.Decompile(rgce, extra, r, c)
	if err != nil {
		text = workbook.NoFormulaText(err.Error())
	}
	s.Emit(r, c, text)
}
