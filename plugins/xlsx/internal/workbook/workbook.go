// Package workbook reads .xlsx and .xlsm workbooks the way openpyxl's
// load_workbook(data_only=True) sees them, streaming each worksheet row by
// row over archive/zip so memory does not grow with the number of rows.
//
// It reads what an agent needs: the sheets with their visibility, and cell
// values typed as openpyxl types them (ints, floats, strings, booleans,
// error values, dates and times by the cell's number format). Formulas give
// their cached values. Transitional and Strict OOXML are both read.
package workbook

import (
	"archive/zip"
	"bytes"
	"compress/bzip2"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unsafe"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// Limits bound what opening a workbook may cost. The zero value of a field
// means its default.
type Limits struct {
	// MaxPartSize is the most one part may decompress to (default 2 GiB).
	MaxPartSize int64
	// MaxTotalSize is the most all parts together may decompress to
	// (default 8 GiB).
	MaxTotalSize int64
	// MaxRatio is the largest decompressed/compressed ratio allowed for a
	// part that decompresses to more than 1 MiB (default 1000).
	MaxRatio int64
	// MaxSharedStrings bounds the text of the shared-string table, which
	// is held in memory (default 512 MiB).
	MaxSharedStrings int64
	// MaxMemory is the most memory reading one workbook may hold (default
	// 256 MiB). It counts the shared-string table as the bytes it expands
	// to in memory — each string's text plus its 16-byte header — so a
	// small file of millions of short strings is refused early, while it
	// loads, instead of growing the process far beyond the file.
	MaxMemory int64
}

// DefaultMaxMemory is Limits.MaxMemory when none is given.
const DefaultMaxMemory = 256 << 20

// stringHeader is what one string costs in memory besides its text: the
// header in the table's slice.
const stringHeader = 16

func (l *Limits) withDefaults() Limits {
	var o Limits
	if l != nil {
		o = *l
	}
	if o.MaxPartSize <= 0 {
		o.MaxPartSize = 2 << 30
	}
	if o.MaxTotalSize <= 0 {
		o.MaxTotalSize = 8 << 30
	}
	if o.MaxRatio <= 0 {
		o.MaxRatio = 1000
	}
	if o.MaxSharedStrings <= 0 {
		o.MaxSharedStrings = 512 << 20
	}
	if o.MaxMemory <= 0 {
		o.MaxMemory = DefaultMaxMemory
	}
	return o
}

// Sheet is one sheet of a workbook, in workbook order.
type Sheet struct {
	// Name is the sheet's title.
	Name string
	// State is visible, hidden or veryHidden.
	State string
	// Type is worksheet or chartsheet. Dialog and macro sheets are
	// worksheets, as openpyxl reads them.
	Type string
	// Part is the sheet's part name inside the package ("" when its
	// relationship is missing).
	Part string
}

// Workbook is an open workbook. It is not safe for concurrent use.
type Workbook struct {
	// backend reads the sheets of a workbook in another format (FromBackend).
	backend Backend

	f      *os.File
	zr     *zip.Reader
	parts  map[string]*zip.File
	folded map[string]*zip.File
	lim    Limits

	// Sheets are the workbook's sheets in order.
	Sheets []Sheet
	// Date1904 is true when the workbook counts dates from 1904.
	Date1904 bool

	styles  []styleInfo
	sstPart string
	// tokensOnly turns off the scanner's one-step cell path, so a test
	// can compare it with the token path.
	tokensOnly bool
	// the shared strings read so far (sharedString), where reading
	// stopped, and whether the table is all read or failed
	sst     []string
	sstR    *sstReader
	sstDone bool
	sstErr  error
}

type styleInfo struct {
	date    bool
	elapsed bool
}

// cfbSignature starts every OLE compound file: an encrypted OOXML package
// or a legacy .xls workbook.
var cfbSignature = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

// Open opens the workbook at path and reads its structure (sheets, styles);
// cell data is read later, sheet by sheet. lim may be nil.
func Open(name string, lim *Limits) (*Workbook, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("workbook: open: %w", err)
	}
	return OpenFile(f, lim)
}

// OpenFile reads the structure of the workbook in an open file, which it
// takes over: Close closes it, and so does a failure to open. lim may be
// nil.
func OpenFile(f *os.File, lim *Limits) (*Workbook, error) {
	w, err := open(f, lim)
	if err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// zipBzip2 is the zip method number of bzip2 compression.
const zipBzip2 = 12

func open(f *os.File, lim *Limits) (*Workbook, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("workbook: stat: %w", err)
	}
	head := make([]byte, 8)
	n, _ := io.ReadFull(f, head)
	if n == 8 && bytes.Equal(head, cfbSignature) {
		return nil, compoundFileError(f)
	}
	if st.Size() == 0 {
		return nil, invalidf(nil, "the file is empty (0 bytes), not a zip package")
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		return nil, invalidf(err, "not a zip package, or a truncated one")
	}
	// Method 12, bzip2: Excel writes none, but Python's zipfile does, and
	// openpyxl reads them.
	zr.RegisterDecompressor(zipBzip2, func(r io.Reader) io.ReadCloser { return io.NopCloser(bzip2.NewReader(r)) })
	w := &Workbook{f: f, zr: zr, lim: lim.withDefaults(),
		parts: map[string]*zip.File{}, folded: map[string]*zip.File{}}
	for _, zf := range zr.File {
		name := strings.TrimPrefix(strings.ReplaceAll(zf.Name, `\`, "/"), "/")
		w.parts[name] = zf
		w.folded[strings.ToLower(name)] = zf
	}
	if err := w.lim.CheckZip(zr); err != nil {
		return nil, err
	}
	if len(zr.File) == 0 {
		return nil, invalidf(nil, "the zip archive is empty: missing xl/workbook.xml and every other part")
	}
	if err := w.readStructure(); err != nil {
		return nil, err
	}
	return w, nil
}

// Close releases the file.
func (w *Workbook) Close() error {
	if w.backend != nil {
		return w.backend.Close()
	}
	w.closeSharedStrings()
	return w.f.Close()
}

// Sheet returns the sheet with this exact name.
func (w *Workbook) Sheet(name string) (*Sheet, bool) {
	for i := range w.Sheets {
		if w.Sheets[i].Name == name {
			return &w.Sheets[i], true
		}
	}
	return nil, false
}

// part finds a part by name: exactly, ignoring case, or with a
// relationship target's %-escapes decoded.
func (w *Workbook) part(name string) *zip.File {
	if zf := w.parts[name]; zf != nil {
		return zf
	}
	if zf := w.folded[strings.ToLower(name)]; zf != nil {
		return zf
	}
	if strings.Contains(name, "%") {
		if u, err := url.PathUnescape(name); err == nil && u != name {
			return w.part(u)
		}
	}
	return nil
}

// openPart opens a part for reading; archive/zip refuses data longer than
// the size the archive declares, which Open has checked against the limits.
func (w *Workbook) openPart(name string) (io.ReadCloser, error) {
	zf := w.part(name)
	if zf == nil {
		return nil, invalidf(nil, "missing part %s", name)
	}
	rc, err := zf.Open()
	if err != nil {
		return nil, invalidf(err, "part %s cannot be read", name)
	}
	return decodePart(rc), nil
}

// decodePart turns a part written in UTF-16 (with a byte-order mark, or
// without one but starting with "<" as every XML document does), or in a
// single-byte character set its XML declaration names (ISO-8859-1,
// windows-1252, …, which openpyxl's parser decodes), into the UTF-8 the
// parsers read; other parts pass through untouched.
func decodePart(rc io.ReadCloser) io.ReadCloser {
	var head [256]byte
	n, _ := io.ReadFull(rc, head[:])
	r := io.MultiReader(bytes.NewReader(head[:n]), rc)
	var enc *encoding.Decoder
	switch {
	case n >= 2 && head[0] == 0xFF && head[1] == 0xFE, n >= 4 && head[0] == '<' && head[1] == 0 && head[3] == 0:
		enc = unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewDecoder()
	case n >= 2 && head[0] == 0xFE && head[1] == 0xFF, n >= 4 && head[0] == 0 && head[1] == '<' && head[2] == 0:
		enc = unicode.UTF16(unicode.BigEndian, unicode.UseBOM).NewDecoder()
	default:
		if cm := declaredCharmap(head[:n]); cm != nil {
			enc = cm.NewDecoder()
		}
	}
	if enc != nil {
		r = transform.NewReader(r, enc)
	}
	return struct {
		io.Reader
		io.Closer
	}{r, rc}
}

// declaredCharmap returns the single-byte character set the XML
// declaration at the start of head names, or nil for UTF-8, ASCII, none
// or one it does not know.
func declaredCharmap(head []byte) *charmap.Charmap {
	if !bytes.HasPrefix(head, []byte("<?xml")) {
		return nil
	}
	decl := head
	if i := bytes.Index(head, []byte("?>")); i >= 0 {
		decl = head[:i]
	}
	i := bytes.Index(decl, []byte("encoding"))
	if i < 0 {
		return nil
	}
	v := bytes.TrimLeft(decl[i+len("encoding"):], " \t\r\n")
	if len(v) < 2 || v[0] != '=' {
		return nil
	}
	v = bytes.TrimLeft(v[1:], " \t\r\n")
	if len(v) < 2 || v[0] != '"' && v[0] != '\'' {
		return nil
	}
	end := bytes.IndexByte(v[1:], v[0])
	if end < 0 {
		return nil
	}
	return charmaps()[charsetKey(string(v[1:1+end]))]
}

// charsetKey folds a character set's name for charmaps: lower case, with
// no spaces, dashes or underscores ("ISO-8859-1" and "iso_8859_1" are
// "iso88591").
func charsetKey(name string) string {
	return strings.ToLower(strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '_':
			return -1
		}
		return r
	}, name))
}

// charmaps holds the single-byte character sets by charsetKey of their
// names and common aliases.
var charmaps = sync.OnceValue(func() map[string]*charmap.Charmap {
	m := map[string]*charmap.Charmap{}
	for _, e := range charmap.All {
		if cm, ok := e.(*charmap.Charmap); ok {
			m[charsetKey(cm.String())] = cm
		}
	}
	m["latin1"], m["l1"], m["iso885911987"] = charmap.ISO8859_1, charmap.ISO8859_1, charmap.ISO8859_1
	for _, n := range []string{"1250", "1251", "1252", "1253", "1254", "1255", "1256", "1257", "1258"} {
		m["cp"+n] = m["windows"+n]
	}
	m["latin9"] = charmap.ISO8859_15
	return m
})

type rel struct {
	ID     string
	Type   string
	Target string
	Mode   string
}

// relsFor reads the relationships of a part; a missing rels part is nil.
func (w *Workbook) relsFor(part string) ([]rel, bool, error) {
	dir, file := path.Split(part)
	name := dir + "_rels/" + file + ".rels"
	if w.part(name) == nil {
		return nil, false, nil
	}
	var out []rel
	err := w.decode(name, func(d *xml.Decoder, se xml.StartElement) error {
		if se.Name.Local != "Relationship" {
			return nil
		}
		var r rel
		for _, a := range se.Attr {
			switch a.Name.Local {
			case "Id":
				r.ID = a.Value
			case "Type":
				r.Type = a.Value
			case "Target":
				r.Target = a.Value
			case "TargetMode":
				r.Mode = a.Value
			}
		}
		out = append(out, r)
		return nil
	})
	return out, true, err
}

// resolve turns a relationship target into a part name.
func resolve(source, target string) string {
	target = strings.ReplaceAll(target, `\`, "/")
	if strings.HasPrefix(target, "/") {
		return strings.TrimPrefix(path.Clean(target), "/")
	}
	return strings.TrimPrefix(path.Clean(path.Join(path.Dir(source), target)), "/")
}

func relType(r rel) string {
	if i := strings.LastIndexByte(r.Type, '/'); i >= 0 {
		return r.Type[i+1:]
	}
	return r.Type
}

// decode streams a small part through encoding/xml, calling fn for each
// start element.
func (w *Workbook) decode(name string, fn func(*xml.Decoder, xml.StartElement) error) error {
	return w.tokens(name, func(d *xml.Decoder, tok xml.Token) error {
		if se, ok := tok.(xml.StartElement); ok {
			return fn(d, se)
		}
		return nil
	})
}

// tokens streams a small part through encoding/xml, calling fn for each
// token; a part that is not well-formed is invalid_workbook.
func (w *Workbook) tokens(name string, fn func(*xml.Decoder, xml.Token) error) error {
	rc, err := w.openPart(name)
	if err != nil {
		return err
	}
	defer rc.Close()
	d := newDecoder(rc)
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return invalidf(err, "part %s is not well-formed XML", name)
		}
		if err := fn(d, tok); err != nil {
			return err
		}
	}
}

// newDecoder returns a lenient decoder for the small parts, which
// decodePart has already turned into UTF-8 from UTF-16 or a single-byte
// character set: any other declared encoding is read as UTF-8 (writers
// that declare one still write ASCII names and attributes).
func newDecoder(r io.Reader) *xml.Decoder {
	d := xml.NewDecoder(r)
	d.Strict = false
	d.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
	return d
}

// otherOffice names the other Office formats by their main part's root
// element.
var otherOffice = map[string]string{
	"presentation": " (a PowerPoint presentation)",
	"document":     " (a Word document)",
}

func (w *Workbook) readStructure() error {
	wbPart := ""
	rels, _, err := w.relsFor("")
	if err != nil {
		return err
	}
	for _, r := range rels {
		if relType(r) == "officeDocument" {
			wbPart = resolve("", r.Target)
			break
		}
	}
	if wbPart == "" || w.part(wbPart) == nil {
		switch {
		case w.part("xl/workbook.xml") != nil:
			wbPart = "xl/workbook.xml"
		case w.part("xl/workbook.bin") != nil:
			wbPart = "xl/workbook.bin"
		case wbPart != "":
			return invalidf(nil, "missing part %s (the workbook named by _rels/.rels)", wbPart)
		default:
			return invalidf(nil, "missing part xl/workbook.xml (and _rels/.rels names no workbook)")
		}
	}
	if strings.HasSuffix(strings.ToLower(wbPart), ".bin") {
		return &Error{Kind: Unsupported, Msg: "a binary workbook (.xlsb, part " + wbPart + "), not an Office Open XML one"}
	}
	wbRels, ok, err := w.relsFor(wbPart)
	if err != nil {
		return err
	}
	if !ok {
		dir, file := path.Split(wbPart)
		return invalidf(nil, "missing part %s_rels/%s.rels (the workbook's relationships, which locate its sheets)", dir, file)
	}
	byID := map[string]rel{}
	var stylesPart string
	for _, r := range wbRels {
		byID[r.ID] = r
		switch relType(r) {
		case "styles":
			stylesPart = resolve(wbPart, r.Target)
		case "sharedStrings":
			w.sstPart = resolve(wbPart, r.Target)
		}
	}
	root := true
	err = w.decode(wbPart, func(d *xml.Decoder, se xml.StartElement) error {
		if root {
			// The main part of another Office package (a .pptx or .docx
			// under a workbook's name) is no workbook with no sheets.
			root = false
			if se.Name.Local != "workbook" {
				return invalidf(nil, "part %s, the package's main part, is no workbook: its root element is %q%s", wbPart, se.Name.Local, otherOffice[se.Name.Local])
			}
		}
		switch se.Name.Local {
		case "workbookPr":
			for _, a := range se.Attr {
				if a.Name.Local == "date1904" {
					// Off only when written off: openpyxl takes any
					// other word (on, yes) as on; False too, which a
					// .NET writer's ToString gives, is off here.
					switch strings.ToLower(strings.TrimSpace(a.Value)) {
					case "", "0", "false", "f":
						w.Date1904 = false
					default:
						w.Date1904 = true
					}
				}
			}
		case "sheet":
			sh := Sheet{State: "visible", Type: "worksheet"}
			var id string
			for _, a := range se.Attr {
				switch {
				case a.Name.Local == "name" && a.Name.Space == "":
					sh.Name = a.Value
				case a.Name.Local == "state" && a.Name.Space == "":
					sh.State = a.Value
				case a.Name.Local == "id" && a.Name.Space != "":
					id = a.Value
				}
			}
			if id == "" {
				// No relationship at all: Excel writes this for an old
				// module or dialog sheet whose part it left out. It is
				// not a sheet of the file (openpyxl and POI skip it too),
				// where an id that names no relationship is a broken one.
				return nil
			}
			if r, ok := byID[id]; ok {
				sh.Part = resolve(wbPart, r.Target)
				if relType(r) == "chartsheet" {
					sh.Type = "chartsheet"
				}
			}
			w.Sheets = append(w.Sheets, sh)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if stylesPart == "" && w.part("xl/styles.xml") != nil {
		stylesPart = "xl/styles.xml"
	}
	if w.sstPart == "" && w.part("xl/sharedStrings.xml") != nil {
		w.sstPart = "xl/sharedStrings.xml"
	}
	if stylesPart != "" && w.part(stylesPart) != nil {
		if err := w.readStyles(stylesPart); err != nil {
			return err
		}
	}
	return nil
}

// readStyles decides once per cell style (cellXfs entry) whether its
// number format is a date or an elapsed time.
func (w *Workbook) readStyles(name string) error {
	custom := map[int]string{}
	var xfs []int
	inXfs, inNumFmts := false, false
	err := w.tokens(name, func(_ *xml.Decoder, tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "numFmts":
				inNumFmts = true
			case "numFmt":
				if !inNumFmts {
					// A differential format's (<dxfs>) number format does
					// not define the workbook's format of that id.
					break
				}
				id, code := -1, ""
				for _, a := range t.Attr {
					switch a.Name.Local {
					case "numFmtId":
						id, _ = strconv.Atoi(strings.TrimSpace(a.Value))
					case "formatCode":
						code = a.Value
					}
				}
				if id >= 0 {
					custom[id] = code
				}
			case "cellXfs":
				inXfs = true
			case "xf":
				if inXfs {
					id := 0
					for _, a := range t.Attr {
						if a.Name.Local == "numFmtId" {
							id, _ = strconv.Atoi(strings.TrimSpace(a.Value))
						}
					}
					xfs = append(xfs, id)
				}
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "cellXfs":
				inXfs = false
			case "numFmts":
				inNumFmts = false
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	w.styles = make([]styleInfo, len(xfs))
	for i, id := range xfs {
		f, ok := custom[id]
		if !ok {
			f, ok = builtinFormats[id]
		}
		if ok {
			w.styles[i] = styleInfo{date: isDateFormat(f), elapsed: isElapsedFormat(f)}
		}
	}
	return nil
}

// sharedString returns shared string i, reading the table only as far as
// i: a sheet that refers to its first strings (a header row of a sheet
// whose other text is written in its cells) does not pay for a table
// written for the other sheets. ok is false when the table holds no string
// i (the whole table read).
func (w *Workbook) sharedString(i int) (str string, ok bool, err error) {
	for i >= len(w.sst) && w.sstErr == nil && !w.sstDone {
		if w.sstErr = w.readSharedStrings(i + 1); w.sstErr != nil {
			w.sst = nil
			w.closeSharedStrings()
		}
	}
	if w.sstErr != nil {
		return "", false, w.sstErr
	}
	if i < len(w.sst) {
		return w.sst[i], true, nil
	}
	return "", false, nil
}

// sharedStringCount is the number of strings in the whole table.
func (w *Workbook) sharedStringCount() (int, error) {
	_, _, err := w.sharedString(math.MaxInt - 1)
	return len(w.sst), err
}

// sstReader is where reading the shared-string table stopped.
type sstReader struct {
	rc    io.ReadCloser
	s     *scanner
	tb    textBuilder
	arena textArena
	inSI  bool
	text  int64 // bytes of text held, each string rounded to its allocation
}

// textArena holds the text of many short strings in a few large arrays:
// a shared-string table of tens of thousands of words made as many
// allocations, each a small-object allocation that kept opening fresh
// spans. A string longer than arenaLarge gets its own allocation, so
// an array's unused end stays small.
type textArena struct {
	buf []byte
}

const (
	arenaChunk = 64 << 10
	arenaLarge = 4 << 10
)

// string returns b's bytes as a string that lives as long as the arena's
// arrays are referenced: its own allocation when large, else a view of an
// array nothing else writes to.
func (a *textArena) string(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > arenaLarge {
		return string(b)
	}
	if cap(a.buf)-len(a.buf) < len(b) {
		a.buf = make([]byte, 0, arenaChunk)
	}
	start := len(a.buf)
	a.buf = append(a.buf, b...)
	return unsafe.String(&a.buf[start], len(b))
}

// closeSharedStrings releases the table's reader, when one is open.
func (w *Workbook) closeSharedStrings() {
	if w.sstR != nil {
		w.sstR.rc.Close()
		w.sstR = nil
	}
}

// readSharedStrings reads the table on until it holds n strings or ends,
// within the limits: over MaxSharedStrings of text, or a table whose
// headers and text exceed the memory budget, is refused as TooLarge.
func (w *Workbook) readSharedStrings(n int) error {
	if w.sstR == nil {
		if w.sstPart == "" || w.part(w.sstPart) == nil {
			w.sstDone = true
			return nil
		}
		rc, err := w.openPart(w.sstPart)
		if err != nil {
			return err
		}
		w.sstR = &sstReader{rc: rc, s: newScanner(rc)}
	}
	r, s := w.sstR, w.sstR.s
	for len(w.sst) < n {
		k, err := s.next()
		if err != nil {
			return invalidf(err, "part %s is not well-formed XML", w.sstPart)
		}
		if k == tokEOF {
			w.sstDone = true
			w.closeSharedStrings()
			return nil
		}
		if k == tokStart && string(s.name) == "sst" {
			// The declared count sizes the table once, or refuses it before
			// reading a string when its headers alone exceed the budget.
			// A count the part is too small to hold (each string takes at
			// least 5 bytes, "<si/>") is not believed.
			n, ok := parseIndex(s.attr("uniqueCount"))
			if ok && n > 0 && uint64(n) <= w.part(w.sstPart).UncompressedSize64/5 {
				if need := int64(n) * stringHeader; need > w.lim.MaxMemory {
					return w.sstTooLarge(need, n, true)
				}
				w.sst = make([]string, 0, n)
			}
			continue
		}
		// Excel 2006 beta wrote <sstItem> where the standard has <si>.
		if k == tokStart && (string(s.name) == "si" || string(s.name) == "sstItem") {
			r.inSI = true
			r.tb.reset()
			continue
		}
		if k == tokEnd && (string(s.name) == "si" || string(s.name) == "sstItem") {
			r.inSI = false
			str := r.tb.stringIn(&r.arena)
			r.text += int64(len(str)+7) &^ 7
			if r.text > w.lim.MaxSharedStrings {
				return &Error{Kind: TooLarge, Msg: fmt.Sprintf("the shared strings of %s hold over %d bytes of text", w.sstPart, w.lim.MaxSharedStrings)}
			}
			if len(w.sst) == cap(w.sst) {
				// Growing copies the headers: old and new slices are both
				// held for a moment.
				grown := int64(cap(w.sst))*stringHeader*2 + int64(cap(w.sst)/4+1)*stringHeader
				if r.text+grown > w.lim.MaxMemory {
					return w.sstTooLarge(r.text+grown, len(w.sst), false)
				}
			}
			w.sst = append(w.sst, str)
			if mem := r.text + int64(cap(w.sst))*stringHeader; mem > w.lim.MaxMemory {
				return w.sstTooLarge(mem, len(w.sst), false)
			}
			continue
		}
		if r.inSI {
			r.tb.feed(s, k)
		}
	}
	return nil
}

// sstTooLarge is the error for a shared-string table that would hold need
// bytes, over the memory budget: declared (its uniqueCount of n strings)
// or found while reading its first n strings.
func (w *Workbook) sstTooLarge(need int64, n int, declared bool) *Error {
	how := fmt.Sprintf("after %d strings it needs over %d MiB", n, need>>20)
	if declared {
		how = fmt.Sprintf("it declares %d strings, whose headers alone take %d MiB", n, need>>20)
	}
	return &Error{Kind: TooLarge, Budget: true, Msg: fmt.Sprintf("the shared-string table %s expands far beyond the file in memory: %s, over the memory budget of %d MiB per call", w.sstPart, how, w.lim.MaxMemory>>20)}
}

// textBuilder collects the text of a string item (<si> or <is>): the plain
// <t> first, then each run's <t>, leaving out phonetic runs (<rPh>), as
// openpyxl's Text.content does.
type textBuilder struct {
	plain, runs []byte
	inR, inRPh  int
	inT         bool
	tIsRun      bool
}

func (b *textBuilder) reset() {
	b.plain, b.runs = b.plain[:0], b.runs[:0]
	b.inR, b.inRPh, b.inT = 0, 0, false
}

func (b *textBuilder) feed(s *scanner, k tokKind) {
	switch k {
	case tokStart:
		switch string(s.name) {
		case "r":
			b.inR++
		case "rPh":
			b.inRPh++
		case "t":
			if b.inRPh == 0 {
				b.inT = true
				b.tIsRun = b.inR > 0
			}
		}
	case tokEnd:
		switch string(s.name) {
		case "r":
			b.inR--
		case "rPh":
			b.inRPh--
		case "t":
			b.inT = false
		}
	case tokText:
		if b.inT {
			if b.tIsRun {
				b.runs = s.appendText(b.runs)
			} else {
				b.plain = s.appendText(b.plain)
			}
		}
	}
}

func (b *textBuilder) string() string {
	if len(b.runs) == 0 {
		return unescapeOOXML(string(b.plain))
	}
	return unescapeOOXML(string(b.plain) + string(b.runs))
}

// stringIn is string with the text kept in a: no allocation of its own
// for the common item, plain text without _xHHHH_ escapes.
func (b *textBuilder) stringIn(a *textArena) string {
	if len(b.runs) > 0 || bytes.Contains(b.plain, []byte("_x")) {
		return b.string()
	}
	return a.string(b.plain)
}

// unescapeOOXML decodes the _xHHHH_ escapes OOXML uses for characters XML
// cannot carry (_x000D_ is a carriage return); _x005F_ escapes an
// underscore that would otherwise start one.
func unescapeOOXML(s string) string {
	if !strings.Contains(s, "_x") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if r, ok := ooxmlEscape(s, i); ok {
			switch {
			case !utf16.IsSurrogate(rune(r)):
				b.WriteRune(rune(r))
				i += 7
				continue
			case r < 0xDC00:
				// A high surrogate: with the low one that follows, one
				// character outside the Basic Multilingual Plane.
				if lo, ok := ooxmlEscape(s, i+7); ok && lo >= 0xDC00 && lo <= 0xDFFF {
					b.WriteRune(utf16.DecodeRune(rune(r), rune(lo)))
					i += 14
					continue
				}
			}
			// A lone surrogate is no character: its escape stays as
			// written rather than becoming U+FFFD.
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// ooxmlEscape reads the _xHHHH_ escape at s[i:], if there is one.
func ooxmlEscape(s string, i int) (uint64, bool) {
	if i+7 > len(s) || s[i] != '_' || s[i+1] != 'x' || s[i+6] != '_' {
		return 0, false
	}
	n, err := strconv.ParseUint(s[i+2:i+6], 16, 32)
	return n, err == nil
}

// compoundFileError says what an OLE compound file is, from the names of
// the streams in its first directory sector: an encrypted OOXML package
// (EncryptionInfo, EncryptedPackage) or a legacy BIFF workbook (Workbook,
// Book). Neither can be read here.
func compoundFileError(f io.ReaderAt) *Error {
	generic := &Error{Kind: Encrypted, Msg: "password-protected or legacy .xls workbooks are not supported (the file is an OLE compound document, not a zip package)"}
	var hdr [512]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil {
		return generic
	}
	shift := binary.LittleEndian.Uint16(hdr[0x1E:])
	if shift != 9 && shift != 12 {
		return generic
	}
	size := int64(1) << shift
	dir := make([]byte, size)
	if _, err := f.ReadAt(dir, (int64(binary.LittleEndian.Uint32(hdr[0x30:]))+1)*size); err != nil {
		return generic
	}
	for e := 0; e+128 <= len(dir); e += 128 {
		n := int(binary.LittleEndian.Uint16(dir[e+0x40:]))
		if n < 2 || n > 64 {
			continue
		}
		u := make([]uint16, n/2-1)
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(dir[e+2*i:])
		}
		switch string(utf16.Decode(u)) {
		case "EncryptedPackage", "EncryptionInfo":
			return &Error{Kind: Encrypted, Msg: "the workbook is password-protected (an encrypted package): it cannot be read without its password"}
		case "Workbook", "Book":
			return &Error{Kind: Unsupported, Msg: "a legacy Excel 97-2003 workbook (.xls, BIFF format) with an OOXML name: this tool reads .xlsx/.xlsm only"}
		}
	}
	return generic
}
