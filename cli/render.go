package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/toolhost/toolhost/cli/table"
	"github.com/toolhost/toolhost/sdk/wire"
)

// maxCell is the most of a value a table cell prints, in runes; a longer
// value ends at a word with "…" (--json prints it whole).
const maxCell = 160

// ANSI emphasis used when Term.Color allows it.
const (
	ansiBold  = "\x1b[1m"
	ansiRed   = "\x1b[31m"
	ansiDim   = "\x1b[2m"
	ansiReset = "\x1b[0m"
)

// markdown renders md for the terminal through t.Markdown, at most 120
// columns wide; without a renderer it is printed as written.
func (t *Term) markdown(md string) (string, error) {
	if t.Markdown == nil {
		return md + "\n", nil
	}
	width := t.Width
	if width > 120 {
		width = 120
	}
	return t.Markdown(md, width, t.Color, t.Dumb)
}

// emph wraps s in an ANSI sequence when colour is allowed.
func (t *Term) emph(code, s string) string {
	if !t.Color {
		return s
	}
	return code + s + ansiReset
}

// renderError is an error envelope as sentences: the message, what was
// probably meant, and the next step in this front end's words.
func (t *Term) renderError(w io.Writer, e *wire.Error) {
	fmt.Fprintf(w, "%s %s\n", t.emph(ansiBold+ansiRed, "error:"), e.Message)
	if len(e.DidYouMean) > 0 {
		fmt.Fprintf(w, "  did you mean: %s\n", strings.Join(e.DidYouMean, ", "))
	}
	next := e.NextStep
	if e.Next != nil && t.Words != nil {
		next = t.Words(e.Next)
	}
	if next != "" {
		fmt.Fprintf(w, "  next: %s\n", next)
	}
	fmt.Fprintf(w, "  %s\n", t.emph(ansiDim, "("+string(e.Code)+")"))
}

// renderJSON prints a JSON result for a person: an object as aligned
// "key  value" lines, an array of objects as a table, a string with line
// breaks as its lines, nested values indented.
func (t *Term) renderJSON(w io.Writer, raw []byte) error {
	v, err := decodeOrdered(raw)
	if err != nil {
		return fmt.Errorf("cli: read the result: %w", err)
	}
	t.value(w, v, "")
	return nil
}

// value prints v at the given indent.
func (t *Term) value(w io.Writer, v any, indent string) {
	switch x := v.(type) {
	case *object:
		t.object(w, x, indent)
	case []any:
		if rows, ok := objectRows(x); ok {
			t.table(w, rows, indent)
			return
		}
		if isGrid(x) {
			grid(w, x, indent, t.Width)
			return
		}
		for _, e := range x {
			if isScalar(e) {
				fmt.Fprintf(w, "%s- %s\n", indent, scalar(e))
				continue
			}
			fmt.Fprintf(w, "%s-\n", indent)
			t.value(w, e, indent+"  ")
		}
	default:
		fmt.Fprintf(w, "%s%s\n", indent, strings.ReplaceAll(scalar(x), "\n", "\n"+indent))
	}
}

// object prints the scalar fields aligned, then each nested field under
// its key.
func (t *Term) object(w io.Writer, o *object, indent string) {
	fields := table.Table{Indent: indent, Width: t.Width, Whole: true}
	for i, k := range o.keys {
		v := o.vals[i]
		if s, ok := v.(string); ok && strings.Contains(s, "\n") {
			continue
		}
		if isScalar(v) || isScalarList(v) {
			fields.Rows = append(fields.Rows, []string{t.emph(ansiBold, k), oneLineValue(v)})
		}
	}
	_ = fields.Fprint(w)
	for i, k := range o.keys {
		v := o.vals[i]
		if s, ok := v.(string); ok && strings.Contains(s, "\n") {
			fmt.Fprintf(w, "%s%s\n", indent, t.emph(ansiBold, k))
			fmt.Fprintf(w, "%s%s\n", indent+"  ", strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+indent+"  "))
			continue
		}
		if isScalar(v) || isScalarList(v) {
			continue
		}
		fmt.Fprintf(w, "%s%s\n", indent, t.emph(ansiBold, k))
		t.value(w, v, indent+"  ")
	}
}

// table prints rows of objects with a column per key, in first-seen order.
func (t *Term) table(w io.Writer, rows []*object, indent string) {
	var cols []string
	seen := map[string]bool{}
	for _, r := range rows {
		for _, k := range r.keys {
			if !seen[k] {
				seen[k] = true
				cols = append(cols, k)
			}
		}
	}
	tab := table.Table{Header: make([]string, len(cols)), Indent: indent, Width: t.Width, Stack: true}
	for i, c := range cols {
		tab.Header[i] = strings.ToUpper(c)
	}
	for _, r := range rows {
		cells := make([]string, len(cols))
		for i, c := range cols {
			if v, ok := r.get(c); ok {
				cells[i] = cutWords(oneLineValue(v), maxCell)
			}
		}
		tab.Rows = append(tab.Rows, cells)
	}
	_ = tab.Fprint(w)
}

// isGrid reports whether a is rows of scalars (a sheet's 2D array).
func isGrid(a []any) bool {
	if len(a) == 0 {
		return false
	}
	for _, r := range a {
		if row, ok := r.([]any); !ok || !isScalarList(row) {
			return false
		}
	}
	return true
}

// grid prints rows of scalars as aligned columns.
func grid(w io.Writer, rows []any, indent string, width int) {
	tab := table.Table{Indent: indent, Width: width}
	for _, r := range rows {
		row := r.([]any)
		cells := make([]string, len(row))
		for i, v := range row {
			cells[i] = cutWords(strings.ReplaceAll(scalar(v), "\n", " "), maxCell)
		}
		tab.Rows = append(tab.Rows, cells)
	}
	_ = tab.Fprint(w)
}

// objectRows is a as rows when every element is an object.
func objectRows(a []any) ([]*object, bool) {
	if len(a) == 0 {
		return nil, false
	}
	rows := make([]*object, 0, len(a))
	for _, e := range a {
		o, ok := e.(*object)
		if !ok {
			return nil, false
		}
		rows = append(rows, o)
	}
	return rows, true
}

func isScalar(v any) bool {
	switch v.(type) {
	case *object, []any:
		return false
	}
	return true
}

func isScalarList(v any) bool {
	a, ok := v.([]any)
	if !ok {
		return false
	}
	for _, e := range a {
		if !isScalar(e) {
			return false
		}
	}
	return true
}

// oneLineValue is a scalar, or a list of scalars joined by commas, or a
// nested value as compact JSON, on one line.
func oneLineValue(v any) string {
	switch x := v.(type) {
	case []any:
		if len(x) == 0 {
			return "(none)"
		}
		if isScalarList(x) {
			parts := make([]string, len(x))
			for i, e := range x {
				parts[i] = scalar(e)
			}
			return strings.Join(parts, ", ")
		}
	case *object:
	default:
		return strings.ReplaceAll(scalar(x), "\n", " ")
	}
	var b bytes.Buffer
	writeCompact(&b, v)
	return b.String()
}

// scalar is a JSON scalar as text: a string as itself, null as "-".
func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return "-"
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	var b bytes.Buffer
	writeCompact(&b, v)
	return b.String()
}

// object is a JSON object with its keys in the order they came.
type object struct {
	keys []string
	vals []any
}

func (o *object) get(k string) (any, bool) {
	for i, kk := range o.keys {
		if kk == k {
			return o.vals[i], true
		}
	}
	return nil, false
}

// decodeOrdered decodes one JSON value, objects as *object (key order
// kept), numbers as json.Number.
func decodeOrdered(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch d := tok.(type) {
	case json.Delim:
		switch d {
		case '{':
			o := &object{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o.keys = append(o.keys, kt.(string))
				o.vals = append(o.vals, v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
	}
	return tok, nil
}

// writeCompact writes a decoded value back as compact JSON.
func writeCompact(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case *object:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			writeCompact(b, x.vals[i])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCompact(b, e)
		}
		b.WriteByte(']')
	default:
		eb, _ := json.Marshal(x)
		b.Write(eb)
	}
}
