package formula

import (
	"math"
	"strconv"
)

func formatG15(x float64) string { return strconv.FormatFloat(x, 'g', 15, 64) }

func sscanFloat(s string, f *float64) (int, error) {
	v, err := strconv.ParseFloat(s, 64)
	*f = v
	return 1, err
}

// daysFromCivil counts days from 1970-01-01 to a proleptic Gregorian
// date (Howard Hinnant's days_from_civil).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era = (z - 146096) / 146097
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

var (
	epoch1900 = daysFromCivil(1899, 12, 30)
	epoch1904 = daysFromCivil(1904, 1, 1)
)

// serialOf is a date's serial number in the workbook's date system: in
// the 1900 system with Excel's phantom 29 February 1900, so that days
// before March 1900 count one less.
func (e *evaluator) serialOf(y, m, d int64) (float64, bool) {
	days := daysFromCivil(y, m, 1) + d - 1
	if e.b.w.Date1904 {
		s := days - epoch1904
		return float64(s), s >= 0
	}
	s := days - epoch1900
	if s < 61 {
		s--
	}
	return float64(s), s >= 0
}

// dateOf is the date of a serial number, as YEAR, MONTH and DAY read it
// (serial 60 of the 1900 system is 29 February 1900, serial 0 is
// "0 January 1900").
func (e *evaluator) dateOf(serial float64) (y, m, d int64, ok bool) {
	if serial < 0 || math.Floor(serial) > 2958465 {
		return 0, 0, 0, false
	}
	s := int64(math.Floor(serial))
	if e.b.w.Date1904 {
		y, m, d = civilFromDays(epoch1904 + s)
		return y, m, d, true
	}
	switch {
	case s == 0:
		return 1900, 1, 0, true
	case s == 60:
		return 1900, 2, 29, true
	case s < 60:
		s++
	}
	y, m, d = civilFromDays(epoch1900 + s)
	return y, m, d, true
}

func dateFn(e *evaluator, a []result) (result, error) {
	var p [3]float64
	for i := range 3 {
		x, bad, err := numArg(e, a[i])
		if err != nil || bad != nil {
			return scalar(deref(bad)), err
		}
		p[i] = math.Trunc(x)
	}
	y, m, d := int64(p[0]), int64(p[1]), int64(p[2])
	if y >= 0 && y < 1900 {
		y += 1900
	}
	if y < 0 || y > 9999 {
		return scalar(errNum), nil
	}
	// Months beyond 1–12 move the year, as Excel does.
	y += floorDiv(m-1, 12)
	m = mod(m-1, 12) + 1
	s, ok := e.serialOf(y, m, d)
	if !ok || s > 2958465 {
		return scalar(errNum), nil
	}
	return scalar(num(s)), nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func mod(a, b int64) int64 { return a - floorDiv(a, b)*b }

func datePart(part int) func(*evaluator, []result) (result, error) {
	return func(e *evaluator, a []result) (result, error) {
		x, bad, err := numArg(e, a[0])
		if err != nil || bad != nil {
			return scalar(deref(bad)), err
		}
		y, m, d, ok := e.dateOf(x)
		if !ok {
			return scalar(errNum), nil
		}
		return scalar(num(float64([3]int64{y, m, d}[part]))), nil
	}
}

func timeFn(e *evaluator, a []result) (result, error) {
	var p [3]float64
	for i := range 3 {
		x, bad, err := numArg(e, a[i])
		if err != nil || bad != nil {
			return scalar(deref(bad)), err
		}
		p[i] = math.Trunc(x)
	}
	secs := p[0]*3600 + p[1]*60 + p[2]
	if secs < 0 || p[0] > 32767 || p[1] > 32767 || p[2] > 32767 {
		return scalar(errNum), nil
	}
	return scalar(num(math.Mod(secs, 86400) / 86400)), nil
}

func timePart(unit, modulo int64) func(*evaluator, []result) (result, error) {
	return func(e *evaluator, a []result) (result, error) {
		x, bad, err := numArg(e, a[0])
		if err != nil || bad != nil {
			return scalar(deref(bad)), err
		}
		if x < 0 {
			return scalar(errNum), nil
		}
		exact := (x - math.Floor(x)) * 86400
		if math.Abs(exact-math.Round(exact)) > 1e-3 {
			return result{}, unsupported("a time with a fraction of a second, which Excel's HOUR, MINUTE and SECOND round by rules of their own")
		}
		secs := int64(math.Round(exact))
		if secs >= 86400 {
			secs = 0
		}
		return scalar(num(float64(secs / unit % modulo))), nil
	}
}

func weekday(e *evaluator, a []result) (result, error) {
	x, bad, err := numArg(e, a[0])
	if err != nil || bad != nil {
		return scalar(deref(bad)), err
	}
	kind := 1.0
	if len(a) > 1 {
		if kind, bad, err = numArg(e, a[1]); err != nil || bad != nil {
			return scalar(deref(bad)), err
		}
	}
	if x < 0 {
		return scalar(errNum), nil
	}
	off := int64(6)
	if e.b.w.Date1904 {
		off = 5
	}
	sunday1 := (int64(math.Floor(x))+off)%7 + 1
	switch kind {
	case 1:
		return scalar(num(float64(sunday1))), nil
	case 2:
		return scalar(num(float64((sunday1+5)%7 + 1))), nil
	case 3:
		return scalar(num(float64((sunday1 + 5) % 7))), nil
	}
	return result{}, unsupported("WEEKDAY with return type %g", kind)
}
