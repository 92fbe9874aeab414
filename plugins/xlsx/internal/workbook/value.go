package workbook

import (
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
		return append(dst, pyRepr(v.Num)...)
	default:
		return append(dst, v.Text()...)
	}
}

// Float is a number that was written with a decimal point or an exponent.
// It encodes to JSON keeping that: 1.0 stays 1.0, not 1.
type Float float64

// MarshalJSON writes f as Python's repr would.
func (f Float) MarshalJSON() ([]byte, error) {
	x := float64(f)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return []byte("null"), nil
	}
	return []byte(pyRepr(x)), nil
}

// pyRepr formats x as Python's repr(float): the shortest digits that read
// back to x, exponent form below 1e-4 and from 1e16, ".0" on integral values.
func pyRepr(x float64) string {
	if x == 0 {
		if math.Signbit(x) {
			return "-0.0"
		}
		return "0.0"
	}
	s := strconv.FormatFloat(x, 'e', -1, 64)
	mant, expS, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expS)
	if exp < -4 || exp >= 16 {
		sign := "+"
		if exp < 0 {
			sign = "-"
			exp = -exp
		}
		return mant + "e" + sign + pad(int64(exp), 2)
	}
	s = strconv.FormatFloat(x, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// Float64 returns a number's value as a float64 (0 for other kinds).
func (v Value) Float64() float64 {
	if v.Kind == KindInt && v.Str == "" {
		return float64(v.Int)
	}
	return v.Num
}
