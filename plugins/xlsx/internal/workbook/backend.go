package workbook

import (
	"archive/zip"
	"context"
	"fmt"
	"os"
	"strings"
)

// Backend reads the cells of a workbook in another format (.xls, .ods,
// .xlsb), each in its own package, so the actions read it through the same
// Workbook, Sheet, Row and Stats as an .xlsx workbook.
type Backend interface {
	// Stream reads one of the workbook's worksheets as Workbook.Stream does.
	Stream(ctx context.Context, sh *Sheet, opt *StreamOptions, fn func(Row) error) (Stats, error)
	// Close releases what the backend holds (its file).
	Close() error
}

// MergeLister is a Backend that lists a sheet's merged ranges, so a header
// spread over merged cells reads as one label per column.
type MergeLister interface {
	// MergedRanges returns the refs ("A1:C2") of a sheet's merged ranges.
	MergedRanges(ctx context.Context, sh *Sheet) ([]string, error)
}

// StreamMerges lists a sheet's merged ranges by reading it through b
// without building values, for a backend whose Stream reports them to
// StreamOptions.Merge.
func StreamMerges(ctx context.Context, b Backend, sh *Sheet) ([]string, error) {
	var refs []string
	_, err := b.Stream(ctx, sh, &StreamOptions{StatsOnly: true, Merge: func(ref string) { refs = append(refs, ref) }},
		func(Row) error { return nil })
	return refs, err
}

// FromBackend returns a Workbook whose sheets are read by b. Its sheets
// need no Part; chartsheets are streamed as empty without asking b.
func FromBackend(b Backend, sheets []Sheet, date1904 bool) *Workbook {
	return &Workbook{backend: b, Sheets: sheets, Date1904: date1904}
}

// Signature reports which family of file f holds, from its first bytes:
// "cfb" (an OLE compound file: a legacy .xls or an encrypted package),
// "zip", or "" for anything else.
func Signature(f *os.File) string {
	var head [8]byte
	n, _ := f.ReadAt(head[:], 0)
	switch {
	case n == 8 && string(head[:]) == string(cfbSignature):
		return "cfb"
	case n >= 4 && string(head[:4]) == "PK\x03\x04":
		return "zip"
	}
	return ""
}

// SerialValue converts a serial number shown in a date, time or elapsed
// format to its value, as for an .xlsx cell (see the package README).
func SerialValue(v float64, date1904, elapsed bool) Value {
	return serialToValue(v, date1904, elapsed)
}

// FormatKind reports whether a number format shows a date or time, and
// whether an elapsed time ([h]:mm:ss), by the rule .xlsx styles are read
// by, and also for a format of one date letter ("d", "h"), which Excel
// shows as a day or an hour but openpyxl's rule, looking for a letter after
// another character, misses (.xlsx keeps openpyxl's reading, its oracle).
func FormatKind(format string) (date, elapsed bool) {
	f := strings.TrimSpace(format)
	single := len(f) == 1 && strings.IndexByte("dmhysDMHYS", f[0]) >= 0
	return single || isDateFormat(format), isElapsedFormat(format)
}

// BuiltinFormat returns the number format Excel means by a built-in id.
func BuiltinFormat(id int) (string, bool) {
	f, ok := builtinFormats[id]
	return f, ok
}

// CompoundFileError says why an OLE compound file that
// holds no workbook stream cannot be read: encrypted, or unknown.
func CompoundFileError(f *os.File) *Error { return compoundFileError(f) }

// WithDefaults returns the limits with each unset field at its default; l
// may be nil.
func (l *Limits) WithDefaults() Limits { return l.withDefaults() }

// CheckZip refuses a zip package whose parts claim to decompress past the
// limits (one part's size, the total, or a part's ratio to its compressed
// size: a likely zip bomb), before any part is inflated. l is a Limits
// with its defaults set (WithDefaults).
func (l Limits) CheckZip(zr *zip.Reader) *Error {
	var total uint64
	for _, zf := range zr.File {
		name := strings.TrimPrefix(strings.ReplaceAll(zf.Name, `\`, "/"), "/")
		total += zf.UncompressedSize64
		if zf.UncompressedSize64 > uint64(l.MaxPartSize) {
			return &Error{Kind: TooLarge, Msg: fmt.Sprintf("part %s decompresses to %d bytes, over the %d-byte limit", name, zf.UncompressedSize64, l.MaxPartSize)}
		}
		if zf.UncompressedSize64 > 1<<20 && zf.UncompressedSize64 > uint64(l.MaxRatio)*max(zf.CompressedSize64, 1) {
			return &Error{Kind: TooLarge, Msg: fmt.Sprintf("part %s decompresses %d times its size (%d bytes), over the ratio limit of %d: refusing a likely zip bomb", name, zf.UncompressedSize64/max(zf.CompressedSize64, 1), zf.UncompressedSize64, l.MaxRatio)}
		}
	}
	if total > uint64(l.MaxTotalSize) {
		return &Error{Kind: TooLarge, Msg: fmt.Sprintf("the package decompresses to %d bytes, over the %d-byte limit", total, l.MaxTotalSize)}
	}
	return nil
}
