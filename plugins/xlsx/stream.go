package main

import (
	"bytes"
	"encoding/json"
	"io"
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
type objectWriter struct {
	w       io.Writer
	err     error
	members int
	items   int
	scratch []byte
}

func (o *objectWriter) raw(b []byte) {
	if o.err == nil {
		_, o.err = o.w.Write(b)
	}
}

// key starts a member.
func (o *objectWriter) key(k string) {
	b := o.scratch[:0]
	if o.members == 0 {
		b = append(b, "{\n  "...)
	} else {
		b = append(b, ",\n  "...)
	}
	o.members++
	b = workbook.AppendJSONString(b, k)
	o.scratch = append(b, ": "...)
	o.raw(o.scratch)
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

// openArray starts an array member whose items follow with item.
func (o *objectWriter) openArray(k string) {
	o.key(k)
	o.items = 0
	o.raw([]byte("["))
}

// item writes one array item, already JSON.
func (o *objectWriter) item(b []byte) {
	if o.items == 0 {
		o.raw([]byte("\n    "))
	} else {
		o.raw([]byte(",\n    "))
	}
	o.items++
	o.raw(b)
}

// closeArray ends the array.
func (o *objectWriter) closeArray() {
	if o.items > 0 {
		o.raw([]byte("\n  ]"))
	} else {
		o.raw([]byte("]"))
	}
}

// close ends the object and returns the first error.
func (o *objectWriter) close() error {
	if o.members == 0 {
		o.raw([]byte("{}"))
	} else {
		o.raw([]byte("\n}"))
	}
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
	for _, k := range []string{"uncached_formulas", "next_step"} {
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
