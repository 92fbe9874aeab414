// Package xlsb reads Excel binary workbooks (.xlsb): a zip package laid out
// as an .xlsx, whose parts (workbook.bin, the sheets, sharedStrings.bin,
// styles.bin) are sequences of BIFF12 records ([MS-XLSB]) instead of XML.
// No maintained Go library reads .xlsb, so the few records that hold
// cells, sheets, strings and number formats are decoded here, with
// archive/zip and encoding/xml (for the relationships) from the standard
// library. A sheet is read record by record from its part and handed on a
// row at a time; memory holds one row and the shared strings.
package xlsb

import (
	"archive/zip"
	"bufio"
	"context"
	"encoding/binary"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"strings"
	"unicode/utf16"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/ptg"
	"github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"
)

// Record types read ([MS-XLSB] 2.3.2).
const (
	recRowHdr         = 0x0000
	recCellBlank      = 0x0001
	recCellRk         = 0x0002
	recCellError      = 0x0003
	recCellBool       = 0x0004
	recCellReal       = 0x0005
	recCellSt         = 0x0006
	recCellIsst       = 0x0007
	recFmlaString     = 0x0008
	recFmlaNum        = 0x0009
	recFmlaBool       = 0x000A
	recFmlaError      = 0x000B
	recSSTItem        = 0x0013
	recFmt            = 0x002C
	recXF             = 0x002F
	recCellRString    = 0x003E
	recBeginSheetData = 0x0091
	recEndSheetData   = 0x0092
	recWsDim          = 0x0094
	recWbProp         = 0x0099
	recBundleSh       = 0x009C
	recMergeCell      = 0x00B0
	recBeginCellXFs   = 0x0269
	recEndCellXFs     = 0x026A
	recName           = 0x0027
	recSupSelf        = 0x0162
	recSupSame        = 0x0163
	recSupAddin       = 0x0166
	recSupBookSrc     = 0x0167
	recExternSheet    = 0x016A
	recArrFmla        = 0x01AA
	recShrFmla        = 0x01AB
)

// maxRecord is the longest record read. The longest Excel writes (a
// shared string of 32,767 characters with its runs and phonetics) is far
// below it; a longer length is a damaged or hostile file.
const maxRecord = 16 << 20

// book is an open .xlsb workbook.
type book struct {
	f        *os.File
	parts    map[string]*zip.File
	sheets   map[string]*zip.File // by sheet name
	sstPart  *zip.File
	date1904 bool
	xfs      []xfInfo
	maxMem   int64

	sst     []string
	sstRead bool
	// names are what formula tokens refer to beyond cells.
	names ptg.Names
}

type xfInfo struct{ date, elapsed bool }

func invalid(format string, a ...any) *workbook.Error {
	return &workbook.Error{Kind: workbook.Invalid, Msg: fmt.Sprintf(format, a...)}
}

// Is reports whether the zip package in f is a binary workbook: its
// package relationships name a workbook part ending in .bin, or, with none
// named, it holds xl/workbook.bin and no xl/workbook.xml.
func Is(f *os.File) bool {
	st, err := f.Stat()
	if err != nil {
		return false
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		return false
	}
	parts := partMap(zr)
	if target := officeDocument(parts); target != "" {
		return strings.HasSuffix(strings.ToLower(target), ".bin")
	}
	return parts["xl/workbook.bin"] != nil && parts["xl/workbook.xml"] == nil
}

// partMap maps each part's name, and its name in lower case, to the part:
// part names are case-insensitive in a package, and writers differ from
// the names their relationships give (xl/SharedStrings.bin).
func partMap(zr *zip.Reader) map[string]*zip.File {
	m := make(map[string]*zip.File, 2*len(zr.File))
	for _, zf := range zr.File {
		name := strings.TrimPrefix(strings.ReplaceAll(zf.Name, `\`, "/"), "/")
		m[name] = zf
		if low := strings.ToLower(name); m[low] == nil {
			m[low] = zf
		}
	}
	return m
}

// part looks a part up by name, or failing that by its name in lower case.
func part(parts map[string]*zip.File, name string) *zip.File {
	if zf := parts[name]; zf != nil {
		return zf
	}
	return parts[strings.ToLower(name)]
}

type relationship struct {
	ID     string `xml:"Id,attr"`
	Type   string `xml:"Type,attr"`
	Target string `xml:"Target,attr"`
}

// rels reads the relationships part of source ("" for the package's).
func rels(parts map[string]*zip.File, source string) ([]relationship, bool) {
	dir, file := path.Split(source)
	zf := parts[dir+"_rels/"+file+".rels"]
	if zf == nil {
		return nil, false
	}
	rc, err := zf.Open()
	if err != nil {
		return nil, false
	}
	defer rc.Close()
	var doc struct {
		Rels []relationship `xml:"Relationship"`
	}
	if err := xml.NewDecoder(io.LimitReader(rc, 16<<20)).Decode(&doc); err != nil {
		return nil, false
	}
	return doc.Rels, true
}

// resolve turns a relationship's target into a part name.
func resolve(source, target string) string {
	if strings.HasPrefix(target, "/") {
		return strings.TrimPrefix(path.Clean(target), "/")
	}
	return strings.TrimPrefix(path.Clean(path.Join(path.Dir(source), target)), "/")
}

func relKind(r relationship) string {
	return r.Type[strings.LastIndexByte(r.Type, '/')+1:]
}

func officeDocument(parts map[string]*zip.File) string {
	rs, _ := rels(parts, "")
	for _, r := range rs {
		if relKind(r) == "officeDocument" {
			return resolve("", r.Target)
		}
	}
	return ""
}

// Open reads the structure of the .xlsb workbook in f, which it takes
// over: the workbook's Close closes it, and so does a failure. lim may be
// nil.
func Open(f *os.File, lim *workbook.Limits) (*workbook.Workbook, error) {
	b, sheets, err := open(f, lim)
	if err != nil {
		f.Close()
		return nil, err
	}
	return workbook.FromBackend(b, sheets, b.date1904), nil
}

func open(f *os.File, lim *workbook.Limits) (*book, []workbook.Sheet, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("xlsb: stat: %w", err)
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		return nil, nil, &workbook.Error{Kind: workbook.Invalid, Msg: "not a zip package, or a truncated one", Err: err}
	}
	l := lim.WithDefaults()
	if err := l.CheckZip(zr); err != nil {
		return nil, nil, err
	}
	b := &book{f: f, parts: partMap(zr), sheets: map[string]*zip.File{}, maxMem: l.MaxMemory, names: ptg.Names{BIFF12: true}}
	wbPart := officeDocument(b.parts)
	if wbPart == "" || part(b.parts, wbPart) == nil {
		wbPart = "xl/workbook.bin"
	}
	if part(b.parts, wbPart) == nil {
		return nil, nil, invalid("missing part %s: not a binary workbook", wbPart)
	}
	wbRels, ok := rels(b.parts, wbPart)
	if !ok {
		dir, file := path.Split(wbPart)
		return nil, nil, invalid("missing or unreadable part %s_rels/%s.rels (the workbook's relationships, which locate its sheets)", dir, file)
	}
	byID := map[string]relationship{}
	stylesPart := ""
	for _, r := range wbRels {
		byID[r.ID] = r
		switch relKind(r) {
		case "styles":
			stylesPart = resolve(wbPart, r.Target)
		case "sharedStrings":
			b.sstPart = part(b.parts, resolve(wbPart, r.Target))
		}
	}
	if zf := part(b.parts, stylesPart); stylesPart != "" && zf != nil {
		if err := b.readStyles(zf); err != nil {
			return nil, nil, err
		}
	}
	sheets, err := b.readWorkbook(part(b.parts, wbPart), wbPart, byID)
	if err != nil {
		return nil, nil, err
	}
	return b, sheets, nil
}

// Close releases the file.
func (b *book) Close() error { return b.f.Close() }

// recordReader reads the BIFF12 records of one part.
type recordReader struct {
	r    *bufio.Reader
	part string
	off  int64
	buf  []byte
}

func openPart(zf *zip.File) (*recordReader, io.Closer, error) {
	rc, err := zf.Open()
	if err != nil {
		return nil, nil, invalid("part %s cannot be read: %v", zf.Name, err)
	}
	return &recordReader{r: bufio.NewReaderSize(rc, 64<<10), part: zf.Name}, rc, nil
}

// varint reads a record's type (at most 2 bytes) or length (at most 4),
// 7 bits a byte, low first, the high bit saying another byte follows.
func (rr *recordReader) varint(most int) (uint32, error) {
	var v uint32
	for i := 0; i < most; i++ {
		c, err := rr.r.ReadByte()
		if err != nil {
			if i > 0 && err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		rr.off++
		v |= uint32(c&0x7F) << (7 * i)
		if c&0x80 == 0 {
			return v, nil
		}
	}
	return 0, fmt.Errorf("a record header at byte %d runs past %d bytes", rr.off, most)
}

// next returns the next record; its body is valid until the next call.
// io.EOF at the end of the part.
func (rr *recordReader) next() (typ uint32, body []byte, err error) {
	at := rr.off
	typ, err = rr.varint(2)
	if err != nil {
		return 0, nil, err
	}
	n, err := rr.varint(4)
	if err != nil {
		return 0, nil, rr.cut(at, err)
	}
	if n > maxRecord {
		return 0, nil, invalid("part %s: the record at byte %d claims %d bytes, more than any workbook record holds: the file is damaged", rr.part, at, n)
	}
	// Grown as the bytes arrive, so a length that lies past the part's
	// end costs no more memory than the part holds.
	rr.buf = rr.buf[:0]
	for need := int(n); need > 0; {
		k := min(need, 64<<10)
		start := len(rr.buf)
		rr.buf = append(rr.buf, make([]byte, k)...)
		if _, err := io.ReadFull(rr.r, rr.buf[start:]); err != nil {
			return 0, nil, rr.cut(at, err)
		}
		need -= k
	}
	rr.off += int64(n)
	return typ, rr.buf, nil
}

func (rr *recordReader) cut(at int64, err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return invalid("part %s is cut off inside the record at byte %d", rr.part, at)
	}
	return invalid("part %s cannot be read: %v", rr.part, err)
}

func u32(b []byte, i int) uint32 { return binary.LittleEndian.Uint32(b[i:]) }

// wideString reads an XLWideString at b[i:]: a 32-bit count of UTF-16
// code units and the units. ok is false when it runs past b.
func wideString(b []byte, i int) (s string, end int, ok bool) {
	if i+4 > len(b) {
		return "", i, false
	}
	n := int64(u32(b, i))
	i += 4
	if n == 0xFFFFFFFF { // a null XLNullableWideString
		return "", i, true
	}
	if int64(i)+2*n > int64(len(b)) {
		return "", i, false
	}
	u := make([]uint16, n)
	for k := range u {
		u[k] = binary.LittleEndian.Uint16(b[i+2*k:])
	}
	return string(utf16.Decode(u)), i + 2*int(n), true
}

// readStyles reads the number formats and the cell formats (XFs) that use
// them, to tell which cells show dates and times.
func (b *book) readStyles(zf *zip.File) error {
	rr, c, err := openPart(zf)
	if err != nil {
		return err
	}
	defer c.Close()
	formats := map[int]string{}
	inXFs := false
	for {
		typ, body, err := rr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch typ {
		case recFmt:
			if len(body) >= 2 {
				if s, _, ok := wideString(body, 2); ok {
					formats[int(binary.LittleEndian.Uint16(body))] = s
				}
			}
		case recBeginCellXFs:
			inXFs = true
		case recEndCellXFs:
			return nil
		case recXF:
			if !inXFs || len(body) < 4 {
				continue
			}
			id := int(binary.LittleEndian.Uint16(body[2:]))
			f, ok := formats[id]
			if !ok {
				f, ok = workbook.BuiltinFormat(id)
			}
			var x xfInfo
			if ok {
				x.date, x.elapsed = workbook.FormatKind(f)
			} else if (id >= 27 && id <= 36) || (id >= 50 && id <= 58) {
				// The East Asian built-in date formats, never written out.
				x.date = true
			}
			if len(b.xfs) >= 1<<20 {
				return invalid("part %s holds more cell formats than Excel allows", zf.Name)
			}
			b.xfs = append(b.xfs, x)
		}
	}
}

// readWorkbook reads the date system and the sheets: name, state and part.
func (b *book) readWorkbook(zf *zip.File, wbPart string, byID map[string]relationship) ([]workbook.Sheet, error) {
	rr, c, err := openPart(zf)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var sheets []workbook.Sheet
	for {
		typ, body, err := rr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch typ {
		case recWbProp:
			if len(body) >= 4 {
				b.date1904 = u32(body, 0)&1 != 0
			}
		case recName:
			name, _, _ := wideString(body, 9)
			b.names.Names = append(b.names.Names, name)
		case recSupSelf, recSupSame:
			b.names.SupBooks = append(b.names.SupBooks, ptg.Self)
			b.names.ExtNames = append(b.names.ExtNames, nil)
		case recSupAddin:
			b.names.SupBooks = append(b.names.SupBooks, ptg.AddIn)
			b.names.ExtNames = append(b.names.ExtNames, nil)
		case recSupBookSrc:
			b.names.SupBooks = append(b.names.SupBooks, ptg.External)
			b.names.ExtNames = append(b.names.ExtNames, nil)
		case recExternSheet:
			for i := 4; i+12 <= len(body) && len(b.names.Externals) < 1<<16; i += 12 {
				b.names.Externals = append(b.names.Externals, ptg.XTI{Book: int(u32(body, i)), First: int(int32(u32(body, i+4))), Last: int(int32(u32(body, i+8)))})
			}
		case recBundleSh:
			if len(body) < 12 {
				return nil, invalid("part %s: a sheet record of %d bytes is too short", zf.Name, len(body))
			}
			relID, end, ok := wideString(body, 8)
			name, _, ok2 := wideString(body, end)
			if !ok || !ok2 {
				return nil, invalid("part %s: a sheet record's name runs past its end", zf.Name)
			}
			state := "visible"
			switch u32(body, 0) {
			case 1:
				state = "hidden"
			case 2:
				state = "veryHidden"
			}
			b.names.Tabs = append(b.names.Tabs, name)
			sh := workbook.Sheet{Name: name, State: state, Type: "worksheet"}
			if r, ok := byID[relID]; ok {
				sh.Part = resolve(wbPart, r.Target)
				if relKind(r) == "chartsheet" {
					sh.Type = "chartsheet"
				}
				if p := part(b.parts, sh.Part); p != nil {
					b.sheets[name] = p
				}
			}
			sheets = append(sheets, sh)
		}
	}
	if len(sheets) == 0 {
		return nil, invalid("part %s names no sheet", zf.Name)
	}
	return sheets, nil
}

// readSST reads the shared strings, counting their memory (text and
// header) against the budget as they are read.
func (b *book) readSST() error {
	if b.sstRead {
		return nil
	}
	b.sstRead = true
	if b.sstPart == nil {
		return nil
	}
	rr, c, err := openPart(b.sstPart)
	if err != nil {
		return err
	}
	defer c.Close()
	var used int64
	for {
		typ, body, err := rr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if typ != recSSTItem || len(body) < 1 {
			continue
		}
		s, _, ok := wideString(body, 1)
		if !ok {
			return invalid("part %s: shared string %d runs past its record", b.sstPart.Name, len(b.sst))
		}
		used += int64(len(s)) + 16
		if used > b.maxMem {
			return &workbook.Error{Kind: workbook.TooLarge, Budget: true, Msg: fmt.Sprintf("the shared strings (%s) grow past the memory budget of %d bytes at string %d", b.sstPart.Name, b.maxMem, len(b.sst)+1)}
		}
		b.sst = append(b.sst, s)
	}
}

// rk decodes an RkNumber: a 30-bit integer or the top of a double,
// optionally divided by 100.
func rk(v uint32) float64 {
	var x float64
	if v&2 != 0 {
		x = float64(int32(v) >> 2)
	} else {
		x = math.Float64frombits(uint64(v&^3) << 32)
	}
	if v&1 != 0 {
		x /= 100
	}
	return x
}

// number types a number by its cell's format: a date or time when the
// format shows one, an integer when it has no fraction, else a float.
func (p *sheetReader) number(x float64, xf int) workbook.Value {
	if b := p.b; xf < len(b.xfs) && b.xfs[xf].date {
		return p.g.Serial(x, b.date1904, b.xfs[xf].elapsed)
	}
	if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
		return workbook.Value{Kind: workbook.KindInt, Int: int64(x)}
	}
	return workbook.Value{Kind: workbook.KindFloat, Num: x}
}

// Stream reads one worksheet's records in the order the part stores them
// (row by row, as Excel writes them).
func (b *book) Stream(ctx context.Context, sh *workbook.Sheet, opt *workbook.StreamOptions, fn func(workbook.Row) error) (workbook.Stats, error) {
	st := workbook.Stats{MaxRow: 1, MaxColumn: 1}
	var o workbook.StreamOptions
	if opt != nil {
		o = *opt
	}
	zf := b.sheets[sh.Name]
	if zf == nil {
		return st, invalid("sheet %q has no part: its relationship is missing from the workbook's rels", sh.Name)
	}
	rr, c, err := openPart(zf)
	if err != nil {
		return st, err
	}
	defer c.Close()
	p := sheetReader{b: b, rr: rr, st: &st, o: o, g: workbook.NewGatherer(&st, o, fn), next: -1,
		text: o.Formulas && !o.FormulaMarks && !o.StatsOnly}
	p.f = ptg.Sheet{Names: &b.names, Emit: p.g.Formula, Budget: maxSharedBytes}
	err = p.g.Finish(sh.Name, p.run(ctx))
	return st, err
}

// MergedRanges lists a sheet's merged ranges, which its part stores after
// the cells: the part is read through without building values.
func (b *book) MergedRanges(ctx context.Context, sh *workbook.Sheet) ([]string, error) {
	return workbook.StreamMerges(ctx, b, sh)
}

// sheetReader turns a worksheet's cell records into rows.
type sheetReader struct {
	b  *book
	rr *recordReader
	st *workbook.Stats
	o  workbook.StreamOptions
	g  *workbook.Gatherer

	next   int // the row the last row header opened, 0-based; -1 before
	inData bool

	// text is whether formulas are turned into text (Formulas asked,
	// not marks).
	text bool
	// f gives formula cells their text (BrtShrFmla and BrtArrFmla records
	// define the shared and array formulas).
	f ptg.Sheet
}

// maxSharedBytes bounds the shared and array formulas' tokens a sheet
// read keeps; a variable so a test can lower it.
var maxSharedBytes = 16 << 20

func (p *sheetReader) run(ctx context.Context) error {
	for n := 0; ; n++ {
		if n&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		typ, body, err := p.rr.next()
		if err == io.EOF {
			return p.g.Flush()
		}
		if err != nil {
			return err
		}
		if err := p.record(typ, body); err != nil {
			return err
		}
	}
}

// record handles one record of the sheet part.
func (p *sheetReader) record(typ uint32, body []byte) error {
	switch typ {
	case recRowHdr:
		if len(body) < 4 {
			return nil
		}
		r := u32(body, 0)
		if r >= workbook.MaxRows {
			return invalid("a row header names row %d, beyond Excel's %d", int64(r)+1, workbook.MaxRows)
		}
		p.next = int(r)
		return nil
	case recWsDim:
		if len(body) >= 16 {
			r0, r1, c0, c1 := u32(body, 0), u32(body, 4), u32(body, 8), u32(body, 12)
			if r0 <= r1 && c0 <= c1 && r1 < workbook.MaxRows && c1 < workbook.MaxColumns {
				p.st.Dimension = workbook.CellName(int(r0)+1, int(c0)+1) + ":" + workbook.CellName(int(r1)+1, int(c1)+1)
				if p.o.Dimension != nil {
					p.o.Dimension(p.st.Dimension)
				}
			}
		}
		return nil
	case recMergeCell:
		if len(body) >= 16 {
			r0, r1, c0, c1 := u32(body, 0), u32(body, 4), u32(body, 8), u32(body, 12)
			p.st.MergedRanges++
			p.g.Extent(int(min(r1, workbook.MaxRows-1)), int(min(c1, workbook.MaxColumns-1)))
			if p.o.Merge != nil && r0 <= r1 && c0 <= c1 && r1 < workbook.MaxRows && c1 < workbook.MaxColumns {
				p.o.Merge(workbook.CellName(int(r0)+1, int(c0)+1) + ":" + workbook.CellName(int(r1)+1, int(c1)+1))
			}
		}
		return nil
	case recBeginSheetData:
		p.inData = true
		return nil
	case recShrFmla, recArrFmla:
		if p.text && len(body) >= 16 {
			p.sharedFormula(typ, body)
		}
		return nil
	case recEndSheetData:
		p.inData = false
		return p.g.Flush()
	}
	// Cells are read between the sheet data's begin and end only: the
	// records before and after (views, formatting, future records) reuse
	// the low type numbers of cells inside their own begin and end.
	if !p.inData || (typ > recFmlaError && typ != recCellRString) {
		return nil
	}
	if len(body) < 8 {
		return nil
	}
	col := u32(body, 0)
	if col >= workbook.MaxColumns {
		return invalid("a cell in row %d has column %d, beyond Excel's %d", p.next+1, int64(col)+1, workbook.MaxColumns)
	}
	if p.next < 0 {
		return invalid("a cell comes before the first row header")
	}
	xf := int(u32(body, 4) & 0xFFFFFF)
	var v workbook.Value
	formula := typ >= recFmlaString && typ <= recFmlaError
	switch typ {
	case recCellBlank:
		p.g.Extent(p.next, int(col))
		return nil
	case recCellRk:
		if len(body) < 12 {
			return nil
		}
		v = p.number(rk(u32(body, 8)), xf)
	case recCellError, recFmlaError:
		if len(body) < 9 {
			return nil
		}
		v = workbook.ErrorValue(body[8])
	case recCellBool, recFmlaBool:
		if len(body) < 9 {
			return nil
		}
		v = workbook.Value{Kind: workbook.KindBool, Bool: body[8] != 0}
	case recCellReal, recFmlaNum:
		if len(body) < 16 {
			return nil
		}
		v = p.number(math.Float64frombits(binary.LittleEndian.Uint64(body[8:])), xf)
	case recCellSt, recFmlaString:
		s, _, ok := wideString(body, 8)
		if !ok {
			return invalid("the text of cell %s runs past its record", workbook.CellName(p.next+1, int(col)+1))
		}
		v = workbook.Value{Kind: workbook.KindString, Str: s}
	case recCellRString:
		s, _, ok := wideString(body, 9)
		if !ok {
			return invalid("the text of cell %s runs past its record", workbook.CellName(p.next+1, int(col)+1))
		}
		v = workbook.Value{Kind: workbook.KindString, Str: s}
	case recCellIsst:
		if len(body) < 12 {
			return nil
		}
		if err := p.b.readSST(); err != nil {
			return err
		}
		i := u32(body, 8)
		if int64(i) >= int64(len(p.b.sst)) {
			return invalid("cell %s refers to shared string %d of a table of %d", workbook.CellName(p.next+1, int(col)+1), i, len(p.b.sst))
		}
		v = workbook.Value{Kind: workbook.KindString, Str: p.b.sst[i]}
	}
	if err := p.g.Set(p.next, int(col), v, formula); err != nil || !formula || !p.text {
		return err
	}
	off := 11 // the formula after a boolean or error result and its flags
	switch typ {
	case recFmlaNum:
		off = 18
	case recFmlaString:
		_, end, _ := wideString(body, 8)
		off = end + 2
	}
	p.formulaText(p.next, int(col), body, off)
	return nil
}

// parsedFormula splits a CellParsedFormula at off (its tokens' length,
// the tokens, their data's length, the data) into tokens and data.
func parsedFormula(body []byte, off int) (rgce, extra []byte, ok bool) {
	if off < 0 || off+4 > len(body) {
		return nil, nil, false
	}
	cce := int64(u32(body, off))
	if int64(off)+4+cce > int64(len(body)) {
		return nil, nil, false
	}
	rgce = body[off+4 : off+4+int(cce)]
	rest := body[off+4+int(cce):]
	if len(rest) >= 4 && int64(u32(rest, 0)) <= int64(len(rest)-4) {
		extra = rest[4 : 4+u32(rest, 0)]
	}
	return rgce, extra, true
}

// formulaText gives the formula cell (r, c) its text, or the reason it
// has none; a cell of a shared or array formula points to its definition
// (PtgExp: the row in the tokens, the column in their data), which
// follows the definition's first cell.
func (p *sheetReader) formulaText(r, c int, body []byte, off int) {
	rgce, extra, ok := parsedFormula(body, off)
	if !ok {
		p.f.NoText(r, c, "its parsed formula runs past its record")
		return
	}
	if len(rgce) == 5 && rgce[0] == 0x01 && len(extra) >= 4 {
		p.f.Points(r, c, [2]int{int(u32(rgce, 1)), int(u32(extra, 0))})
		return
	}
	p.f.Cell(r, c, rgce, extra)
}

// sharedFormula keeps a BrtShrFmla or BrtArrFmla record's formula and
// gives it to the cell just read, its first.
func (p *sheetReader) sharedFormula(typ uint32, body []byte) {
	off := 16 // after the range
	if typ == recArrFmla {
		off = 17 // after the range and a flags byte
	}
	rgce, extra, ok := parsedFormula(body, off)
	if !ok {
		return
	}
	p.f.Define([2]int{int(u32(body, 0)), int(u32(body, 8))}, rgce, extra, typ == recArrFmla)
}
