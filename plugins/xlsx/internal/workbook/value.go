package workbook

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// ValueKind says what a cell holds.
type ValueKind uint8

// The kinds of cell value.
const (
	// KindEmpty is a cell with no value (absent, or a formula with no
	// cached result).
	KindEmpty ValueKind = iota
	// KindInt is a number written without a decimal point or exponent:
	// in Int, or when it does not fit 64 bits, its digits in Str and its
	// magnitude in Num.
	KindInt
	// KindFloat is a number written with a decimal point or exponent.
	KindFloat
	// KindString is text: shared, inline or a formula's string result.
	KindString
	// KindBool is TRUE or FALSE.
	KindBool
	// KindError is an error value such as #DIV/0!.
	KindError
	// KindDateTime is a date-formatted number or ISO cell, as ISO-8601.
	KindDateTime
	// KindDate is an ISO date-only cell (t="d").
	KindDate
	// KindTime is a time of day, HH:MM:SS[.ffffff].
	KindTime
	// KindDuration is an elapsed time ([h]:mm:ss formats), ISO-8601
	// duration in Str and seconds in Num.
	KindDuration
)

// String names the kind as describe reports it.
func (k ValueKind) String() string {
	return [...]string{"empty", "integer", "number", "string", "boolean", "error",
		"datetime", "date", "time", "duration"}[k]
}

// Value is one cell's value.
type Value struct {
	Kind ValueKind
	Int  int64
	Num  float64
	Str  string
	Bool bool
}

// IsEmpty reports whether the cell has no value. An empty string is a value,
// as in openpyxl.
func (v Value) IsEmpty() bool { return v.Kind == KindEmpty }

// Owned returns the value with its own copy of its text, for keeping a
// value streamed with StreamOptions.Borrow.
func (v Value) Owned() Value {
	v.Str = strings.Clone(v.Str)
	return v
}

// JSON returns the value for encoding/json: nil, int64, Float, string or
// bool. Dates, times, durations and errors are strings.
func (v Value) JSON() any {
	switch v.Kind {
	case KindEmpty:
		return nil
	case KindInt:
		if v.Str != "" {
			return json.Number(v.Str)
		}
		return v.Int
	case KindFloat:
		return Float(v.Num)
	case KindBool:
		return v.Bool
	default:
		return v.Str
	}
}

// Text renders the value for text output (dump, search): numbers as Python
// prints them, booleans as TRUE and FALSE, empty as "".
func (v Value) Text() string {
	switch v.Kind {
	case KindEmpty:
		return ""
	case KindInt:
		if v.Str != "" {
			return v.Str
		}
		return strconv.FormatInt(v.Int, 10)
	case KindFloat:
		return pyRepr(v.Num)
	case KindBool:
		if v.Bool {
			return "TRUE"
		}
		return "FALSE"
	default:
		return v.Str
	}
}

// AppendText appends Text() to dst without allocating for numbers.
func (v Value) AppendText(dst []byte) []byte {
	switch v.Kind {
	case KindInt:
		if v.Str != "" {
			return append(dst, v.Str...)
		}
		return strconv.AppendInt(dst, v.Int, 10)
	case KindFloat:
		return appendPyRepr(dst, v.Num)
	default:
		return append(dst, v.Text()...)
	}
}

// Float is a number that was written with a decimal point or an exponent.
// It encodes to JSON keeping that: 1.0 stays 1.0, not 1.
type Float float64

// MarshalJSON writes f as Python's repr would.
func (f Float) MarshalJSON() ([]byte, error) {
	return appendFloatJSON(nil, float64(f)), nil
}

// appendFloatJSON appends x as Python's repr, null for NaN and infinities.
func appendFloatJSON(dst []byte, x float64) []byte {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return append(dst, "null"...)
	}
	return appendPyRepr(dst, x)
}

// pyRepr formats x as Python's repr(float).
func pyRepr(x float64) string { return string(appendPyRepr(nil, x)) }

// appendPyRepr appends x as Python's repr(float): the shortest digits that
// read back to x, exponent form below 1e-4 and from 1e16, ".0" on integral
// values. The digits are found once, in exponent form, and moved about
// the point for the plain form.
func appendPyRepr(dst []byte, x float64) []byte {
	if x == 0 {
		if math.Signbit(x) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	var buf [32]byte
	s := strconv.AppendFloat(buf[:0], x, 'e', -1, 64) // -d.ddde±dd
	if s[0] == '-' {
		dst = append(dst, '-')
		s = s[1:]
	}
	e := bytes.IndexByte(s, 'e')
	mant, expS := s[:e], s[e+1:]
	exp := 0
	for _, c := range expS[1:] {
		exp = exp*10 + int(c-'0')
	}
	if expS[0] == '-' {
		exp = -exp
	}
	if exp < -4 || exp >= 16 {
		return append(append(dst, mant...), s[e:]...)
	}
	// The significant digits, without the point after the first.
	var d [24]byte
	digits := append(d[:0], mant[0])
	if len(mant) > 2 {
		digits = append(digits, mant[2:]...)
	}
	switch {
	case exp < 0:
		dst = append(dst, "0."...)
		for range -exp - 1 {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	case len(digits) <= exp+1:
		dst = append(dst, digits...)
		for range exp + 1 - len(digits) {
			dst = append(dst, '0')
		}
		return append(dst, ".0"...)
	default:
		dst = append(dst, digits[:exp+1]...)
		dst = append(dst, '.')
		return append(dst, digits[exp+1:]...)
	}
}

// Float64 returns a number's value as a float64 (0 for other kinds).
func (v Value) Float64() float64 {
	if v.Kind == KindInt && v.Str == "" {
		return float64(v.Int)
	}
	return v.Num
}
