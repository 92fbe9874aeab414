// Package xls reads legacy Excel workbooks (.xls): BIFF8, written by Excel
// 97 to 2003 and by every program that still exports .xls, and BIFF5/7 of
// Excel 5 and 95. The compound file around the workbook is read with
// github.com/richardlehane/mscfb; the BIFF records are read here, because
// no maintained Go reader gives the same values as xlrd (dates by number
// format, errors by name, strings split across CONTINUE records) with
// memory bounded by one row: see the package README in plugins/xlsx.
//
// Sheets stream record by record from their offset in the workbook stream;
// only the shared-string table (counted against Limits.MaxMemory) and the
// cell formats are held.
package xls

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/richardlehane/mscfb"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/ptg"
	"github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"
)

// book is an open .xls workbook: the workbook stream and what its globals
// say about the cells.
type book struct {
	f      *os.File
	stream io.ReadSeeker
	biff8  bool
	// biff34 is an Excel 3 or 4 worksheet file: one BIFF stream, no
	// compound file, one sheet.
	biff34   bool
	date1904 bool
	dec      *encoding.Decoder
	sst      sharedStrings
	xfs      []xfInfo
	sheets   []sheetInfo
	maxMem   int64
	streamSz int64
	// names are what formula tokens refer to beyond cells (BIFF8).
	names ptg.Names
}

type xfInfo struct{ date, elapsed bool }

// sharedStrings is the shared-string table: the strings' text one after
// another in one string, and where each ends. A table of tens of
// thousands of strings is then two allocations that hold no pointers,
// not one a string and a slice of them that the collector scans.
type sharedStrings struct {
	text string
	ends []int
}

func (t *sharedStrings) len() int { return len(t.ends) }

// at returns string i, 0 <= i < len().
func (t *sharedStrings) at(i int) string {
	start := 0
	if i > 0 {
		start = t.ends[i-1]
	}
	return t.text[start:t.ends[i]]
}

type sheetInfo struct {
	name string
	off  int64
}

func invalid(format string, a ...any) *workbook.Error {
	return &workbook.Error{Kind: workbook.Invalid, Msg: fmt.Sprintf(format, a...)}
}

// Open reads the structure of the .xls workbook in f (an OLE compound
// file), which it takes over: the workbook's Close closes it, and so does
// a failure. lim may be nil.
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
		return nil, nil, fmt.Errorf("xls: stat: %w", err)
	}
	b := &book{f: f, maxMem: workbook.DefaultMaxMemory}
	if lim != nil && lim.MaxMemory > 0 {
		b.maxMem = lim.MaxMemory
	}
	if workbook.Signature(f) != "cfb" {
		if err := notCompound(f); err != nil {
			return nil, nil, err
		}
		// An Excel 3 or 4 file is its BIFF stream alone.
		b.stream, b.streamSz = io.NewSectionReader(f, 0, st.Size()), st.Size()
		sheets, err := b.readGlobals()
		if err != nil {
			return nil, nil, err
		}
		return b, sheets, nil
	}
	cf, err := mscfb.New(newBlockReader(f))
	if err != nil {
		// An encrypted package whose container mscfb cannot walk is
		// still named by the streams of its first directory sector.
		if we := workbook.CompoundFileError(f); we.Kind == workbook.Encrypted && strings.Contains(we.Msg, "encrypted package") {
			return nil, nil, we
		}
		return nil, nil, &workbook.Error{Kind: workbook.Invalid, Msg: "the OLE compound file (the container of an .xls workbook) is corrupt", Err: err}
	}
	var wb, book5 *mscfb.File
	for _, e := range cf.File {
		if len(e.Path) != 0 || e.Size == 0 {
			continue
		}
		switch {
		case strings.EqualFold(e.Name, "Workbook"):
			wb = e
		case strings.EqualFold(e.Name, "Book"):
			book5 = e
		}
	}
	if wb == nil {
		wb = book5
	}
	if wb == nil {
		return nil, nil, noWorkbookStream(cf)
	}
	if wb.Size > st.Size() {
		return nil, nil, invalid("the compound file's workbook stream claims %d bytes in a file of %d: a corrupt or hostile file (its sector chain would have to loop)", wb.Size, st.Size())
	}
	b.stream, b.streamSz = wb, wb.Size
	sheets, err := b.readGlobals()
	if err != nil {
		return nil, nil, err
	}
	return b, sheets, nil
}

// noWorkbookStream says what a compound file without a workbook stream is.
func noWorkbookStream(cf *mscfb.Reader) *workbook.Error {
	for _, e := range cf.File {
		switch e.Name {
		case "EncryptedPackage", "EncryptionInfo":
			return &workbook.Error{Kind: workbook.Encrypted, Msg: "the workbook is password-protected (an encrypted package): it cannot be read without its password"}
		case "WordDocument":
			return invalid("a Word document (.doc), not a workbook: its compound file has no Workbook stream")
		case "PowerPoint Document":
			return invalid("a PowerPoint presentation (.ppt), not a workbook: its compound file has no Workbook stream")
		}
	}
	return invalid("an OLE compound file with no Workbook stream: not an Excel workbook")
}

// Close releases the file.
func (b *book) Close() error { return b.f.Close() }

// seek positions a record reader at off in the workbook stream.
func (b *book) seek(off int64) (*recordReader, error) {
	if off < 0 || off >= b.streamSz {
		return nil, invalid("a sheet starts at offset %d, outside the %d-byte workbook stream", off, b.streamSz)
	}
	if _, err := b.stream.Seek(off, io.SeekStart); err != nil {
		return nil, &workbook.Error{Kind: workbook.Invalid, Msg: "the workbook stream cannot be read", Err: err}
	}
	return newRecordReader(b.stream, off), nil
}

// readGlobals reads the workbook globals substream: sheets, shared
// strings, cell formats, date system, code page; FILEPASS is encryption.
func (b *book) readGlobals() ([]workbook.Sheet, error) {
	rr, err := b.seek(0)
	if err != nil {
		return nil, err
	}
	typ, body, err := rr.next()
	if err != nil {
		return nil, invalid("the workbook stream is empty or cut short: %v", err)
	}
	switch typ {
	case recBOF:
	case recBOF3, recBOF4:
		if len(body) < 4 || binary.LittleEndian.Uint16(body[2:]) != 0x0010 {
			return nil, &workbook.Error{Kind: workbook.Unsupported, Msg: "an Excel 3–4 workbook of several sheets (BIFF4W) or a chart: only Excel 3–4 worksheets and Excel 5 and later .xls files are read"}
		}
		b.biff34, b.dec = true, charmap.Windows1252.NewDecoder()
		return b.readGlobals34(rr)
	case recBOF2:
		return nil, &workbook.Error{Kind: workbook.Unsupported, Msg: "an Excel 2 worksheet (BIFF2): only Excel 3 and later .xls files are read"}
	default:
		return nil, invalid("the workbook stream does not start with a BOF record (found record 0x%04X): not an Excel workbook", typ)
	}
	if len(body) < 4 {
		return nil, invalid("the workbook's BOF record is cut short")
	}
	switch v := binary.LittleEndian.Uint16(body); v {
	case 0x0600:
		b.biff8 = true
	case 0x0500:
		b.dec = charmap.Windows1252.NewDecoder()
	default:
		return nil, &workbook.Error{Kind: workbook.Unsupported, Msg: fmt.Sprintf("BIFF version 0x%04X: only BIFF5 (Excel 5/95) and BIFF8 (Excel 97–2003) .xls files are read", v)}
	}
	custom := map[int]string{}
	var fmtIDs []int
	var sheets []workbook.Sheet
loop:
	for {
		typ, body, err := rr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, invalid("the workbook globals cannot be read: %v", err)
		}
		switch typ {
		case recEOF:
			break loop
		case recFilePass:
			return nil, &workbook.Error{Kind: workbook.Encrypted, Msg: "the .xls workbook is password-protected (encrypted with a FILEPASS record): it cannot be read without its password"}
		case recCodePage:
			if len(body) >= 2 && !b.biff8 {
				b.dec = codePage(binary.LittleEndian.Uint16(body))
			}
		case recDateMode:
			b.date1904 = len(body) >= 2 && binary.LittleEndian.Uint16(body) != 0
		case recBoundSheet:
			if len(body) < 7 {
				return nil, invalid("a BOUNDSHEET record is cut short")
			}
			s := strReader{b: body, off: 6, dec: b.dec}
			name, err := s.unicode(1, b.biff8)
			if err != nil {
				return nil, invalid("a sheet name is cut short")
			}
			b.names.Tabs = append(b.names.Tabs, name)
			sh := workbook.Sheet{Name: name, State: [...]string{"visible", "hidden", "veryHidden", "veryHidden"}[body[4]&3], Type: "worksheet"}
			switch body[5] {
			case 2:
				sh.Type = "chartsheet"
			case 6:
				continue // a Visual Basic module: code, not a sheet
			}
			sh.Part = fmt.Sprintf("sheet %d of the workbook stream", len(sheets)+1)
			sheets = append(sheets, sh)
			b.sheets = append(b.sheets, sheetInfo{name: name, off: int64(binary.LittleEndian.Uint32(body))})
		case recName:
			if b.biff8 {
				b.names.Names = append(b.names.Names, readName(body))
			}
		case recSupBook:
			b.names.SupBooks = append(b.names.SupBooks, readSupBook(body))
			b.names.ExtNames = append(b.names.ExtNames, nil)
		case recExternName:
			if k := len(b.names.ExtNames) - 1; b.biff8 && k >= 0 {
				b.names.ExtNames[k] = append(b.names.ExtNames[k], readExternName(body))
			}
		case recExternSht:
			if b.biff8 {
				b.names.Externals = append(b.names.Externals, readExternSheet(body)...)
			}
		case recXF:
			if len(body) >= 4 {
				fmtIDs = append(fmtIDs, int(binary.LittleEndian.Uint16(body[2:])))
			}
		case recFormat:
			if len(body) < 3 {
				continue
			}
			s := strReader{b: body, off: 2, dec: b.dec}
			lenBytes := 1
			if b.biff8 {
				lenBytes = 2
			}
			if code, err := s.unicode(lenBytes, b.biff8); err == nil {
				custom[int(binary.LittleEndian.Uint16(body))] = code
			}
		case recSST:
			if err := b.readSST(rr, body); err != nil {
				return nil, err
			}
		}
	}
	b.xfs = make([]xfInfo, len(fmtIDs))
	for i, id := range fmtIDs {
		f, ok := custom[id]
		if !ok {
			f, ok = workbook.BuiltinFormat(id)
		}
		if ok {
			b.xfs[i].date, b.xfs[i].elapsed = workbook.FormatKind(f)
		} else if (id >= 27 && id <= 36) || (id >= 50 && id <= 58) {
			// The East Asian built-in date formats, never written out.
			b.xfs[i].date = true
		}
	}
	if len(sheets) == 0 {
		return nil, invalid("the workbook lists no sheets (no BOUNDSHEET record)")
	}
	return sheets, nil
}

// readGlobals34 reads what an Excel 3 or 4 worksheet file says about its
// cells — formats, cell formats, date system, code page — which come
// before its cells in the one stream: the sheet is read again from the
// start when streamed. FORMAT records are numbered in the order written.
func (b *book) readGlobals34(rr *recordReader) ([]workbook.Sheet, error) {
	var formats []string
	var fmtIDs []int
	for {
		typ, body, err := rr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, invalid("the worksheet cannot be read: %v", err)
		}
		if typ == recEOF {
			break
		}
		switch typ {
		case recFilePass:
			return nil, &workbook.Error{Kind: workbook.Encrypted, Msg: "the .xls workbook is password-protected: it cannot be read without its password"}
		case recCodePage:
			if len(body) >= 2 {
				b.dec = codePage(binary.LittleEndian.Uint16(body))
			}
		case recDateMode:
			b.date1904 = len(body) >= 2 && binary.LittleEndian.Uint16(body) != 0
		case recFormat, recFormat3:
			off := 0
			if typ == recFormat {
				off = 2
			}
			s := strReader{b: body, off: off, dec: b.dec}
			code, _ := s.unicode(1, false)
			formats = append(formats, code)
		case recXF3, recXF4:
			if len(body) >= 2 {
				fmtIDs = append(fmtIDs, int(body[1]))
			}
		}
	}
	b.xfs = make([]xfInfo, len(fmtIDs))
	for i, id := range fmtIDs {
		if id < len(formats) {
			b.xfs[i].date, b.xfs[i].elapsed = workbook.FormatKind(formats[id])
		}
	}
	b.sheets = []sheetInfo{{name: "Sheet 1"}}
	return []workbook.Sheet{{Name: "Sheet 1", State: "visible", Type: "worksheet", Part: "the worksheet stream"}}, nil
}

// notCompound says why a file under an .xls name that is no compound file
// cannot be read, or returns nil for an Excel 3 or 4 worksheet (a bare
// BIFF stream).
func notCompound(f *os.File) error {
	var head [512]byte
	n, _ := f.ReadAt(head[:], 0)
	h := head[:n]
	if n >= 4 && (binary.LittleEndian.Uint16(h) == recBOF3 || binary.LittleEndian.Uint16(h) == recBOF4 || binary.LittleEndian.Uint16(h) == recBOF2) {
		return nil
	}
	if n == 0 {
		return invalid("the file is empty (0 bytes), not an .xls workbook")
	}
	if n >= 4 && string(h[:4]) == "PK\x03\x04" {
		return &workbook.Error{Kind: workbook.Unsupported, Msg: "a zip package (an .xlsx, .ods or other Office Open XML file) under an .xls name"}
	}
	t := strings.ToLower(strings.TrimLeft(strings.TrimPrefix(string(h), "\ufeff"), " \t\r\n"))
	switch {
	case strings.HasPrefix(t, "<?xml") && strings.Contains(t, "urn:schemas-microsoft-com:office:spreadsheet"):
		return &workbook.Error{Kind: workbook.Unsupported, Msg: "an Excel 2003 XML spreadsheet (SpreadsheetML) under an .xls name, not a binary .xls workbook"}
	case strings.HasPrefix(t, "<"):
		return &workbook.Error{Kind: workbook.Unsupported, Msg: "an HTML or XML page under an .xls name (as many sites export \"Excel\" files), not a binary .xls workbook"}
	}
	return invalid("not an .xls workbook: no OLE compound file signature (D0 CF 11 E0) and no BIFF record at the start")
}

// readSST reads the shared-string table, whose strings run on across
// CONTINUE records. Its memory (each string's text and header) is counted
// against the budget as it is read; the declared count is not trusted for
// any allocation.
func (b *book) readSST(rr *recordReader, body []byte) error {
	// The body is rr's buffer, which the CONTINUE records reuse: copy it.
	c := &contReader{rr: rr, seg: append([]byte(nil), body...)}
	if _, ok := c.u32(); !ok {
		return nil
	}
	unique, ok := c.u32()
	if !ok {
		return nil
	}
	var used int64
	// A second SST record, which no writer makes, adds to the first.
	var text strings.Builder
	text.WriteString(b.sst.text)
	defer func() { b.sst.text = text.String() }()
	var buf []byte
	for i := uint32(0); i < unique; i++ {
		cch, ok1 := c.u16()
		flags, ok2 := c.u8()
		if !ok1 || !ok2 {
			break
		}
		runs, ext := 0, 0
		if flags&8 != 0 {
			n, ok := c.u16()
			if !ok {
				break
			}
			runs = int(n)
		}
		if flags&4 != 0 {
			n, ok := c.u32()
			if !ok {
				break
			}
			ext = int(n)
		}
		buf, ok = c.chars(buf[:0], int(cch), flags&1 != 0)
		if !ok {
			break
		}
		used += int64(len(buf)) + 16
		if used > b.maxMem {
			return &workbook.Error{Kind: workbook.TooLarge, Budget: true, Msg: fmt.Sprintf("the shared-string table (SST) grows past the memory budget of %d bytes at string %d of the %d it declares", b.maxMem, i+1, unique)}
		}
		text.Write(buf)
		b.sst.ends = append(b.sst.ends, text.Len())
		if !c.skip(4*runs + ext) {
			break
		}
	}
	if c.err != nil {
		return invalid("the shared-string table cannot be read: %v", c.err)
	}
	return nil
}

// codePage returns the decoder of a BIFF5 workbook's code page; Windows
// Western for one it does not know.
func codePage(cp uint16) *encoding.Decoder {
	var e encoding.Encoding
	switch cp {
	case 437:
		e = charmap.CodePage437
	case 850:
		e = charmap.CodePage850
	case 852:
		e = charmap.CodePage852
	case 866:
		e = charmap.CodePage866
	case 874:
		e = charmap.Windows874
	case 932:
		e = japanese.ShiftJIS
	case 936:
		e = simplifiedchinese.GBK
	case 949:
		e = korean.EUCKR
	case 950:
		e = traditionalchinese.Big5
	case 1250:
		e = charmap.Windows1250
	case 1251:
		e = charmap.Windows1251
	case 1253:
		e = charmap.Windows1253
	case 1254:
		e = charmap.Windows1254
	case 1255:
		e = charmap.Windows1255
	case 1256:
		e = charmap.Windows1256
	case 1257:
		e = charmap.Windows1257
	case 1258:
		e = charmap.Windows1258
	case 10000, 32768:
		e = charmap.Macintosh
	default:
		e = charmap.Windows1252
	}
	return e.NewDecoder()
}

// rk decodes an RK number: a 30-bit integer or the top of a double,
// optionally divided by 100.
func rk(v uint32) (x float64, integer bool) {
	if v&2 != 0 {
		i := int64(int32(v) >> 2)
		if v&1 == 0 {
			return float64(i), true
		}
		if i%100 == 0 {
			return float64(i / 100), true
		}
		return float64(i) / 100, false
	}
	x = math.Float64frombits(uint64(v&^3) << 32)
	if v&1 != 0 {
		x /= 100
	}
	return x, false
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

// Stream reads one worksheet, record by record from its BOF, in the order
// the file stores its cells (row by row, as every writer stores them).
func (b *book) Stream(ctx context.Context, sh *workbook.Sheet, opt *workbook.StreamOptions, fn func(workbook.Row) error) (workbook.Stats, error) {
	st := workbook.Stats{MaxRow: 1, MaxColumn: 1}
	var o workbook.StreamOptions
	if opt != nil {
		o = *opt
	}
	var info *sheetInfo
	for i := range b.sheets {
		if b.sheets[i].name == sh.Name {
			info = &b.sheets[i]
			break
		}
	}
	if info == nil {
		return st, invalid("no sheet %q in the workbook", sh.Name)
	}
	rr, err := b.seek(info.off)
	if err != nil {
		return st, err
	}
	p := sheetReader{b: b, rr: rr, st: &st, o: o, g: workbook.NewGatherer(&st, o, fn), pending: -1,
		text: o.Formulas && !o.FormulaMarks && !o.StatsOnly && b.biff8}
	p.f = ptg.Sheet{Names: &b.names, Emit: p.g.Formula, Budget: maxSharedBytes}
	err = p.g.Finish(sh.Name, p.run(ctx))
	return st, err
}

// MergedRanges lists a sheet's merged ranges (MERGECELLS records, after
// the cells): the sheet is read through without building values.
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

	// pending is the column of a formula whose string result follows in
	// a STRING record, -1 when none.
	pending    int
	pendingRow int

	// text is whether formulas are turned into text (Formulas asked,
	// not marks, BIFF8).
	text bool
	// f gives formula cells their text (SHRFMLA and ARRAY records define
	// the shared and array formulas).
	f ptg.Sheet
}

// maxSharedBytes bounds the shared and array formulas' tokens a sheet
// read keeps; a variable so a test can lower it.
var maxSharedBytes = 16 << 20

// olderNoText is the formula entry of a cell of an Excel 5/95 (or older)
// file, whose tokens are not decompiled.
var olderNoText = workbook.NoFormulaText("formula text is read from Excel 97–2003 .xls files (BIFF8) only; this is an older one")

// maxColumn is the widest row kept: BIFF8's grid is 256 columns, and no
// writer goes past Excel's 16,384.
const maxColumn = workbook.MaxColumns

func (p *sheetReader) run(ctx context.Context) error {
	typ, body, err := p.rr.next()
	if err != nil {
		return fmt.Errorf("the sheet's first record: %w", err)
	}
	if (typ != recBOF && !(p.b.biff34 && (typ == recBOF3 || typ == recBOF4))) || len(body) < 4 {
		return fmt.Errorf("the sheet does not start with a BOF record (found 0x%04X): its BOUNDSHEET offset is wrong", typ)
	}
	depth := 1
	for n := 0; ; n++ {
		if n&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		typ, body, err := p.rr.next()
		if err == io.EOF {
			// A sheet cut off before its EOF record: keep what was read,
			// as xlrd does.
			return p.g.Flush()
		}
		if err != nil {
			return err
		}
		switch typ {
		case recBOF:
			depth++ // an embedded chart's substream
			continue
		case recEOF:
			depth--
			if depth == 0 {
				return p.g.Flush()
			}
			continue
		}
		if depth > 1 {
			continue
		}
		if err := p.record(typ, body); err != nil {
			return err
		}
	}
}

func u16(b []byte, i int) int { return int(binary.LittleEndian.Uint16(b[i:])) }

// record handles one record of the worksheet substream.
func (p *sheetReader) record(typ uint16, body []byte) error {
	switch typ {
	case recDimensions:
		if p.b.biff8 && len(body) >= 12 {
			r0, r1 := binary.LittleEndian.Uint32(body), binary.LittleEndian.Uint32(body[4:])
			c0, c1 := u16(body, 8), u16(body, 10)
			p.dimension(int(min(r0, math.MaxInt32)), int(min(r1, math.MaxInt32)), c0, c1)
		} else if !p.b.biff8 && len(body) >= 8 {
			p.dimension(u16(body, 0), u16(body, 2), u16(body, 4), u16(body, 6))
		}
	case recNumber:
		if len(body) < 14 {
			return nil
		}
		x := math.Float64frombits(binary.LittleEndian.Uint64(body[6:]))
		return p.set(u16(body, 0), u16(body, 2), p.number(x, u16(body, 4)), false)
	case recRK:
		if len(body) < 10 {
			return nil
		}
		x, _ := rk(binary.LittleEndian.Uint32(body[6:]))
		return p.set(u16(body, 0), u16(body, 2), p.number(x, u16(body, 4)), false)
	case recMulRK:
		if len(body) < 6 {
			return nil
		}
		r, c := u16(body, 0), u16(body, 2)
		for i := 4; i+6 <= len(body)-2; i += 6 {
			x, _ := rk(binary.LittleEndian.Uint32(body[i+2:]))
			if err := p.set(r, c, p.number(x, u16(body, i)), false); err != nil {
				return err
			}
			c++
		}
	case recLabelSST:
		if len(body) < 10 {
			return nil
		}
		i := int(binary.LittleEndian.Uint32(body[6:]))
		if i >= p.b.sst.len() {
			return invalid("cell %s refers to shared string %d of a table of %d", workbook.CellName(u16(body, 0)+1, u16(body, 2)+1), i, p.b.sst.len())
		}
		return p.set(u16(body, 0), u16(body, 2), workbook.Value{Kind: workbook.KindString, Str: p.b.sst.at(i)}, false)
	case recLabel, recRString:
		if len(body) < 8 {
			return nil
		}
		s := strReader{b: body, off: 6, dec: p.b.dec}
		text, err := s.unicode(2, p.b.biff8)
		if err != nil {
			return nil
		}
		return p.set(u16(body, 0), u16(body, 2), workbook.Value{Kind: workbook.KindString, Str: text}, false)
	case recBoolErr:
		if len(body) < 8 {
			return nil
		}
		v := workbook.Value{Kind: workbook.KindBool, Bool: body[6] != 0}
		if body[7] != 0 {
			v = workbook.ErrorValue(body[6])
		}
		return p.set(u16(body, 0), u16(body, 2), v, false)
	case recFormula, recFormula3, recFormula4:
		if len(body) < 20 {
			return nil
		}
		r, c, res := u16(body, 0), u16(body, 2), body[6:14]
		var v workbook.Value
		if res[6] == 0xFF && res[7] == 0xFF {
			switch res[0] {
			case 0: // a string, in the STRING record that follows
				p.pending, p.pendingRow = c, r
				v = workbook.Value{Kind: workbook.KindString}
			case 1:
				v = workbook.Value{Kind: workbook.KindBool, Bool: res[2] != 0}
			case 2:
				v = workbook.ErrorValue(res[2])
			case 3:
				v = workbook.Value{Kind: workbook.KindString}
			}
		} else {
			v = p.number(math.Float64frombits(binary.LittleEndian.Uint64(res)), u16(body, 4))
		}
		if err := p.set(r, c, v, true); err != nil {
			return err
		}
		if p.text {
			p.formulaText(r, c, body)
		} else if !p.b.biff8 {
			p.g.Formula(r, c, olderNoText)
		}
	case recShrFmla, recArray:
		if p.text {
			p.sharedFormula(typ, body)
		}
	case recString:
		if p.pending < 0 {
			return nil
		}
		s := strReader{b: body, dec: p.b.dec}
		text, err := s.unicode(2, p.b.biff8)
		// A string result longer than one record runs on in CONTINUE
		// records; the part in this record is what xlrd also keeps.
		if err == nil {
			p.g.Replace(p.pendingRow, p.pending, workbook.Value{Kind: workbook.KindString, Str: text})
		}
		p.pending = -1
	case recBlank:
		if len(body) >= 4 {
			p.g.Extent(u16(body, 0), u16(body, 2))
		}
	case recMulBlank:
		if len(body) >= 6 {
			p.g.Extent(u16(body, 0), u16(body, len(body)-2))
		}
	case recMergeCells:
		if len(body) < 2 {
			return nil
		}
		n := u16(body, 0)
		for i := 0; i < n && 2+8*i+8 <= len(body); i++ {
			m := body[2+8*i:]
			p.st.MergedRanges++
			p.g.Extent(u16(m, 2), u16(m, 6))
			if r0, r1, c0, c1 := u16(m, 0), u16(m, 2), u16(m, 4), u16(m, 6); p.o.Merge != nil && r0 <= r1 && c0 <= c1 {
				p.o.Merge(workbook.CellName(r0+1, c0+1) + ":" + workbook.CellName(r1+1, c1+1))
			}
		}
	}
	return nil
}

// formulaText gives the FORMULA record's cell at (r, c) its formula text,
// or the reason it has none; a cell of a shared or array formula points
// to its definition, which follows the definition's first cell.
func (p *sheetReader) formulaText(r, c int, body []byte) {
	if len(body) < 22 {
		p.f.Skip()
		return
	}
	rgce, extra := body[22:], []byte(nil)
	if cce := u16(body, 20); cce <= len(rgce) {
		rgce, extra = rgce[:cce], rgce[cce:]
	}
	if len(rgce) == 5 && rgce[0] == 0x01 {
		p.f.Points(r, c, [2]int{u16(rgce, 1), u16(rgce, 3)})
		return
	}
	p.f.Cell(r, c, rgce, extra)
}

// sharedFormula keeps a SHRFMLA or ARRAY record's formula and gives it to
// the cell just read, its first.
func (p *sheetReader) sharedFormula(typ uint16, body []byte) {
	off := 10 // SHRFMLA: range, reserved, use count, then cce
	if typ == recArray {
		off = 14 // ARRAY: range, options, reserved, then cce
	}
	if len(body) < off {
		return
	}
	rgce, extra := body[off:], []byte(nil)
	if cce := u16(body, off-2); cce <= len(rgce) {
		rgce, extra = rgce[:cce], rgce[cce:]
	}
	p.f.Define([2]int{u16(body, 0), int(body[4])}, rgce, extra, typ == recArray)
}

// dimension records the sheet's DIMENSIONS claim (last row and column
// exclusive) as an A1 range.
func (p *sheetReader) dimension(r0, r1, c0, c1 int) {
	if r1 <= r0 || c1 <= c0 {
		return
	}
	p.st.Dimension = workbook.CellName(r0+1, c0+1) + ":" + workbook.CellName(r1, c1)
	if p.o.Dimension != nil {
		p.o.Dimension(p.st.Dimension)
	}
}

// set puts a value at (r, c), refusing a column past Excel's grid.
func (p *sheetReader) set(r, c int, v workbook.Value, formula bool) error {
	if c >= maxColumn {
		return invalid("cell in row %d has column %d, beyond Excel's %d", r+1, c+1, maxColumn)
	}
	return p.g.Set(r, c, v, formula)
}
