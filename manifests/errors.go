package manifests

import (
	"strconv"
	"strings"
)

// Problem is one thing wrong with a manifest, located by file, line and
// field.
type Problem struct {
	// File is the manifest's path as given to Parse or ParseBytes.
	File string
	// Line is the 1-based line of the offending node, or 0 when unknown.
	Line int
	// Field is the dotted path of the offending field, such as
	// "actions[1].args[0].type", or "" for the document as a whole.
	Field string
	// Message says what is wrong and, where it helps, what is wanted.
	Message string
}

// String renders the problem as "file:line: field: message", leaving out
// the parts that are empty.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(p.Line))
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// Error is every problem found in one manifest. Parse and ParseBytes return
// it (as error) whenever a manifest is invalid; use errors.As to reach the
// list.
type Error struct {
	// File is the manifest's path.
	File string
	// Problems lists every problem, in line order.
	Problems []Problem
}

// Error joins the problems one per line.
func (e *Error) Error() string {
	if len(e.Problems) == 0 {
		return e.File + ": invalid manifest"
	}
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}
