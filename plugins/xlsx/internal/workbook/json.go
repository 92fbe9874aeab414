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
		// Eight bytes at a time while none of them needs a look: long
		// text is mostly such runs, and this is where read-sheet spends
		// its time on a sheet of long strings.
		for i+8 <= len(s) && plain8(s[i:i+8]) {
			i += 8
		}
		if i >= len(s) {
			break
		}
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
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
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

// Masks for plain8: 0x01 and 0x80 in each of a word's eight bytes.
const (
	lanes01 = 0x0101010101010101
	lanes80 = 0x8080808080808080
)

// plain8 reports whether none of the 8 bytes of s needs escaping or UTF-8
// decoding: all are ASCII, none is a control character, '"', '\\', '<',
// '>' or '&'. It tests all eight at once (a byte is zero after XOR with c
// exactly when it equals c, and (x-0x01…)&^x&0x80… is non-zero exactly
// when x holds a zero byte); s must be 8 bytes long.
func plain8(s string) bool {
	w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	bad := w & lanes80                       // not ASCII
	bad |= (w - 0x20*lanes01) & ^w & lanes80 // below 0x20
	bad |= hasZero(w ^ '"'*lanes01)          // '"'
	bad |= hasZero(w ^ '\\'*lanes01)         // '\\'
	bad |= hasZero(w ^ '<'*lanes01)          // '<'
	bad |= hasZero(w ^ '>'*lanes01)          // '>'
	bad |= hasZero(w ^ '&'*lanes01)          // '&'
	return bad == 0
}

// hasZero is non-zero exactly when some byte of x is zero.
func hasZero(x uint64) uint64 {
	return (x - lanes01) & ^x & lanes80
}
