package workbook

import (
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends the value's JSON to dst, as encoding/json would write
// JSON(): Float keeps its decimal point, strings are escaped the same way
// (HTML characters included). An empty cell is written as empty.
func (v Value) AppendJSON(dst []byte, empty string) []byte {
	switch v.Kind {
	case KindEmpty:
		return append(dst, empty...)
	case KindInt:
		if v.Str != "" {
			return append(dst, v.Str...)
		}
		return strconv.AppendInt(dst, v.Int, 10)
	case KindFloat:
		b, _ := Float(v.Num).MarshalJSON()
		return append(dst, b...)
	case KindBool:
		return strconv.AppendBool(dst, v.Bool)
	default:
		return AppendJSONString(dst, v.Str)
	}
}

// AppendRowJSON appends cells as a JSON array, empty cells as "".
func AppendRowJSON(dst []byte, cells []Value) []byte {
	dst = append(dst, '[')
	for i, c := range cells {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = c.AppendJSON(dst, `""`)
	}
	return append(dst, ']')
}

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string with encoding/json's escaping.
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
