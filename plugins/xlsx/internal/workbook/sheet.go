package workbook

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"
	"unsafe"
)

// MaxColumns and MaxRows are Excel's grid; references beyond are refused.
const (
	MaxColumns = 16384
	MaxRows    = 1048576
)

// ErrStop, returned by a row callback, ends a Stream early without error.
var ErrStop = errors.New("workbook: stop")

// errSheetDataEnd ends a value stream at </sheetData>.
var errSheetDataEnd = errors.New("workbook: end of sheet data")

// Row is one row that holds at least one value. Cells[i] is column i+1;
// trailing empty cells are trimmed, so the last cell is never empty.
type Row struct {
	// Num is the 1-based sheet row number.
	Num int
	// Cells are the row's values from column A. The slice is reused by the
	// next row: copy what you keep.
	Cells []Value
	// Formulas, when StreamOptions.Formulas asks for them, holds each
	// formula cell's formula ("=SUM(A1:A3)") at its column's index, ""
	// elsewhere; it may be longer than Cells, whose cell is then empty (a
	// formula without a cached value). Reused like Cells.
	Formulas []string
	// Computed, with StreamOptions.Compute, says for each formula cell
	// that holds no cached value whether its value in Cells was computed,
	// or why not; the zero Computation elsewhere. Reused like Cells.
	Computed []Computation
}

// Computation is what computing a formula without a cached value gave:
// Done, its value in the row's Cells, or the Reason it was not computed.
type Computation struct {
	Done   bool
	Reason string
}

// ComputeFunc computes the formula (with its "=") of the cell at row, col
// that holds no cached value: its value, or the reason it cannot be
// computed. An error stops the stream (a cancelled call).
type ComputeFunc func(row, col int, formula string) (v Value, reason string, err error)

// Stats describes a sheet's extent, as far as it was read.
type Stats struct {
	// MaxRow and MaxColumn are openpyxl's max_row and max_column: the
	// extent of every cell element the sheet stores (values or only
	// formatting) and of its merged ranges; 1 and 1 for an empty sheet.
	MaxRow, MaxColumn int
	// Dimension is the sheet's own <dimension ref> claim, as written ("" when
	// absent). It is reported, never trusted.
	Dimension string
	// UsedRange is the A1 range spanning the cells that hold values, "" when
	// none do.
	UsedRange string
	// DataRows is the number of rows holding at least one value.
	DataRows int
	// MergedRanges counts the <mergeCell> elements. Only a StatsOnly
	// stream reads them (and the extent they add to MaxRow and MaxColumn):
	// a value stream ends with the cell data.
	MergedRanges int
	// Complete is false when the stream stopped before the end of the sheet.
	Complete bool
	// UncachedFormulas counts the formula cells read that hold no cached
	// value and were not computed (and so read as empty).
	UncachedFormulas int
	// ComputedFormulas counts the formula cells without a cached value
	// whose value StreamOptions.Compute computed.
	ComputedFormulas int
}

// StreamOptions tune Stream.
type StreamOptions struct {
	// StatsOnly skips building values (the callback gets rows whose Cells
	// are nil); it still finds the used range.
	StatsOnly bool
	// Formulas asks for each formula cell's formula in Row.Formulas; a
	// formula without a cached value then makes its row a row.
	Formulas bool
	// FormulaMarks, with Formulas, puts "=" in Row.Formulas for each
	// formula cell instead of its text, for a caller that only counts
	// formulas: no text is copied and no shared formula translated.
	FormulaMarks bool
	// Borrow lets the text of string and error cells written in the sheet
	// itself (not shared strings), and of the binary formats' dates and
	// times, point into a buffer that the next row reuses, sparing an
	// allocation per cell: use Value.Owned for what is kept beyond the
	// callback.
	Borrow bool
	// Dimension, when set, is called with the sheet's <dimension ref>
	// claim as soon as it is read, before the first row.
	Dimension func(ref string)
	// Compute, when set, computes each formula that holds no cached
	// value; its value then fills the cell, styled as a cached one would
	// be (a date format makes it a date), and Row.Computed says so.
	Compute ComputeFunc
	// Serials keeps date-formatted numbers as numbers (a formula engine
	// reading its arguments needs the serial, not the date's text).
	Serials bool
	// Merge, with StatsOnly, is called with each merged range's ref
	// ("A1:C2") as it is read, after the cell data.
	Merge func(ref string)
}

// Stream reads a worksheet row by row in document order, calling fn for
// every row that holds a value. Memory depends on the widest row, not on
// the number of rows. Stream returns the sheet's statistics; when fn
// returns ErrStop, Stream stops and returns the statistics so far with a
// nil error.
func (w *Workbook) Stream(ctx context.Context, sh *Sheet, opt *StreamOptions, fn func(Row) error) (Stats, error) {
	st := Stats{MaxRow: 1, MaxColumn: 1}
	if sh.Type == "chartsheet" {
		st.Complete = true
		return st, nil
	}
	if w.backend != nil {
		return w.backend.Stream(ctx, sh, opt, fn)
	}
	if sh.Part == "" {
		return st, invalidf(nil, "sheet %q has no part: its relationship is missing from the workbook's rels", sh.Name)
	}
	var o StreamOptions
	if opt != nil {
		o = *opt
	}
	// The shared strings are loaded at the sheet's first shared-string
	// cell (sheetParser.cell), not here: a sheet that uses none (text
	// written in the cells, numbers only) never pays for the table.
	rc, err := w.openPart(sh.Part)
	if err != nil {
		return st, err
	}
	// Inflated in this goroutine, not one ahead of the parser: the
	// hand-off between the two (scheduler wake-ups and one more copy) cost
	// more CPU than it saved in wall time, and the goal is CPU.
	defer rc.Close()
	st, err = w.streamFrom(ctx, rc, sh.Part, nil, o, fn)
	if err == nil && o.StatsOnly && st.Complete {
		w.extendByComments(sh.Part, &st)
	}
	return st, err
}

// extendByComments grows a sheet's extent to its comments' cells, which
// openpyxl creates to hold them. A comments part that cannot be read adds
// nothing: the cells are what matter.
func (w *Workbook) extendByComments(part string, st *Stats) {
	rels, _, err := w.relsFor(part)
	if err != nil {
		return
	}
	for _, r := range rels {
		if relType(r) != "comments" || r.Mode == "External" {
			continue
		}
		_ = w.decode(resolve(part, r.Target), func(_ *xml.Decoder, se xml.StartElement) error {
			if se.Name.Local == "comment" {
				for _, a := range se.Attr {
					if a.Name.Local == "ref" {
						st.extend([]byte(a.Value))
					}
				}
			}
			return nil
		})
	}
}

// streamFrom parses worksheet XML from r; a nil sst is the workbook's
// table, loaded at the first shared-string cell.
func (w *Workbook) streamFrom(ctx context.Context, r io.Reader, part string, sst []string, o StreamOptions, fn func(Row) error) (Stats, error) {
	st := Stats{MaxRow: 1, MaxColumn: 1}
	p := sheetParser{w: w, part: part, s: newScanner(r), sst: sst, sstGiven: sst != nil, statsOnly: o.StatsOnly, formulas: o.Formulas && !o.StatsOnly, formulaMarks: o.FormulaMarks, borrow: o.Borrow, compute: o.Compute, serials: o.Serials, fn: fn, st: &st, dimension: o.Dimension, merge: o.Merge}
	err := p.run(ctx)
	switch {
	case errors.Is(err, ErrStop):
		err = nil
	case errors.Is(err, errSheetDataEnd):
		err = nil
		st.Complete = true
	case err == nil:
		st.Complete = true
	}
	if p.minDataCol > 0 {
		st.UsedRange = CellName(p.minDataRow, p.minDataCol) + ":" + CellName(p.maxDataRow, p.maxDataCol)
	}
	return st, err
}

type sheetParser struct {
	w         *Workbook
	part      string
	s         *scanner
	sst       []string
	sstGiven  bool // sst is the table to use, not the workbook's
	statsOnly bool
	formulas  bool
	// formulaMarks: "=" for a formula, not its text (FormulaMarks)
	formulaMarks bool
	fn           func(Row) error
	st           *Stats
	compute      ComputeFunc
	serials      bool
	rowComputed  []Computation
	dimension    func(ref string)
	merge        func(ref string)

	depth              int
	rowNum, colCounter int
	curRow             int
	cells              []Value
	rowFormulas        []string
	rowHasValue        bool

	minDataRow, maxDataRow, minDataCol, maxDataCol int

	dates *[dateSlots]dateSlot

	// the cell being read
	inCell          bool
	cRow, cCol, cXF int
	cType           cellType
	inV, hasV, inIS bool
	vbuf            []byte
	// val is the cell's value text as cell reads it: vbuf, or on the
	// one-step path a view of the scanner's buffer (valid until its next
	// token), which spares a copy of every value.
	val         []byte
	tb          textBuilder
	hasIS       bool
	inSheetData bool

	// borrow makes str hand out text from arena, reset after each row.
	borrow bool
	arena  []byte

	// the cell's formula: <f> seen, its text, a shared formula's group
	inF, hasF bool
	fbuf      []byte
	fShared   int // si of a shared formula, -1 otherwise
	shared    map[int]sharedFormula
}

// sharedFormula is the master of a shared-formula group: its text and
// cell, from which the group's other cells translate their formulas.
type sharedFormula struct {
	text     string
	row, col int
}

func (p *sheetParser) run(ctx context.Context) error {
	s := p.s
	n, fills := 0, 0
	for {
		k, err := s.next()
		if err != nil {
			if s.err != nil {
				return invalidf(err, "part %s cannot be read (corrupt or truncated data)", p.partName())
			}
			return invalidf(err, "part %s is not well-formed XML", p.partName())
		}
		// The context is asked every 65,536 tokens and every buffer of
		// input: a sheet of long text is few tokens (the one-step path
		// takes a whole cell as one) over many megabytes.
		if n++; n&0xffff == 0 || s.fills != fills {
			fills = s.fills
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		switch k {
		case tokEOF:
			if err := p.flush(); err != nil {
				return err
			}
			if p.depth != 0 {
				return invalidf(nil, "part %s ends before its elements close (%d still open)", p.partName(), p.depth)
			}
			return nil
		case tokStart:
			p.depth++
			if err := p.start(); err != nil {
				return err
			}
		case tokEnd:
			if p.depth == 0 {
				// An end tag that closes no element: not XML (the depth
				// going below zero let a later cell's text pass as inside
				// the root).
				return invalidf(nil, "part %s is not well-formed XML: end tag %q closes no element", p.partName(), "</"+string(s.name)+">")
			}
			p.depth--
			if err := p.end(); err != nil {
				return err
			}
		case tokText:
			if p.depth == 0 && len(bytes.Trim(s.text, " \t\r\n\ufeff")) > 0 { // a byte-order mark is no text
				// Text outside the root element: not XML (openpyxl and
				// Excel refuse the part too).
				return invalidf(nil, "part %s is not well-formed XML: text %q outside its root element", p.partName(), firstText(s.text))
			}
			if p.inV {
				if p.statsOnly {
					// Only whether there is a value matters.
					if len(p.vbuf) == 0 && len(s.text) > 0 {
						p.vbuf = append(p.vbuf, 'x')
					}
				} else {
					p.vbuf = s.appendText(p.vbuf)
				}
			} else if p.inIS {
				p.tb.feed(s, k)
			} else if p.inF && (p.formulas && (!p.formulaMarks || len(p.fbuf) == 0) || p.compute != nil) {
				// (a mark needs only to know the text is not empty; a
				// formula to compute needs all of it)
				p.fbuf = s.appendText(p.fbuf)
			}
		}
	}
}

func (p *sheetParser) partName() string { return p.part }

// firstText is the start of a text for an error message.
func firstText(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 20 {
		return string(b[:20]) + "…"
	}
	return string(b)
}

func (p *sheetParser) start() error {
	s := p.s
	if p.inIS {
		p.tb.feed(s, tokStart)
		return nil
	}
	switch string(s.name) {
	case "dimension":
		p.st.Dimension = string(s.attr("ref"))
		if p.dimension != nil {
			p.dimension(p.st.Dimension)
		}
	case "sheetData":
		p.inSheetData = true
	case "row":
		n := p.rowNum + 1
		if r := s.attr("r"); r != nil {
			var ok bool
			if n, ok = parseRowNum(r); !ok {
				return invalidf(nil, "row number %q is not valid", r)
			}
		}
		// Some writers emit one <row r="N"> element per cell: elements
		// repeating the row being read add to it (as openpyxl merges
		// them), so the row is handed on only when another one starts.
		if n != p.curRow {
			if err := p.flush(); err != nil {
				return err
			}
		}
		p.rowNum = n
		p.colCounter = 0
		p.curRow = p.rowNum
	case "c":
		p.inCell = true
		p.hasV, p.hasIS, p.hasF = false, false, false
		p.vbuf = p.vbuf[:0]
		p.cType = typeOf(s.attr("t"))
		p.cXF = -1
		if x := s.attr("s"); x != nil {
			if n, err := strconv.Atoi(strings.TrimSpace(string(x))); err == nil {
				p.cXF = n
			}
		}
		if ref := s.attr("r"); len(ref) > 0 {
			row, col, ok := parseRef(ref)
			if !ok {
				return invalidf(nil, "cell reference %q is not valid", ref)
			}
			p.colCounter = col
			p.cRow, p.cCol = row, col
		} else {
			p.colCounter++
			if p.colCounter > MaxColumns {
				return invalidf(nil, "row %d has more than %d cells", p.rowNum, MaxColumns)
			}
			p.cRow, p.cCol = p.rowNum, p.colCounter
		}
		if p.cRow == 0 {
			// A cell outside any <row> without a reference.
			p.cRow = max(p.rowNum, 1)
		}
		if p.cRow != p.curRow {
			if err := p.flush(); err != nil {
				return err
			}
			p.curRow = p.cRow
		}
		p.st.MaxRow = max(p.st.MaxRow, p.cRow)
		p.st.MaxColumn = max(p.st.MaxColumn, p.cCol)
		if p.w.tokensOnly {
			break
		}
		// Without formulas asked for, a formula element before the value
		// is only a mark (hasF): the one-step path steps over it.
		if v, hadF, ok := s.cellValueFast(!p.formulas && p.compute == nil); ok {
			// [<f>…</f>]<v>…</v></c> consumed: the cell is complete.
			p.depth--
			p.inCell, p.hasV, p.hasF = false, true, hadF
			p.val = v
			return p.cell()
		}
	case "v":
		if p.inCell {
			p.inV, p.hasV = true, true
			p.vbuf = p.vbuf[:0]
		}
	case "f":
		if p.inCell {
			p.inF, p.hasF = true, true
			p.fbuf = p.fbuf[:0]
			p.fShared = -1
			if string(s.attr("t")) == "shared" {
				if si, ok := parseIndex(s.attr("si")); ok {
					p.fShared = si
				}
			}
		}
	case "is":
		if p.inCell {
			p.inIS, p.hasIS = true, true
			p.tb.reset()
		}
	case "mergeCell":
		p.st.MergedRanges++
		p.st.extend(s.attr("ref"))
		if p.merge != nil {
			p.merge(string(s.attr("ref")))
		}
	case "hyperlink":
		// openpyxl makes a cell for every cell a hyperlink covers.
		p.st.extend(s.attr("ref"))
	}
	return nil
}

func (p *sheetParser) end() error {
	s := p.s
	if p.inIS {
		if string(s.name) == "is" {
			p.inIS = false
			return nil
		}
		p.tb.feed(s, tokEnd)
		return nil
	}
	switch string(s.name) {
	case "v":
		p.inV = false
	case "f":
		p.inF = false
	case "c":
		if p.inCell {
			p.inCell = false
			p.val = p.vbuf
			return p.cell()
		}
	case "sheetData":
		p.inSheetData = false
		if err := p.flush(); err != nil {
			return err
		}
		if !p.statsOnly {
			// Every value has been read; what follows (merged ranges,
			// page setup) only matters to the statistics.
			return errSheetDataEnd
		}
	}
	return nil
}

// extend grows MaxRow and MaxColumn to the last cell of an A1 range or
// cell reference (of a merged range, a hyperlink or a comment), as openpyxl
// creates those cells.
func (st *Stats) extend(ref []byte) {
	if ref == nil {
		return
	}
	_, last, _ := strings.Cut(string(ref), ":")
	if last == "" {
		last = string(ref)
	}
	if row, col, ok := parseRef([]byte(strings.TrimSpace(last))); ok {
		st.MaxRow = max(st.MaxRow, row)
		st.MaxColumn = max(st.MaxColumn, col)
	}
}

// cell finishes the cell just read, as openpyxl's WorksheetReader.parse_cell.
func (p *sheetParser) cell() error {
	var v Value
	switch {
	case p.cType == typeInline:
		if p.hasIS {
			v = Value{Kind: KindString}
			if !p.statsOnly {
				v.Str = p.tb.string()
			}
		}
	case !p.hasV || len(p.val) == 0:
		// No value: an empty cell, or a formula without a cached result.
	case p.statsOnly:
		v = Value{Kind: KindString}
	case p.cType == typeShared:
		i, ok := parseIndex(p.val)
		var str string
		if ok {
			var err error
			if str, ok, err = p.sharedString(i); err != nil {
				return err
			}
		}
		if !ok {
			n, err := p.sharedStringCount()
			if err != nil {
				return err
			}
			return invalidf(nil, "cell %s of %s refers to shared string %q, but the shared-string table holds %d strings (indexes 0 to %d)",
				CellName(p.cRow, p.cCol), p.part, bytes.TrimSpace(p.val), n, n-1)
		}
		v = Value{Kind: KindString, Str: str}
	default:
		v = p.value()
	}
	formula := ""
	var comp Computation
	if p.hasF {
		switch {
		case p.formulas:
			formula = p.formulaText()
		case p.compute != nil && v.Kind == KindEmpty:
			formula = p.formulaSource()
		}
		if p.compute != nil && (p.formulaMarks || !p.formulas) {
			p.noteShared()
		}
		if v.Kind == KindEmpty && p.compute != nil && !p.statsOnly {
			text := formula
			if p.formulaMarks || !p.formulas {
				text = p.formulaSource()
			}
			if text != "" {
				cv, reason, err := p.compute(p.cRow, p.cCol, text)
				if err != nil {
					return err
				}
				if reason == "" {
					v, comp = p.styled(cv), Computation{Done: true}
					p.st.ComputedFormulas++
				} else {
					comp.Reason = reason
				}
			}
		}
		if v.Kind == KindEmpty {
			p.st.UncachedFormulas++
		}
		if !p.formulas {
			formula = ""
		}
	}
	if comp.Done || comp.Reason != "" && formula != "" {
		for len(p.rowComputed) < p.cCol {
			p.rowComputed = append(p.rowComputed, Computation{})
		}
		p.rowComputed[p.cCol-1] = comp
	}
	if v.Kind == KindEmpty && formula == "" {
		return nil
	}
	p.rowHasValue = true
	if p.minDataCol == 0 {
		p.minDataRow, p.minDataCol = p.cRow, p.cCol
	}
	p.minDataRow = min(p.minDataRow, p.cRow)
	p.minDataCol = min(p.minDataCol, p.cCol)
	p.maxDataRow = max(p.maxDataRow, p.cRow)
	p.maxDataCol = max(p.maxDataCol, p.cCol)
	if p.statsOnly {
		return nil
	}
	if formula != "" {
		for len(p.rowFormulas) < p.cCol {
			p.rowFormulas = append(p.rowFormulas, "")
		}
		p.rowFormulas[p.cCol-1] = formula
		if v.Kind == KindEmpty {
			return nil
		}
	}
	for len(p.cells) < p.cCol {
		p.cells = append(p.cells, Value{})
	}
	p.cells[p.cCol-1] = v
	return nil
}

// formulaSource is formulaText, whatever FormulaMarks asks.
func (p *sheetParser) formulaSource() string {
	marks := p.formulaMarks
	p.formulaMarks = false
	defer func() { p.formulaMarks = marks }()
	return p.formulaText()
}

// noteShared records the master of a shared-formula group without
// translating anything, for the group's later cells to compute from.
func (p *sheetParser) noteShared() {
	if p.fShared >= 0 && len(p.fbuf) > 0 {
		if p.shared == nil {
			p.shared = map[int]sharedFormula{}
		}
		p.shared[p.fShared] = sharedFormula{text: string(p.fbuf), row: p.cRow, col: p.cCol}
	}
}

// formulaText returns the cell's formula with its "=": its own text, or
// for a cell of a shared-formula group, the master's translated by the
// cell's offset from it, as openpyxl's Translator does.
func (p *sheetParser) formulaText() string {
	if p.formulaMarks {
		return p.formulaMark()
	}
	text := string(p.fbuf)
	if p.fShared >= 0 {
		if text != "" {
			if p.shared == nil {
				p.shared = map[int]sharedFormula{}
			}
			p.shared[p.fShared] = sharedFormula{text: text, row: p.cRow, col: p.cCol}
		} else if m, ok := p.shared[p.fShared]; ok {
			text = TranslateFormula(m.text, p.cRow-m.row, p.cCol-m.col)
		}
	}
	if text == "" {
		return ""
	}
	return "=" + text
}

// sharedString is shared string i: from the table the parser was given,
// else from the workbook's, read as far as i.
func (p *sheetParser) sharedString(i int) (string, bool, error) {
	if p.sstGiven {
		if i < len(p.sst) {
			return p.sst[i], true, nil
		}
		return "", false, nil
	}
	return p.w.sharedString(i)
}

// sharedStringCount is the number of shared strings in the whole table.
func (p *sheetParser) sharedStringCount() (int, error) {
	if p.sstGiven {
		return len(p.sst), nil
	}
	return p.w.sharedStringCount()
}

// formulaMark is "=" when formulaText would return a formula, else "":
// the same shared-formula groups are recorded, without their text.
func (p *sheetParser) formulaMark() string {
	switch {
	case p.fShared < 0:
		if len(p.fbuf) == 0 {
			return ""
		}
	case len(p.fbuf) > 0:
		if p.shared == nil {
			p.shared = map[int]sharedFormula{}
		}
		p.shared[p.fShared] = sharedFormula{row: p.cRow, col: p.cCol}
	default:
		if _, ok := p.shared[p.fShared]; !ok {
			return ""
		}
	}
	return "="
}

const dateSlots = 8192

type dateSlot struct {
	used, elapsed bool
	serial        int64
	v             Value
}

// cellType is a cell's t attribute, classified once per cell.
type cellType uint8

// The cell types of ECMA-376 (18.18.11), and any other.
const (
	typeNumber        cellType = iota // n, or no t
	typeShared                        // s
	typeBool                          // b
	typeError                         // e
	typeFormulaString                 // str
	typeISODate                       // d
	typeInline                        // inlineStr
	typeOther
)

func typeOf(t []byte) cellType {
	switch len(t) {
	case 0:
		return typeNumber
	case 1:
		switch t[0] {
		case 'n':
			return typeNumber
		case 's':
			return typeShared
		case 'b':
			return typeBool
		case 'e':
			return typeError
		case 'd':
			return typeISODate
		}
	case 3:
		if string(t) == "str" {
			return typeFormulaString
		}
	case 9:
		if string(t) == "inlineStr" {
			return typeInline
		}
	}
	return typeOther
}

func (p *sheetParser) value() Value {
	raw := p.val
	switch p.cType {
	case typeNumber:
		v := castNumber(raw)
		if v.Kind == KindString || v.Kind == KindInt && v.Str != "" {
			return v // text, or an integer beyond 64 bits: no date
		}
		if !p.serials && p.cXF >= 0 && p.cXF < len(p.w.styles) && p.w.styles[p.cXF].date {
			f := v.Num
			if v.Kind == KindInt {
				f = float64(v.Int)
			}
			elapsed := p.w.styles[p.cXF].elapsed
			if v.Kind != KindInt {
				return serialToValue(f, p.w.Date1904, elapsed)
			}
			// Columns of whole dates repeat: a direct-mapped cache by
			// serial (neighbouring days land in different slots).
			if p.dates == nil {
				p.dates = new([dateSlots]dateSlot)
			}
			slot := &p.dates[uint64(v.Int)%dateSlots]
			if !slot.used || slot.serial != v.Int || slot.elapsed != elapsed {
				*slot = dateSlot{used: true, serial: v.Int, elapsed: elapsed,
					v: serialToValue(f, p.w.Date1904, elapsed)}
			}
			return slot.v
		}
		return v
	case typeBool:
		b := strings.TrimSpace(string(raw))
		return Value{Kind: KindBool, Bool: b != "0" && !strings.EqualFold(b, "false")}
	case typeError:
		return Value{Kind: KindError, Str: p.str(raw)}
	case typeFormulaString:
		return Value{Kind: KindString, Str: p.str(raw)}
	case typeISODate:
		return isoToValue(strings.TrimSpace(string(raw)))
	default:
		return Value{Kind: KindString, Str: p.str(raw)}
	}
}

// styled gives a computed number the cell's date format, as value gives
// a cached one.
func (p *sheetParser) styled(v Value) Value {
	if (v.Kind != KindInt && v.Kind != KindFloat) || v.Str != "" || p.serials {
		return v
	}
	if p.cXF >= 0 && p.cXF < len(p.w.styles) && p.w.styles[p.cXF].date {
		return serialToValue(v.Float64(), p.w.Date1904, p.w.styles[p.cXF].elapsed)
	}
	return v
}

// str returns b as a string: a copy, or with borrow a view of the row's
// arena (an arena that grows leaves the row's earlier strings on the old
// array, which they keep alive).
func (p *sheetParser) str(b []byte) string {
	if !p.borrow || len(b) == 0 {
		return string(b)
	}
	start := len(p.arena)
	p.arena = append(p.arena, b...)
	return unsafe.String(&p.arena[start], len(b))
}

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// fastDecimal reads a plain decimal ("-123.45") of at most 15 digits
// exactly as strconv.ParseFloat would: the digits and the power of ten are
// both exact in a float64, so one division rounds correctly (Clinger's
// fast path). Anything else is left to strconv.
func fastDecimal(b []byte) (float64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	var m uint64
	digits, frac, dot := 0, 0, false
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			m = m*10 + uint64(c-'0')
			digits++
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return 0, false
		}
	}
	if digits == 0 || digits > 15 {
		return 0, false
	}
	f := float64(m) / pow10[frac]
	if neg {
		f = -f
	}
	return f, true
}

// parseIndex reads a non-negative decimal index, spaces around allowed.
func parseIndex(b []byte) (int, bool) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// castNumber is openpyxl's _cast_number: a float when the text has a '.',
// 'e' or 'E', else an int. Text that is no number stays a string.
func castNumber(b []byte) Value {
	t := bytes.TrimSpace(b)
	isFloat := false
	for _, c := range t {
		if c == '.' || c == 'e' || c == 'E' {
			isFloat = true
			break
		}
	}
	if isFloat {
		if f, ok := fastDecimal(t); ok {
			return Value{Kind: KindFloat, Num: f}
		}
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil {
			return Value{Kind: KindString, Str: string(b)}
		}
		return Value{Kind: KindFloat, Num: f}
	}
	if len(t) > 0 && len(t) <= 18 {
		// The common case, an integer that fits, without strconv.
		d := t
		neg := d[0] == '-'
		if neg || d[0] == '+' {
			d = d[1:]
		}
		n, ok := int64(0), len(d) > 0
		for _, c := range d {
			if c < '0' || c > '9' {
				ok = false
				break
			}
			n = n*10 + int64(c-'0')
		}
		if ok {
			if neg {
				n = -n
			}
			return Value{Kind: KindInt, Int: n}
		}
	}
	i, err := strconv.ParseInt(string(t), 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(string(t), 64)
		if ferr != nil {
			return Value{Kind: KindString, Str: string(b)}
		}
		if errors.Is(err, strconv.ErrRange) {
			// An integer beyond 64 bits: its digits as written (openpyxl
			// reads a Python int), its magnitude in Num.
			return Value{Kind: KindInt, Num: f, Str: strings.TrimPrefix(string(t), "+")}
		}
		return Value{Kind: KindFloat, Num: f}
	}
	return Value{Kind: KindInt, Int: i}
}

func (p *sheetParser) flush() error {
	if !p.rowHasValue {
		p.cells = p.cells[:0]
		p.rowFormulas = p.rowFormulas[:0]
		p.rowComputed = p.rowComputed[:0]
		return nil
	}
	p.rowHasValue = false
	p.st.DataRows++
	var err error
	if p.statsOnly {
		err = p.fn(Row{Num: p.curRow})
	} else {
		err = p.fn(Row{Num: p.curRow, Cells: p.cells, Formulas: p.rowFormulas, Computed: p.rowComputed})
	}
	clear(p.rowComputed)
	p.rowComputed = p.rowComputed[:0]
	clear(p.cells)
	p.cells = p.cells[:0]
	clear(p.rowFormulas)
	p.rowFormulas = p.rowFormulas[:0]
	p.arena = p.arena[:0]
	return err
}

func parseRowNum(b []byte) (int, bool) {
	s := strings.TrimSpace(string(b))
	n, err := strconv.Atoi(s)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || f != float64(int(f)) {
			return 0, false
		}
		n = int(f)
	}
	return n, n >= 1 && n <= MaxRows
}

// parseRef parses an A1 reference ("$B$12" too) into row and column.
func parseRef(b []byte) (row, col int, ok bool) {
	i := 0
	if i < len(b) && b[i] == '$' {
		i++
	}
	for ; i < len(b); i++ {
		c := b[i] | 0x20
		if c < 'a' || c > 'z' {
			break
		}
		col = col*26 + int(c-'a'+1)
		if col > MaxColumns {
			return 0, 0, false
		}
	}
	if col == 0 {
		return 0, 0, false
	}
	if i < len(b) && b[i] == '$' {
		i++
	}
	if i == len(b) {
		return 0, 0, false
	}
	for ; i < len(b); i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, 0, false
		}
		row = row*10 + int(c-'0')
		if row > MaxRows {
			return 0, 0, false
		}
	}
	return row, col, row >= 1
}

// ParseRef parses an A1 cell reference such as "B12" or "$B$12".
func ParseRef(s string) (row, col int, ok bool) { return parseRef([]byte(s)) }

// ColumnName returns the letters of a 1-based column: 1 → A, 28 → AB.
func ColumnName(col int) string {
	var b []byte
	for col > 0 {
		col--
		b = append([]byte{byte('A' + col%26)}, b...)
		col /= 26
	}
	return string(b)
}

// CellName returns the A1 name of a cell.
func CellName(row, col int) string { return ColumnName(col) + strconv.Itoa(row) }
