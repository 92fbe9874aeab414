package formula

import (
	"math"
	"strconv"
	"strings"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"
)

type kind uint8

const (
	vEmpty kind = iota
	vNum
	vStr
	vBool
	vErr
)

// value is one scalar: a number, text, a boolean, an error or nothing.
type value struct {
	k kind
	n float64
	s string // text, or an error's name
	b bool
}

func num(f float64) value {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return errv("#NUM!")
	}
	return value{k: vNum, n: f}
}
func str(s string) value   { return value{k: vStr, s: s} }
func boolean(b bool) value { return value{k: vBool, b: b} }
func errv(e string) value  { return value{k: vErr, s: e} }

var (
	errDiv0  = errv("#DIV/0!")
	errNA    = errv("#N/A")
	errNum   = errv("#NUM!")
	errRef   = errv("#REF!")
	errValue = errv("#VALUE!")
)

// result is what an expression evaluates to: a scalar, a reference (whose
// cells a function such as SUM reads differently from a literal) or an
// array constant.
type result struct {
	v   value
	ref *rangeRef
	arr *array
}

type array struct {
	rows, cols int
	v          []value
}

func scalar(v value) result { return result{v: v} }

// fromCell converts a stored cell value.
func fromCell(v workbook.Value) (value, error) {
	switch v.Kind {
	case workbook.KindEmpty:
		return value{}, nil
	case workbook.KindInt, workbook.KindFloat:
		return value{k: vNum, n: v.Float64()}, nil
	case workbook.KindString:
		return str(v.Str), nil
	case workbook.KindBool:
		return boolean(v.Bool), nil
	case workbook.KindError:
		return errv(strings.ToUpper(v.Str)), nil
	}
	return value{}, unsupported("refers to a cell holding an ISO date or time (%s), whose serial number is not stored", v.Str)
}

// toCell converts a computed value: numbers that are whole and exact are
// integers, as the cached value of such a result is written.
func toCell(v value) workbook.Value {
	switch v.k {
	case vNum:
		if v.n == math.Trunc(v.n) && math.Abs(v.n) < 1<<53 {
			if v.n == 0 {
				return workbook.Value{Kind: workbook.KindInt}
			}
			return workbook.Value{Kind: workbook.KindInt, Int: int64(v.n)}
		}
		return workbook.Value{Kind: workbook.KindFloat, Num: v.n}
	case vStr:
		return workbook.Value{Kind: workbook.KindString, Str: v.s}
	case vBool:
		return workbook.Value{Kind: workbook.KindBool, Bool: v.b}
	case vErr:
		return workbook.Value{Kind: workbook.KindError, Str: v.s}
	}
	return workbook.Value{Kind: workbook.KindInt}
}

// parseNumber reads text as Excel converts it in arithmetic: a plain
// number, with a sign, decimals, an exponent or a trailing percent. Text
// that Excel would read as a date, a time or a currency depends on the
// reader's locale and is not converted here (ok false with maybeDate).
func parseNumber(s string) (f float64, ok, maybeDate bool) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, false, false
	}
	pct := strings.HasSuffix(t, "%")
	if pct {
		t = strings.TrimSpace(t[:len(t)-1])
	}
	f, err := strconv.ParseFloat(t, 64)
	if err == nil && !strings.ContainsAny(t, "xXpPnN_iI") {
		if pct {
			f /= 100
		}
		return f, true, false
	}
	digits := strings.ContainsAny(t, "0123456789")
	return 0, false, digits && strings.ContainsAny(t, "/-:,$€£")
}

// toNum converts a scalar for arithmetic.
func toNum(v value) (float64, *value, error) {
	switch v.k {
	case vEmpty:
		return 0, nil, nil
	case vNum:
		return v.n, nil, nil
	case vBool:
		if v.b {
			return 1, nil, nil
		}
		return 0, nil, nil
	case vStr:
		f, ok, maybeDate := parseNumber(v.s)
		if ok {
			return f, nil, nil
		}
		if maybeDate {
			return 0, nil, unsupported("converts the text %q to a number, which depends on the locale", v.s)
		}
		e := errValue
		return 0, &e, nil
	}
	return 0, &v, nil
}

// toText converts a scalar as Excel joins it into text: numbers in the
// General format.
func toText(v value) (string, *value, error) {
	switch v.k {
	case vEmpty:
		return "", nil, nil
	case vStr:
		return v.s, nil, nil
	case vBool:
		if v.b {
			return "TRUE", nil, nil
		}
		return "FALSE", nil, nil
	case vNum:
		s, err := generalText(v.n)
		return s, nil, err
	}
	return "", &v, nil
}

// generalText formats a number as Excel's General format does in text:
// at most 15 significant digits, no exponent. Numbers General would show
// with an exponent are not converted.
func generalText(f float64) (string, error) {
	if f == 0 {
		return "0", nil
	}
	a := math.Abs(f)
	if a >= 1e15 || a < 1e-9 {
		return "", unsupported("turns the number %g into text, which Excel writes in scientific notation", f)
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 15, 64), 64)
	return strconv.FormatFloat(r, 'f', -1, 64), nil
}

func toBool(v value) (bool, *value) {
	switch v.k {
	case vEmpty:
		return false, nil
	case vNum:
		return v.n != 0, nil
	case vBool:
		return v.b, nil
	case vStr:
		switch strings.ToUpper(v.s) {
		case "TRUE":
			return true, nil
		case "FALSE":
			return false, nil
		}
		e := errValue
		return false, &e
	}
	return false, &v
}

// compare orders two scalars as Excel's comparison operators do: numbers
// before text before booleans, text without regard to case; an empty cell
// is the other side's zero, "" or FALSE.
func compare(a, b value) int {
	if a.k == vEmpty {
		a = zeroLike(b)
	}
	if b.k == vEmpty {
		b = zeroLike(a)
	}
	rank := func(v value) int {
		switch v.k {
		case vNum, vEmpty:
			return 0
		case vStr:
			return 1
		}
		return 2
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra - rb
	}
	switch a.k {
	case vNum, vEmpty:
		switch {
		case a.n < b.n:
			return -1
		case a.n > b.n:
			return 1
		}
		return 0
	case vStr:
		return strings.Compare(strings.ToLower(a.s), strings.ToLower(b.s))
	}
	switch {
	case a.b == b.b:
		return 0
	case !a.b:
		return -1
	}
	return 1
}

func zeroLike(v value) value {
	switch v.k {
	case vStr:
		return str("")
	case vBool:
		return boolean(false)
	}
	return num(0)
}
