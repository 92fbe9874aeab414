package source

import (
	"time"

	"github.com/toolhost/toolhost/plugins/usage/internal/jsonscan"
)

// parseTime reads a raw JSON RFC 3339 timestamp into Unix milliseconds;
// the UTC form logs use ("2026-06-01T10:00:00.000Z") is read directly.
func parseTime(v []byte) (int64, bool) {
	if ms, ok := parseUTC(v); ok {
		return ms, true
	}
	s, ok := jsonscan.String(v)
	if !ok {
		return 0, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, false
	}
	return t.UnixMilli(), true
}

// parseUTC reads "YYYY-MM-DDTHH:MM:SS[.fff…]Z" (quoted); ok is false for
// any other form.
func parseUTC(v []byte) (int64, bool) {
	if len(v) < 22 || v[0] != '"' || v[len(v)-2] != 'Z' || v[len(v)-1] != '"' {
		return 0, false
	}
	b := v[1 : len(v)-2]
	if len(b) < 19 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return 0, false
	}
	num := func(s []byte) (int, bool) {
		n := 0
		for _, c := range s {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	y, ok1 := num(b[0:4])
	mo, ok2 := num(b[5:7])
	d, ok3 := num(b[8:10])
	h, ok4 := num(b[11:13])
	mi, ok5 := num(b[14:16])
	sec, ok6 := num(b[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 {
		return 0, false
	}
	ms := 0
	if frac := b[19:]; len(frac) > 0 {
		if frac[0] != '.' || len(frac) < 2 {
			return 0, false
		}
		digits := frac[1:]
		for i := 0; i < 3; i++ {
			ms *= 10
			if i < len(digits) {
				c := digits[i]
				if c < '0' || c > '9' {
					return 0, false
				}
				ms += int(c - '0')
			}
		}
		for _, c := range digits {
			if c < '0' || c > '9' {
				return 0, false
			}
		}
	}
	// Days from the civil date (Howard Hinnant's algorithm).
	yy := y
	if mo <= 2 {
		yy--
	}
	era := yy / 400
	yoe := yy - era*400
	mp := (mo + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	days := int64(era*146097+doe) - 719468
	return ((days*24+int64(h))*60+int64(mi))*60000 + int64(sec)*1000 + int64(ms), true
}
