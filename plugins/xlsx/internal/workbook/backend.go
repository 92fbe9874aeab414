package workbook

import (
	"context"
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
