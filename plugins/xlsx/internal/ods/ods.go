// Package ods reads OpenDocument spreadsheets (.ods, .ots), as LibreOffice,
// OpenOffice, Google Sheets and Excel write them, with archive/zip and
// encoding/xml from the standard library. No maintained Go library reads
// .ods as a stream: content.xml holds every sheet, so a sheet is read by
// decoding that part from its start, skipping the tables before it, and
// handing rows on as they end; memory holds one row.
package ods

import (
	"archive/zip"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"
)

// The namespaces of the elements and attributes read.
const (
	nsTable  = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
	nsOffice = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
	nsText   = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
	nsStyle  = "urn:oasis:names:tc:opendocument:xmlns:style:1.0"
	nsCalc   = "urn:org:documentfoundation:names:experimental:calc:xmlns:calcext:1.0"
	nsNumber = "urn:oasis:names:tc:opendocument:xmlns:datastyle:1.0"
)

// A cell style's number format, as far as the values read care.
type fmtKind uint8

const (
	fmtOther fmtKind = iota
	fmtDate
	fmtTime
	fmtElapsed
	fmtBool
)

// Spreadsheet MIME types a package's mimetype part may name.
const (
	mimeODS = "application/vnd.oasis.opendocument.spreadsheet"
	mimeOTS = "application/vnd.oasis.opendocument.spreadsheet-template"
)

type book struct {
	f       *os.File
	content *zip.File
	styles  *zip.File
	sheets  []string
	// cellFmt is each cell style's number format kind (date, time,
	// elapsed time), from content.xml and styles.xml.
	cellFmt map[string]fmtKind
}

// styleReader gathers data styles and the cell styles that use them.
type styleReader struct {
	data   map[string]fmtKind
	parent map[string]string
	uses   map[string]string
	// firstMap is a conditional data style's first style:map target: the
	// first section of the Excel format it was written from (m/d/yy;@ is
	// a date style for values >= 0 mapped from a text style), whose kind
	// is the format's, as LibreOffice and Excel type a format by its
	// first section.
	firstMap map[string]string
	// dataStyle is the data style whose children are being read.
	dataStyle string
}

func newStyleReader() *styleReader {
	return &styleReader{data: map[string]fmtKind{}, parent: map[string]string{}, uses: map[string]string{}, firstMap: map[string]string{}}
}

func (r *styleReader) element(se xml.StartElement) {
	if se.Name.Space == nsNumber && strings.HasSuffix(se.Name.Local, "-style") {
		r.dataStyle, _ = attr(se, nsStyle, "name")
	}
	switch {
	case se.Name.Space == nsStyle && se.Name.Local == "map":
		if _, ok := r.firstMap[r.dataStyle]; r.dataStyle != "" && !ok {
			r.firstMap[r.dataStyle], _ = attr(se, nsStyle, "apply-style-name")
		}
	case se.Name.Space == nsNumber && se.Name.Local == "date-style":
		n, _ := attr(se, nsStyle, "name")
		r.data[n] = fmtDate
	case se.Name.Space == nsNumber && se.Name.Local == "boolean-style":
		n, _ := attr(se, nsStyle, "name")
		r.data[n] = fmtBool
	case se.Name.Space == nsNumber && se.Name.Local == "time-style":
		n, _ := attr(se, nsStyle, "name")
		r.data[n] = fmtTime
		if v, _ := attr(se, nsNumber, "truncate-on-overflow"); v == "false" {
			r.data[n] = fmtElapsed
		}
	case se.Name.Space == nsStyle && se.Name.Local == "style":
		r.dataStyle = ""
		if fam, _ := attr(se, nsStyle, "family"); fam != "table-cell" {
			return
		}
		n, _ := attr(se, nsStyle, "name")
		if ds, ok := attr(se, nsStyle, "data-style-name"); ok {
			r.uses[n] = ds
		}
		if ps, ok := attr(se, nsStyle, "parent-style-name"); ok {
			r.parent[n] = ps
		}
	}
}

// kinds resolves each cell style to its number format kind, through its
// parents.
func (r *styleReader) kinds() map[string]fmtKind {
	out := map[string]fmtKind{}
	names := map[string]bool{}
	for n := range r.uses {
		names[n] = true
	}
	for n := range r.parent {
		names[n] = true
	}
	for n := range names {
		s := n
		for i := 0; i < 16 && s != ""; i++ {
			if ds, ok := r.uses[s]; ok {
				if m, ok := r.firstMap[ds]; ok {
					ds = m
				}
				if k := r.data[ds]; k != fmtOther {
					out[n] = k
				}
				break
			}
			s = r.parent[s]
		}
	}
	return out
}

func invalid(err error, format string, a ...any) *workbook.Error {
	return &workbook.Error{Kind: workbook.Invalid, Msg: fmt.Sprintf(format, a...), Err: err}
}

// Is reports whether the zip package in f is an OpenDocument spreadsheet:
// its mimetype part names one, or it has a content.xml and no OOXML
// workbook.
func Is(f *os.File) bool {
	st, err := f.Stat()
	if err != nil {
		return false
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		return false
	}
	content, ooxml := false, false
	for _, zf := range zr.File {
		switch zf.Name {
		case "mimetype":
			if zf.UncompressedSize64 < 200 {
				if rc, err := zf.Open(); err == nil {
					b, _ := io.ReadAll(io.LimitReader(rc, 200))
					rc.Close()
					m := strings.TrimSpace(string(b))
					return m == mimeODS || m == mimeOTS
				}
			}
		case "content.xml":
			content = true
		case "[Content_Types].xml":
			ooxml = true
		}
	}
	return content && !ooxml
}

// Open reads the structure of the .ods workbook in f, which it takes over:
// the workbook's Close closes it, and so does a failure. lim may be nil.
func Open(f *os.File, lim *workbook.Limits) (*workbook.Workbook, error) {
	b, sheets, err := open(f, lim)
	if err != nil {
		f.Close()
		return nil, err
	}
	return workbook.FromBackend(b, sheets, false), nil
}

func open(f *os.File, lim *workbook.Limits) (*book, []workbook.Sheet, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("ods: stat: %w", err)
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		return nil, nil, invalid(err, "not a zip package, or a truncated one")
	}
	if err := lim.WithDefaults().CheckZip(zr); err != nil {
		return nil, nil, err
	}
	b := &book{f: f}
	for _, zf := range zr.File {
		switch zf.Name {
		case "content.xml":
			b.content = zf
		case "styles.xml":
			b.styles = zf
		case "META-INF/manifest.xml":
			if encrypted(zf) {
				return nil, nil, &workbook.Error{Kind: workbook.Encrypted, Msg: "the spreadsheet is password-protected (its manifest names an encryption algorithm): it cannot be read without its password"}
			}
		}
	}
	if b.content == nil {
		return nil, nil, invalid(nil, "missing part content.xml: not an OpenDocument spreadsheet")
	}
	sheets, err := b.readStructure()
	if err != nil {
		return nil, nil, err
	}
	return b, sheets, nil
}

// encrypted reports whether a manifest marks any part encrypted.
func encrypted(zf *zip.File) bool {
	rc, err := zf.Open()
	if err != nil {
		return false
	}
	defer rc.Close()
	d := xml.NewDecoder(io.LimitReader(rc, 16<<20))
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "encryption-data" {
			return true
		}
	}
}

// Close releases the file.
func (b *book) Close() error { return b.f.Close() }

func (b *book) openContent() (*xml.Decoder, io.Closer, error) {
	rc, err := b.content.Open()
	if err != nil {
		return nil, nil, invalid(err, "part content.xml cannot be read")
	}
	d := xml.NewDecoder(rc)
	d.Strict = true
	// ODF is UTF-8; a declared charset other than that is refused by the
	// decoder rather than guessed.
	return d, rc, nil
}

func attr(se xml.StartElement, space, local string) (string, bool) {
	for _, a := range se.Attr {
		if a.Name.Local == local && a.Name.Space == space {
			return a.Value, true
		}
	}
	return "", false
}

// readStructure reads the table styles (which say a sheet is hidden) and
// the sheets' names and styles, skipping every table's content.
func (b *book) readStructure() ([]workbook.Sheet, error) {
	d, c, err := b.openContent()
	if err != nil {
		return nil, err
	}
	defer c.Close()
	hiddenStyle := map[string]bool{}
	var sheets []workbook.Sheet
	style := ""
	sr := newStyleReader()
	if b.styles != nil {
		if rc, err := b.styles.Open(); err == nil {
			sd := xml.NewDecoder(rc)
			for {
				tok, err := sd.Token()
				if err != nil {
					break
				}
				if se, ok := tok.(xml.StartElement); ok {
					sr.element(se)
				}
			}
			rc.Close()
		}
	}
	defer func() { b.cellFmt = sr.kinds() }()
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, invalid(err, "part content.xml is not well-formed XML")
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		sr.element(se)
		switch {
		case se.Name.Space == nsStyle && se.Name.Local == "style":
			style, _ = attr(se, nsStyle, "name")
		case se.Name.Space == nsStyle && se.Name.Local == "table-properties":
			if v, _ := attr(se, nsTable, "display"); v == "false" {
				hiddenStyle[style] = true
			}
		case se.Name.Space == nsTable && se.Name.Local == "table":
			name, _ := attr(se, nsTable, "name")
			ts, _ := attr(se, nsTable, "style-name")
			state := "visible"
			if hiddenStyle[ts] {
				state = "hidden"
			}
			sheets = append(sheets, workbook.Sheet{Name: name, State: state, Type: "worksheet", Part: "content.xml"})
			b.sheets = append(b.sheets, name)
			if err := d.Skip(); err != nil {
				return nil, invalid(err, "part content.xml is not well-formed XML")
			}
		}
	}
	if len(sheets) == 0 {
		return nil, invalid(nil, "content.xml holds no table: not a spreadsheet (a text document or drawing under a spreadsheet's name?)")
	}
	return sheets, nil
}

// Stream reads one sheet: content.xml from its start, the tables before
// the sheet skipped, its rows handed on as each ends.
func (b *book) Stream(ctx context.Context, sh *workbook.Sheet, opt *workbook.StreamOptions, fn func(workbook.Row) error) (workbook.Stats, error) {
	st := workbook.Stats{MaxRow: 1, MaxColumn: 1}
	var o workbook.StreamOptions
	if opt != nil {
		o = *opt
	}
	index := -1
	for i, n := range b.sheets {
		if n == sh.Name {
			index = i
			break
		}
	}
	if index < 0 {
		return st, invalid(nil, "no sheet %q in the workbook", sh.Name)
	}
	d, c, err := b.openContent()
	if err != nil {
		return st, err
	}
	defer c.Close()
	seen := 0
	for {
		tok, err := d.Token()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return st, invalid(err, "part content.xml is not well-formed XML")
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Space != nsTable || se.Name.Local != "table" {
			continue
		}
		if seen < index {
			seen++
			if err := d.Skip(); err != nil {
				return st, invalid(err, "part content.xml is not well-formed XML")
			}
			continue
		}
		break
	}
	p := sheetReader{d: d, st: &st, o: o, fn: fn, minRow: math.MaxInt, minCol: math.MaxInt, cellFmt: b.cellFmt}
	err = p.run(ctx)
	switch {
	case errors.Is(err, workbook.ErrStop):
		err = nil
	case err == nil:
		st.Complete = true
	}
	if p.maxCol > 0 {
		st.UsedRange = workbook.CellName(p.minRow, p.minCol) + ":" + workbook.CellName(p.maxRow, p.maxCol)
	}
	if err != nil {
		var we *workbook.Error
		if !errors.As(err, &we) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, workbook.ErrStop) {
			err = invalid(err, "sheet %q in content.xml cannot be read", sh.Name)
		}
	}
	return st, err
}

// MergedRanges lists a sheet's merged ranges (cells spanning columns or
// rows), reading the sheet through without handing on its rows.
func (b *book) MergedRanges(ctx context.Context, sh *workbook.Sheet) ([]string, error) {
	return workbook.StreamMerges(ctx, b, sh)
}

// sheetReader turns one <table:table> into rows.
type sheetReader struct {
	d  *xml.Decoder
	st *workbook.Stats
	o  workbook.StreamOptions
	fn func(workbook.Row) error

	row      int // 1-based number of the row being read
	col      int // 0-based column of the next cell
	cells    []workbook.Value
	formulas []string
	has      bool
	n        int

	minRow, minCol, maxRow, maxCol int

	cellFmt map[string]fmtKind
	// colStyle are the columns' default cell styles, as runs.
	colStyle []styleRun
	rowStyle string
}

type styleRun struct {
	until int // the run covers columns below this (0-based)
	style string
}

// styleAt is the default cell style of a 0-based column.
func (p *sheetReader) styleAt(col int) string {
	for _, r := range p.colStyle {
		if col < r.until {
			return r.style
		}
	}
	return ""
}

func (p *sheetReader) run(ctx context.Context) error {
	p.row = 1
	for {
		tok, err := p.d.Token()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		switch t := tok.(type) {
		case xml.EndElement:
			if t.Name.Space == nsTable && t.Name.Local == "table" {
				return nil
			}
		case xml.StartElement:
			if t.Name.Space != nsTable {
				if err := p.d.Skip(); err != nil {
					return err
				}
				continue
			}
			switch t.Name.Local {
			case "table-row":
				p.n++
				if p.n&1023 == 0 {
					if err := ctx.Err(); err != nil {
						return err
					}
				}
				if err := p.readRow(t); err != nil {
					return err
				}
			case "table-header-rows", "table-rows", "table-row-group",
				"table-header-columns", "table-columns", "table-column-group":
				// Containers of rows or columns: read into them.
			case "table-column":
				n := repeat(t, "number-columns-repeated")
				last := 0
				if len(p.colStyle) > 0 {
					last = p.colStyle[len(p.colStyle)-1].until
				}
				st, _ := attr(t, nsTable, "default-cell-style-name")
				p.colStyle = append(p.colStyle, styleRun{until: min(last+n, workbook.MaxColumns+1), style: st})
				if err := p.d.Skip(); err != nil {
					return err
				}
			default:
				// Columns, shapes, named ranges, a nested table's
				// source, … hold no cells of this sheet.
				if err := p.d.Skip(); err != nil {
					return err
				}
			}
		}
	}
}

// repeat reads a number-*-repeated attribute: at least 1.
func repeat(se xml.StartElement, local string) int {
	v, ok := attr(se, nsTable, local)
	if !ok {
		return 1
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// readRow reads one <table:table-row>, emitting it as many times as it is
// repeated when it holds a value; repeated empty rows only move on.
func (p *sheetReader) readRow(se xml.StartElement) error {
	reps := repeat(se, "number-rows-repeated")
	p.rowStyle, _ = attr(se, nsTable, "default-cell-style-name")
	p.col, p.has = 0, false
	clear(p.cells)
	p.cells = p.cells[:0]
	clear(p.formulas)
	p.formulas = p.formulas[:0]
	for {
		tok, err := p.d.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.EndElement:
			if t.Name.Local == "table-row" {
				return p.emit(reps)
			}
		case xml.StartElement:
			if t.Name.Space == nsTable && (t.Name.Local == "table-cell" || t.Name.Local == "covered-table-cell") {
				if err := p.readCell(t); err != nil {
					return err
				}
				continue
			}
			if err := p.d.Skip(); err != nil {
				return err
			}
		}
	}
}

func (p *sheetReader) emit(reps int) error {
	if !p.has {
		p.row = min(p.row+reps, workbook.MaxRows+1)
		return nil
	}
	cells := p.cells
	for len(cells) > 0 && cells[len(cells)-1].IsEmpty() {
		cells = cells[:len(cells)-1]
	}
	first, last := 0, len(cells)-1
	for first < len(cells) && cells[first].IsEmpty() {
		first++
	}
	for i := 0; i < reps && p.row <= workbook.MaxRows; i++ {
		p.st.DataRows++
		p.st.MaxRow = max(p.st.MaxRow, p.row)
		p.st.MaxColumn = max(p.st.MaxColumn, last+1)
		p.minRow, p.maxRow = min(p.minRow, p.row), max(p.maxRow, p.row)
		p.minCol, p.maxCol = min(p.minCol, first+1), max(p.maxCol, last+1)
		r := workbook.Row{Num: p.row, Cells: cells}
		if len(p.formulas) > 0 {
			r.Formulas = p.formulas
		}
		if p.o.StatsOnly {
			r.Cells = nil
		}
		if err := p.fn(r); err != nil {
			return err
		}
		p.row++
	}
	return nil
}

// readCell reads one cell (or covered cell) and puts its value, repeated,
// at the next columns.
func (p *sheetReader) readCell(se xml.StartElement) error {
	reps := repeat(se, "number-columns-repeated")
	var vtype, value, date, tm, boolean, str, formula, calcType, style string
	hasStr := false
	for _, a := range se.Attr {
		switch a.Name.Space {
		case nsOffice:
			switch a.Name.Local {
			case "value-type":
				vtype = a.Value
			case "value":
				value = a.Value
			case "date-value":
				date = a.Value
			case "time-value":
				tm = a.Value
			case "boolean-value":
				boolean = a.Value
			case "string-value":
				str, hasStr = a.Value, true
			}
		case nsTable:
			switch a.Name.Local {
			case "formula":
				formula = a.Value
			case "style-name":
				style = a.Value
			}
		case nsCalc:
			if a.Name.Local == "value-type" {
				calcType = a.Value
			}
		}
	}
	p.merged(se)
	// Excel writes a formula's error result as the number 0 shown as
	// the error's name: the cell's text is needed to tell.
	excelError := formula != "" && vtype == "float" && value == "0"
	text, err := p.cellText((vtype == "string" && !hasStr) || excelError)
	if err != nil {
		return err
	}
	if style == "" {
		style = p.rowStyle
	}
	if style == "" {
		style = p.styleAt(p.col)
	}
	kind := p.cellFmt[style]
	var v workbook.Value
	switch vtype {
	case "float", "percentage", "currency":
		v = number(value)
		if excelError && excelErrors[text] {
			v = workbook.Value{Kind: workbook.KindError, Str: text}
			break
		}
		if kind == fmtBool && v.Kind != workbook.KindString {
			// LibreOffice writes a boolean as a number in a TRUE/FALSE
			// format.
			v = workbook.Value{Kind: workbook.KindBool, Bool: v.Kind != workbook.KindInt || v.Int != 0}
		} else if kind != fmtOther && v.Kind != workbook.KindString {
			// A number in a date or time format shows a date or time,
			// as LibreOffice shows it.
			x, _ := strconv.ParseFloat(strings.TrimSpace(value), 64)
			v = workbook.SerialValue(x, false, kind == fmtElapsed)
		}
	case "date":
		v = dateValue(date)
	case "time":
		v = timeValue(tm, kind)
	case "boolean":
		v = workbook.Value{Kind: workbook.KindBool, Bool: boolean == "true" || boolean == "1"}
	case "string":
		if !hasStr {
			str = text
		}
		v = workbook.Value{Kind: workbook.KindString, Str: str}
		if calcType == "error" {
			v.Kind = workbook.KindError
		}
	}
	if p.col+reps > workbook.MaxColumns {
		if v.IsEmpty() && formula == "" {
			p.col = workbook.MaxColumns
			return nil
		}
		reps = workbook.MaxColumns - p.col
		if reps <= 0 {
			return fmt.Errorf("row %d has cells beyond Excel's %d columns", p.row, workbook.MaxColumns)
		}
	}
	if v.IsEmpty() && formula == "" {
		p.col += reps
		return nil
	}
	for len(p.cells) < p.col+reps {
		p.cells = append(p.cells, workbook.Value{})
	}
	for i := 0; i < reps; i++ {
		p.cells[p.col+i] = v
	}
	if formula != "" && p.o.Formulas {
		for len(p.formulas) < p.col+reps {
			p.formulas = append(p.formulas, "")
		}
		f := "="
		if !p.o.FormulaMarks {
			f = ExcelFormula(formula)
		}
		for i := 0; i < reps; i++ {
			p.formulas[p.col+i] = f
		}
		if v.IsEmpty() {
			p.st.UncachedFormulas += reps
			p.has = true
		}
	} else if formula != "" && v.IsEmpty() {
		p.st.UncachedFormulas += reps
	}
	if !v.IsEmpty() {
		p.has = true
	}
	p.col += reps
	return nil
}

// excelErrors are the error values Excel shows, which it writes in an
// .ods as a formula cell of value 0 whose text is the error's name.
var excelErrors = map[string]bool{
	"#NULL!": true, "#DIV/0!": true, "#VALUE!": true, "#REF!": true,
	"#NAME?": true, "#NUM!": true, "#N/A": true,
}

// merged counts a merged range (a cell spanning more than itself) and
// widens the extent to it.
func (p *sheetReader) merged(se xml.StartElement) {
	if se.Name.Local != "table-cell" {
		return
	}
	cols, rows := repeat(se, "number-columns-spanned"), repeat(se, "number-rows-spanned")
	if cols <= 1 && rows <= 1 {
		return
	}
	p.st.MergedRanges++
	if p.o.Merge != nil && p.row <= workbook.MaxRows && p.col < workbook.MaxColumns {
		p.o.Merge(workbook.CellName(p.row, p.col+1) + ":" + workbook.CellName(min(p.row+rows-1, workbook.MaxRows), min(p.col+cols, workbook.MaxColumns)))
	}
	p.st.MaxRow = max(p.st.MaxRow, min(p.row+rows-1, workbook.MaxRows))
	p.st.MaxColumn = max(p.st.MaxColumn, min(p.col+cols, workbook.MaxColumns))
}

// cellText reads a cell's content to its end: its paragraphs joined by
// line feeds (with text:s spaces, tabs and line breaks) when want, else
// skipped.
func (p *sheetReader) cellText(want bool) (string, error) {
	var b strings.Builder
	paras, depth := 0, 0
	for {
		tok, err := p.d.Token()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if !want {
				if err := p.d.Skip(); err != nil {
					return "", err
				}
				continue
			}
			switch {
			case t.Name.Space == nsText && t.Name.Local == "p" && depth == 0:
				if paras > 0 {
					b.WriteByte('\n')
				}
				paras++
			case t.Name.Space == nsText && t.Name.Local == "s":
				n := 1
				if v, ok := attr(t, nsText, "c"); ok {
					if k, err := strconv.Atoi(v); err == nil && k > 0 {
						n = min(k, 1<<16)
					}
				}
				b.WriteString(strings.Repeat(" ", n))
			case t.Name.Space == nsText && t.Name.Local == "tab":
				b.WriteByte('\t')
			case t.Name.Space == nsText && t.Name.Local == "line-break":
				b.WriteByte('\n')
			case t.Name.Space == nsOffice && t.Name.Local == "annotation",
				t.Name.Space == nsText && (t.Name.Local == "note" || t.Name.Local == "ruby-text"):
				// A comment or a note is not the cell's text.
				if err := p.d.Skip(); err != nil {
					return "", err
				}
				continue
			}
			depth++
		case xml.EndElement:
			if depth == 0 {
				return b.String(), nil
			}
			depth--
		case xml.CharData:
			if want && depth > 0 {
				b.Write(t)
			}
		}
	}
}

// number reads office:value: an integer when it has no fraction (as Excel
// writes whole numbers), else a float.
func number(s string) workbook.Value {
	x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return workbook.Value{Kind: workbook.KindString, Str: s}
	}
	if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
		return workbook.Value{Kind: workbook.KindInt, Int: int64(x)}
	}
	return workbook.Value{Kind: workbook.KindFloat, Num: x}
}

// dateValue reads office:date-value (a date, or a date and time) as the
// ISO-8601 date-time an .xlsx date cell gives, microseconds rounded to the
// millisecond.
func dateValue(s string) workbook.Value {
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05.999999999Z07:00", "2006-01-02", "2006-01-02Z07:00"} {
		t, err := time.Parse(layout, s)
		if err != nil {
			continue
		}
		t = t.Round(time.Millisecond)
		out := t.Format("2006-01-02T15:04:05")
		if us := t.Nanosecond() / 1000; us != 0 {
			out += fmt.Sprintf(".%06d", us)
		}
		return workbook.Value{Kind: workbook.KindDateTime, Str: out}
	}
	return workbook.Value{Kind: workbook.KindString, Str: s}
}

// timeValue reads office:time-value (PT10H10M10S) as .xlsx time cells
// read: in an elapsed format ([HH]:MM:SS) an elapsed time; else a time of
// day under a day and a date and time from a day on, as a serial number in
// a time format; with no format, a time of day or an elapsed time.
func timeValue(s string, kind fmtKind) workbook.Value {
	neg := strings.HasPrefix(s, "-")
	d, ok := isoDuration(strings.TrimPrefix(s, "-"))
	if !ok {
		return workbook.Value{Kind: workbook.KindString, Str: s}
	}
	days := d / 86400
	if neg {
		days = -days
	}
	elapsed := kind == fmtElapsed || (kind == fmtOther && (days < 0 || days >= 1))
	return workbook.SerialValue(days, false, elapsed)
}

// isoDuration reads PnDTnHnMn.nS to seconds.
func isoDuration(s string) (float64, bool) {
	if !strings.HasPrefix(s, "P") {
		return 0, false
	}
	s = s[1:]
	var total float64
	inTime := false
	num := ""
	for _, c := range s {
		switch {
		case c == 'T':
			inTime = true
		case (c >= '0' && c <= '9') || c == '.':
			num += string(c)
		default:
			x, err := strconv.ParseFloat(num, 64)
			if err != nil {
				return 0, false
			}
			num = ""
			switch {
			case c == 'D' && !inTime:
				total += x * 86400
			case c == 'H' && inTime:
				total += x * 3600
			case c == 'M' && inTime:
				total += x * 60
			case c == 'S' && inTime:
				total += x
			default:
				return 0, false
			}
		}
	}
	return total, num == ""
}

// ExcelFormula turns an OpenFormula (of:=SUM([.A1:.A3])) into the text
// Excel shows (=SUM(A1:A3)): the namespace prefix dropped, references
// unbracketed with ! after a sheet name, ; between arguments and the union
// operator ~ as ",", an inline array's rows (|) split by ";", a named
// expression's $$ prefix dropped. Function
// names are kept as OpenFormula writes them (COM.MICROSOFT.T.DIST for
// Excel's T.DIST).
func ExcelFormula(f string) string {
	if i := strings.Index(f, ":="); i >= 0 && i < 8 {
		f = f[i+1:]
	}
	var b strings.Builder
	inStr := false
	for i := 0; i < len(f); i++ {
		c := f[i]
		switch {
		case c == '"':
			inStr = !inStr
			b.WriteByte(c)
		case inStr:
			b.WriteByte(c)
		case c == '[':
			j := strings.IndexByte(f[i:], ']')
			if j < 0 {
				b.WriteString(f[i:])
				return b.String()
			}
			b.WriteString(reference(f[i+1 : i+j]))
			i += j
		case c == ';', c == '~':
			// The argument separator, and the union operator.
			b.WriteByte(',')
		case c == '|':
			// The row separator of an inline array ({1;2|3;4}).
			b.WriteByte(';')
		case c == '$' && i+1 < len(f) && f[i+1] == '$':
			// $$Name: a named expression, written by its name.
			i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// reference turns .A1, .A1:.B2, Sheet1.A1 or $'My sheet'.A1:.B2 into A1
// notation.
func reference(r string) string {
	parts := strings.Split(r, ":")
	for i, p := range parts {
		p = strings.TrimPrefix(p, "$")
		if strings.HasPrefix(p, ".") {
			parts[i] = p[1:]
			continue
		}
		if j := strings.LastIndexByte(p, '.'); j > 0 {
			sheet := p[:j]
			if i > 0 {
				parts[i] = p[j+1:]
				continue
			}
			parts[i] = sheet + "!" + p[j+1:]
			continue
		}
		parts[i] = p
	}
	return html.UnescapeString(strings.Join(parts, ":"))
}
