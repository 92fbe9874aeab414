package workbook

import "fmt"

// Kind classifies why a workbook could not be read.
type Kind int

// The kinds of Error.
const (
	// Invalid means the file is not a readable OOXML workbook: not a zip,
	// truncated, or missing a part it needs.
	Invalid Kind = iota + 1
	// Encrypted means the file is an OLE compound document: a
	// password-protected workbook or a legacy .xls file.
	Encrypted
	// TooLarge means a part decompresses beyond the configured limits (a
	// zip bomb, or simply too big to read).
	TooLarge
	// Unsupported means the file is a workbook of another format under an
	// OOXML name: a legacy .xls (BIFF) or a binary .xlsb.
	Unsupported
)

// Error is a failure to read a workbook, with its Kind.
type Error struct {
	Kind Kind
	// Msg says what is wrong, naming the part when there is one.
	Msg string
	// Err is the underlying error, if any.
	Err error
	// Budget is true for a TooLarge that the memory budget
	// (Limits.MaxMemory) refused, which a larger budget would read.
	Budget bool
}

// Error returns the message and the underlying error.
func (e *Error) Error() string {
	if e.Err != nil {
		return "workbook: " + e.Msg + ": " + e.Err.Error()
	}
	return "workbook: " + e.Msg
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

func invalidf(err error, format string, a ...any) *Error {
	return &Error{Kind: Invalid, Msg: fmt.Sprintf(format, a...), Err: err}
}
