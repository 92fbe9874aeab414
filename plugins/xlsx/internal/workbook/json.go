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
		return appendFloatJSON(dst, v.Num)
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
		i = plainWords(s, i)
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

// Masks for plainWords: 0x01 and 0x80 in each of a word's eight bytes.
const (
	lanes01 = 0x0101010101010101
	lanes80 = 0x8080808080808080
)

// plainWords returns the first index from i, stepping sixteen bytes at a
// time (plainBlocks, on amd64) or eight (thirty-two while it can), whose
// bytes do not all pass without
// a look: a byte needs one when it is not ASCII, a control character, '"'
// or '&', '<' or '>', or '\\'. See plainLanes for the test.
func plainWords(s string, i int) int {
	if len(s)-i >= 16 {
		// Sixteen at a time in assembly where there is some (amd64).
		i += plainBlocks(s[i:])
	}
	for ; i+32 <= len(s); i += 32 {
		b := s[i : i+32]
		w0, w1, w2, w3 := load64(b[0:8]), load64(b[8:16]), load64(b[16:24]), load64(b[24:32])
		if (plainLanes(w0)&plainLanes(w1)&plainLanes(w2)&plainLanes(w3))&lanes80 != lanes80 {
			break
		}
	}
	for ; i+8 <= len(s); i += 8 {
		if plainLanes(load64(s[i:i+8]))&lanes80 != lanes80 {
			return i
		}
	}
	return i
}

// plainLanes returns a word whose byte k has its high bit set when byte k
// of w passes without a look, and (for a w of ASCII bytes only) clear when
// it needs one. For a byte x below 0x80, x+0x60 reaches 0x80 exactly when
// x >= 0x20, and (x^c)+0x7f exactly when x != c; no lane carries into the
// next. '"' and '&' (0x22, 0x26) differ only in bit 2, '<' and '>' (0x3c,
// 0x3e) only in bit 1, so each pair is one compare with that bit cleared.
// A byte of 0x80 or more may carry into the lane above, but its own lane
// has its high bit cleared (x itself is tested), so the word fails anyway.
func plainLanes(w uint64) uint64 {
	ctrl := w + 0x60*lanes01
	quoteAmp := ((w ^ '"'*lanes01) &^ (0x04 * lanes01)) + 0x7f*lanes01
	angle := ((w ^ '<'*lanes01) &^ (0x02 * lanes01)) + 0x7f*lanes01
	backslash := (w ^ '\\'*lanes01) + 0x7f*lanes01
	return ctrl & quoteAmp & angle & backslash &^ w
}

// load64 reads b's first eight bytes, little-endian (one load).
func load64(b string) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// RuneCount is utf8.RuneCount, sixteen bytes at a time (asciiBlocks, on
// amd64) or eight through ASCII text (utf8.RuneCount steps byte by byte;
// dump counts every character it writes).
func RuneCount(b []byte) int {
	n := 0
	for len(b) > 0 {
		i := 0
		if len(b) >= 16 {
			i = asciiBlocks(b)
		}
		for ; i+8 <= len(b); i += 8 {
			c := b[i : i+8]
			w := uint64(c[0]) | uint64(c[1])<<8 | uint64(c[2])<<16 | uint64(c[3])<<24 |
				uint64(c[4])<<32 | uint64(c[5])<<40 | uint64(c[6])<<48 | uint64(c[7])<<56
			if w&lanes80 != 0 {
				break
			}
		}
		n += i
		b = b[i:]
		if len(b) == 0 {
			break
		}
		if b[0] < utf8.RuneSelf {
			n++
			b = b[1:]
			continue
		}
		_, size := utf8.DecodeRune(b)
		n++
		b = b[size:]
	}
	return n
}
