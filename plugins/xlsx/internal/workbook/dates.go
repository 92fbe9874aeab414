package workbook

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// serialToValue converts an Excel serial number to a date, time or elapsed
// time exactly as openpyxl's from_excel does: milliseconds rounded half to
// even, a value in [0, 1) is a time of day, Excel's phantom 29 February
// 1900 honoured below serial 60 in the 1900 system. A serial outside the
// dates Python can hold becomes the error value #VALUE!, as in openpyxl.
func serialToValue(v float64, date1904, elapsed bool) Value {
	var buf [32]byte
	val, b := appendSerial(buf[:0], v, date1904, elapsed)
	if val.Str == "" {
		val.Str = string(b)
	}
	return val
}

// appendSerial is serialToValue that appends the text of a date or time
// to dst and returns the value without it; an error value or a duration
// carries its text in Str and appends nothing.
func appendSerial(dst []byte, v float64, date1904, elapsed bool) (Value, []byte) {
	if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 3e6 {
		return Value{Kind: KindError, Str: "#VALUE!"}, dst
	}
	if elapsed {
		return durationValue(v), dst
	}
	day := math.Floor(v)
	frac := v - day
	ms := int64(math.RoundToEven(frac * 86400 * 1000))
	if v >= 0 && v < 1 && ms < 86400000 {
		return Value{Kind: KindTime}, appendClock(dst, int(ms/3600000), int(ms/60000%60), int(ms/1000%60), int(ms%1000)*1000)
	}
	epoch := int64(-25569) // 1899-12-30, in days from 1970-01-01
	if date1904 {
		epoch = -24107 // 1904-01-01
	} else if v > 0 && v < 60 {
		day++
	}
	total := (epoch+int64(day))*86400000 + ms
	days := floorDiv(total, 86400000)
	ms = total - days*86400000
	y, mo, d := civil(days)
	if y < 1 || y > 9999 {
		return Value{Kind: KindError, Str: "#VALUE!"}, dst
	}
	b := appendDigits(dst, int(y), 4)
	b = append(b, '-')
	b = appendDigits(b, mo, 2)
	b = append(b, '-')
	b = appendDigits(b, d, 2)
	b = append(b, 'T')
	b = appendClock(b, int(ms/3600000), int(ms/60000%60), int(ms/1000%60), int(ms%1000)*1000)
	return Value{Kind: KindDateTime}, b
}

// civil converts days since 1970-01-01 to a proleptic Gregorian date
// (Howard Hinnant's civil_from_days).
func civil(z int64) (y int64, m, d int) {
	z += 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		m = int(mp + 3)
	} else {
		m = int(mp - 9)
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// durationValue is openpyxl's timedelta: microseconds rounded from the
// serial, then the sub-second part rounded to milliseconds.
func durationValue(v float64) Value {
	d := math.Trunc(v)
	secs := (v - d) * 86400
	ws := math.Trunc(secs)
	us := int64(d)*86400e6 + int64(ws)*1e6 + int64(math.RoundToEven((secs-ws)*1e6))
	whole := floorDiv(us, 1e6)
	frac := us - whole*1e6
	frac = int64(math.RoundToEven(float64(frac)/1000)) * 1000
	us = whole*1e6 + frac
	return Value{Kind: KindDuration, Num: float64(us) / 1e6, Str: formatDuration(us)}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// formatDuration writes microseconds as an ISO-8601 duration, PT255H10M10S.
func formatDuration(us int64) string {
	var b strings.Builder
	if us < 0 {
		b.WriteByte('-')
		us = -us
	}
	b.WriteString("PT")
	h := us / 3600e6
	m := us / 60e6 % 60
	s := us % 60e6
	if h > 0 {
		b.WriteString(strconv.FormatInt(h, 10) + "H")
	}
	if m > 0 {
		b.WriteString(strconv.FormatInt(m, 10) + "M")
	}
	if s > 0 || (h == 0 && m == 0) {
		b.WriteString(strconv.FormatInt(s/1e6, 10))
		if f := s % 1e6; f != 0 {
			b.WriteString(strings.TrimRight("."+pad(f, 6), "0"))
		}
		b.WriteByte('S')
	}
	return b.String()
}

func pad(n int64, w int) string {
	s := strconv.FormatInt(n, 10)
	for len(s) < w {
		s = "0" + s
	}
	return s
}

// appendDigits appends n (non-negative) zero-padded to w digits.
func appendDigits(b []byte, n int, w int) []byte {
	var tmp [20]byte
	i := len(tmp)
	for n > 0 || i > len(tmp)-w {
		i--
		tmp[i] = byte('0' + n%10)
		n /= 10
	}
	return append(b, tmp[i:]...)
}

// appendClock appends h:m:s and, when us is not zero, .ffffff.
func appendClock(b []byte, h, m, s, us int) []byte {
	b = appendDigits(b, h, 2)
	b = append(b, ':')
	b = appendDigits(b, m, 2)
	b = append(b, ':')
	b = appendDigits(b, s, 2)
	if us != 0 {
		b = append(b, '.')
		b = appendDigits(b, us, 6)
	}
	return b
}

// formatClock writes milliseconds since midnight as Python's
// time.isoformat(): HH:MM:SS, with .ffffff when there is a fraction.
func formatClock(ms int64) string {
	var buf [24]byte
	return string(appendClock(buf[:0], int(ms/3600000), int(ms/60000%60), int(ms/1000%60), int(ms%1000)*1000))
}

// formatDateTime writes t as Python's datetime.isoformat().
func formatDateTime(t time.Time) string {
	var buf [32]byte
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	b := appendDigits(buf[:0], y, 4)
	b = append(b, '-')
	b = appendDigits(b, int(mo), 2)
	b = append(b, '-')
	b = appendDigits(b, d, 2)
	b = append(b, 'T')
	b = appendClock(b, h, mi, s, t.Nanosecond()/1000)
	return string(b)
}

// The patterns of t="d" cells, compiled on first use: few workbooks have
// such cells, and every start of the binary would pay for them.
var (
	isoRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:(\d{4})-(\d{2})-(\d{2}))?T?(?:(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,3})?)?)?Z?`)
	})
	isoDurationRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d{1,3})?)S)?`)
	})
)

// isoToValue reads a t="d" cell as openpyxl's from_ISO8601 does: a date, a
// time, a date and time, or a PT..H..M..S duration. A value it cannot read
// is kept as the string written.
func isoToValue(s string) Value {
	if m := isoRE().FindStringSubmatch(s); m != nil && m[0] != "" && m[0] != "T" && m[0] != "Z" {
		n := func(i int) int { x, _ := strconv.Atoi(m[i]); return x }
		us := 0
		if m[7] != "" {
			f, _ := strconv.ParseFloat(m[7], 64)
			us = int(f * 1e6)
		}
		hasDate, hasTime := m[1] != "", m[4] != ""
		switch {
		case hasDate && hasTime:
			t := time.Date(n(1), time.Month(n(2)), n(3), n(4), n(5), n(6), us*1000, time.UTC)
			if t.Month() == time.Month(n(2)) && t.Day() == n(3) && n(4) < 24 && n(5) < 60 && n(6) < 60 {
				return Value{Kind: KindDateTime, Str: formatDateTime(t)}
			}
		case hasDate:
			t := time.Date(n(1), time.Month(n(2)), n(3), 0, 0, 0, 0, time.UTC)
			if t.Month() == time.Month(n(2)) && t.Day() == n(3) {
				return Value{Kind: KindDate, Str: s[:10]}
			}
		case hasTime:
			if n(4) < 24 && n(5) < 60 && n(6) < 60 {
				ms := int64(n(4))*3600000 + int64(n(5))*60000 + int64(n(6))*1000
				str := formatClock(ms)
				if us != 0 {
					str += "." + pad(int64(us), 6)
				}
				return Value{Kind: KindTime, Str: str}
			}
		}
	}
	if m := isoDurationRE().FindStringSubmatch(s); m != nil && (m[1] != "" || m[2] != "" || m[3] != "") {
		h, _ := strconv.ParseFloat(m[1], 64)
		mi, _ := strconv.ParseFloat(m[2], 64)
		se, _ := strconv.ParseFloat(m[3], 64)
		us := int64(math.RoundToEven((h*3600 + mi*60 + se) * 1e6))
		return Value{Kind: KindDuration, Num: float64(us) / 1e6, Str: formatDuration(us)}
	}
	return Value{Kind: KindString, Str: s}
}
