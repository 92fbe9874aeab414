package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"sync"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"
	"github.com/toolhost/toolhost/sdk"
)

// streamed is a result written while its sheet is read (sdk.JSONWriter):
// in CLI mode straight to stdout, through the host once into the result's
// bytes, so a whole sheet is never held as JSON. write runs with the
// workbook open and the call's reader slot held; both are released when it
// ends (the SDK calls WriteJSON once for every result).
type streamed struct {
	write func(w io.Writer) error
	mu    sync.Mutex
	done  []func()
}

// newStreamed returns a result that writes with write and then closes wb.
func newStreamed(wb *workbook.Workbook, write func(w io.Writer) error) *streamed {
	return &streamed{write: write, done: []func(){func() { wb.Close() }}}
}

// onDone adds f to what runs once the result is written.
func (s *streamed) onDone(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = append(s.done, f)
}

// WriteJSON writes the result and releases what it holds.
func (s *streamed) WriteJSON(w io.Writer) error {
	defer func() {
		s.mu.Lock()
		done := s.done
		s.done = nil
		s.mu.Unlock()
		for _, f := range done {
			f()
		}
	}()
	return s.write(w)
}

// MarshalJSON writes the result into memory, for callers that encode the
// data themselves.
func (s *streamed) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := s.WriteJSON(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// objectWriter writes a JSON object a member at a time, one member per
// line (a row per line inside a streamed array), tracking the first error.
// What it writes collects in buf and goes to w in pieces of flushAt bytes
// or more: a piece that large passes a bufio.Writer of that size (CLI
// mode's stdout) without a copy, and an array item is appended straight
// into buf (beginItem/endItem) rather than built apart and copied.
type objectWriter struct {
	w       io.Writer
	err     error
	members int
	items   int
	buf     []byte
}

// flushAt is how much output objectWriter holds before writing it.
const flushAt = 256 << 10

// newObjectWriter returns an objectWriter to w whose buffer is made once at
// its working size (flushAt and room for the row that crosses it). Grown
// by append from empty, it would go through a dozen arrays on the way to
// flushAt, each fresh memory to fault in.
func newObjectWriter(w io.Writer) *objectWriter {
	return &objectWriter{w: w, buf: make([]byte, 0, flushAt+flushAt/4)}
}

func (o *objectWriter) raw(b []byte) {
	o.buf = append(o.buf, b...)
	o.flushFull()
}

// flushFull writes the held output once it reaches flushAt.
func (o *objectWriter) flushFull() {
	if len(o.buf) >= flushAt {
		o.flush()
	}
}

// flush writes the held output.
func (o *objectWriter) flush() {
	if o.err == nil && len(o.buf) > 0 {
		_, o.err = o.w.Write(o.buf)
	}
	o.buf = o.buf[:0]
}

// key starts a member.
func (o *objectWriter) key(k string) {
	if o.members == 0 {
		o.buf = append(o.buf, "{\n  "...)
	} else {
		o.buf = append(o.buf, ",\n  "...)
	}
	o.members++
	o.buf = workbook.AppendJSONString(o.buf, k)
	o.buf = append(o.buf, ": "...)
}

// member writes a whole member, v encoded by encoding/json.
func (o *objectWriter) member(k string, v any) {
	o.key(k)
	b, err := json.Marshal(v)
	if err != nil && o.err == nil {
		o.err = err
	}
	o.raw(b)
}

// memberInts writes a member whose value is a list of integers, as
// encoding/json would (a records call's row_numbers: a number per row).
func (o *objectWriter) memberInts(k string, v []int) {
	o.key(k)
	o.buf = append(o.buf, '[')
	for i, n := range v {
		if i > 0 {
			o.buf = append(o.buf, ',')
		}
		o.buf = strconv.AppendInt(o.buf, int64(n), 10)
	}
	o.buf = append(o.buf, ']')
	o.flushFull()
}

// openArray starts an array member whose items follow (beginItem).
func (o *objectWriter) openArray(k string) {
	o.key(k)
	o.items = 0
	o.buf = append(o.buf, '[')
}

// beginItem starts an array item: it appends the separator to buf and
// returns buf's length before it. The caller appends the item's JSON to
// o.buf, then calls endItem, or dropItem with the mark to take it back.
func (o *objectWriter) beginItem() (mark int) {
	mark = len(o.buf)
	if o.items == 0 {
		o.buf = append(o.buf, "\n    "...)
	} else {
		o.buf = append(o.buf, ",\n    "...)
	}
	return mark
}

// endItem counts the item appended since beginItem.
func (o *objectWriter) endItem() {
	o.items++
	o.flushFull()
}

// dropItem takes back what was appended since beginItem returned mark.
func (o *objectWriter) dropItem(mark int) { o.buf = o.buf[:mark] }

// closeArray ends the array.
func (o *objectWriter) closeArray() {
	if o.items > 0 {
		o.buf = append(o.buf, "\n  ]"...)
	} else {
		o.buf = append(o.buf, ']')
	}
}

// close ends the object, writes what is held and returns the first error.
func (o *objectWriter) close() error {
	if o.members == 0 {
		o.buf = append(o.buf, "{}"...)
	} else {
		o.buf = append(o.buf, "\n}"...)
	}
	o.flush()
	return o.err
}

// notes writes uncachedNote's members; nextStep, when given, is the
// next_step instead.
func (o *objectWriter) notes(st workbook.Stats, formulasAsked bool, nextStep string) {
	m := map[string]any{}
	uncachedNote(m, st, formulasAsked)
	if nextStep != "" {
		m["next_step"] = nextStep
	}
	for _, k := range []string{"computed_formulas", "uncached_formulas", "next_step"} {
		if v, ok := m[k]; ok {
			o.member(k, v)
		}
	}
}

// itemOverhead is what item adds to a row's bytes.
const itemOverhead = 6

// cliBudgetPerResult and cliBudgetMin size the byte budget of a call that
// gives none (CLI mode): max-results asks for rows, not for megabytes, so
// a few rows of a sheet of huge strings stay a few rows' worth of text.
const (
	cliBudgetPerResult = 4 << 10
	cliBudgetMin       = 1 << 20
)

// newBudgetFor is newBudget for an action paged by max-results: without a
// caller budget, the CLI budget for maxResults.
func newBudgetFor(req *sdk.Request, overhead, maxResults int) *budget {
	b := newBudget(req, overhead)
	if b.limit == 0 {
		b.limit = max(cliBudgetMin, min(maxResults, 1<<40/cliBudgetPerResult)*cliBudgetPerResult)
	}
	return b
}
