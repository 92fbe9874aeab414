// Package jsonscan reads chosen fields out of one JSON value without decoding
// the rest: values that are not asked for are skipped byte-wise (a string is
// skipped by searching for its closing quote), so a log line carrying
// megabytes of message content costs a scan, not an allocation.
package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
)

// ErrSyntax reports a value that is not well-formed JSON.
var ErrSyntax = errors.New("jsonscan: malformed JSON")

// Fields calls fn with each key and raw value of the JSON object b, in order.
// The key is raw (its escapes are not decoded); fn returns false to stop
// early. It fails with ErrSyntax when b is not one well-formed object.
func Fields(b []byte, fn func(key, val []byte) bool) error {
	i, more, err := openAt(b, 0, '{', '}')
	if !more {
		return err
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return ErrSyntax
		}
		ke, err := skipString(b, i)
		if err != nil {
			return err
		}
		key := b[i+1 : ke-1]
		i = skipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return ErrSyntax
		}
		i = skipWS(b, i+1)
		ve, err := skipValue(b, i)
		if err != nil {
			return err
		}
		if !fn(key, b[i:ve]) {
			return nil
		}
		var done bool
		if i, _, done, err = nextAt(b, ve, '}'); done {
			return err
		}
	}
}

// Elements calls fn with each raw element of the JSON array b.
func Elements(b []byte, fn func(val []byte) bool) error {
	i, more, err := openAt(b, 0, '[', ']')
	if !more {
		return err
	}
	for {
		ve, err := skipValue(b, i)
		if err != nil {
			return err
		}
		if !fn(b[i:ve]) {
			return nil
		}
		var done bool
		if i, _, done, err = nextAt(b, ve, ']'); done {
			return err
		}
	}
}

// Valid reports whether b is exactly one well-formed JSON value (with
// surrounding whitespace allowed).
func Valid(b []byte) bool {
	i := skipWS(b, 0)
	e, err := skipValue(b, i)
	return err == nil && skipWS(b, e) == len(b)
}

// String decodes a raw JSON string value; ok is false for any other value.
func String(val []byte) (s string, ok bool) {
	if len(val) < 2 || val[0] != '"' {
		return "", false
	}
	inner := val[1 : len(val)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner), true
	}
	if err := json.Unmarshal(val, &s); err != nil {
		return "", false
	}
	return s, true
}

// Int decodes a raw JSON number as an int64; null and non-numbers give 0,
// false. A fractional number is truncated.
func Int(val []byte) (int64, bool) {
	if len(val) == 0 {
		return 0, false
	}
	var n int64
	neg := false
	i := 0
	if val[0] == '-' {
		neg = true
		i = 1
	}
	start := i
	for ; i < len(val); i++ {
		c := val[i]
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int64(c-'0')
	}
	if i == start {
		return 0, false
	}
	if i < len(val) {
		f, err := strconv.ParseFloat(string(val), 64)
		if err != nil {
			return 0, false
		}
		return int64(f), true
	}
	if neg {
		n = -n
	}
	return n, true
}

// Bool decodes a raw JSON boolean.
func Bool(val []byte) bool { return len(val) == 4 && string(val) == "true" }

func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just past the string starting at b[i] == '"'.
func skipString(b []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, ErrSyntax
		}
		q := j + k
		// Count the backslashes before the quote: an odd number escapes it.
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
}

// skipValue returns the index just past the value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, ErrSyntax
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{' || c == '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e, err := skipString(b, j)
				if err != nil {
					return 0, err
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, ErrSyntax
	case c == 't':
		return lit(b, i, "true")
	case c == 'f':
		return lit(b, i, "false")
	case c == 'n':
		return lit(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		j := i + 1
		for j < len(b) {
			d := b[j]
			if (d >= '0' && d <= '9') || d == '.' || d == 'e' || d == 'E' || d == '+' || d == '-' {
				j++
				continue
			}
			break
		}
		return j, nil
	default:
		return 0, ErrSyntax
	}
}

func lit(b []byte, i int, s string) (int, error) {
	if len(b)-i < len(s) || string(b[i:i+len(s)]) != s {
		return 0, ErrSyntax
	}
	return i + len(s), nil
}

// Dec walks one JSON value in a single pass. Inside Object and Array
// callbacks the caller reads the current value with Raw, Object or Array;
// a value the callback does not read is skipped. The first error stops the
// walk and stays in Err.
type Dec struct {
	B   []byte
	I   int
	Err error
}

// Raw returns the current value's raw bytes and moves past it.
func (d *Dec) Raw() []byte {
	if d.Err != nil {
		return nil
	}
	i := skipWS(d.B, d.I)
	e, err := skipValue(d.B, i)
	if err != nil {
		d.Err = err
		return nil
	}
	d.I = e
	return d.B[i:e]
}

// Peek returns the first byte of the current value (0 at the end).
func (d *Dec) Peek() byte {
	i := skipWS(d.B, d.I)
	if i >= len(d.B) {
		return 0
	}
	return d.B[i]
}

// Object calls fn with each key of the current object value.
func (d *Dec) Object(fn func(key []byte)) {
	i, more := d.open('{', '}')
	if !more {
		return
	}
	b := d.B
	for {
		if i >= len(b) || b[i] != '"' {
			d.Err = ErrSyntax
			return
		}
		ke, err := skipString(b, i)
		if err != nil {
			d.Err = err
			return
		}
		key := b[i+1 : ke-1]
		i = skipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			d.Err = ErrSyntax
			return
		}
		i = skipWS(b, i+1)
		d.I = i
		fn(key)
		if d.Err != nil {
			return
		}
		var done bool
		if i, done = d.afterValue(i, '}'); done {
			return
		}
	}
}

// open reads the opening byte of the current value, which must be opening,
// and returns where its first member or element starts; more is false for
// an empty value (then read whole) and on an error (in d.Err).
func (d *Dec) open(opening, closing byte) (start int, more bool) {
	if d.Err != nil {
		return 0, false
	}
	start, more, d.Err = openAt(d.B, d.I, opening, closing)
	if !more && d.Err == nil {
		d.I = start
	}
	return start, more
}

// openAt reads, from b[from:] past white space, the opening byte of an
// object or array. more says a first member or element starts at start;
// otherwise the value is empty (start is just past its closing byte) or
// malformed (err).
func openAt(b []byte, from int, opening, closing byte) (start int, more bool, err error) {
	i := skipWS(b, from)
	if i >= len(b) || b[i] != opening {
		return 0, false, ErrSyntax
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == closing {
		return i + 1, false, nil
	}
	return i, true, nil
}

// nextAt reads, from b[end:] past white space, what follows a member or
// element: a comma (the next one starts at next) or the closing byte
// (done, with end just past it); anything else is malformed (done, err).
func nextAt(b []byte, end int, closing byte) (next, after int, done bool, err error) {
	i := skipWS(b, end)
	switch {
	case i >= len(b):
		return 0, 0, true, ErrSyntax
	case b[i] == ',':
		return skipWS(b, i+1), 0, false, nil
	case b[i] == closing:
		return 0, i + 1, true, nil
	}
	return 0, 0, true, ErrSyntax
}

// afterValue ends one member or element that started at start: it skips
// the value when fn left it unread, then reads the separator. It returns the
// next value's start, or done at the closing byte or on an error (in d.Err).
func (d *Dec) afterValue(start int, closing byte) (next int, done bool) {
	if d.I == start {
		d.Raw()
		if d.Err != nil {
			return 0, true
		}
	}
	next, after, done, err := nextAt(d.B, d.I, closing)
	if err != nil {
		d.Err = err
	} else if done {
		d.I = after
	}
	return next, done
}

// Array calls fn once per element of the current array value; fn reads the
// element (or leaves it to be skipped).
func (d *Dec) Array(fn func()) {
	i, more := d.open('[', ']')
	if !more {
		return
	}
	for {
		d.I = i
		fn()
		if d.Err != nil {
			return
		}
		var done bool
		if i, done = d.afterValue(i, ']'); done {
			return
		}
	}
}

// Walk iterates the object that starts at b[i] ('{'). For each key it calls
// fn with the key and the index where the value starts; fn returns the
// index just past the value when it read the value itself, or -1 to have
// Walk skip it, and whether to go on. Walk returns the index just past the
// object, or, when fn stopped it, the index where the stopping value
// starts.
func Walk(b []byte, i int, fn func(key []byte, v int) (end int, more bool)) (int, error) {
	i = skipWS(b, i)
	if i >= len(b) || b[i] != '{' {
		return 0, ErrSyntax
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, ErrSyntax
		}
		ke, err := skipString(b, i)
		if err != nil {
			return 0, err
		}
		key := b[i+1 : ke-1]
		i = skipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return 0, ErrSyntax
		}
		v := skipWS(b, i+1)
		end, more := fn(key, v)
		if !more {
			return v, nil
		}
		if end < 0 {
			if end, err = skipValue(b, v); err != nil {
				return 0, err
			}
		}
		i = skipWS(b, end)
		if i >= len(b) {
			return 0, ErrSyntax
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return i + 1, nil
		default:
			return 0, ErrSyntax
		}
	}
}

// ValueEnd returns the index just past the value starting at b[i].
func ValueEnd(b []byte, i int) (int, error) { return skipValue(b, skipWS(b, i)) }
