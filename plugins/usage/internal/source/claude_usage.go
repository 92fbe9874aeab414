package source

import (
	"bytes"

	"github.com/toolhost/toolhost/plugins/usage/internal/jsonscan"
)

// usageTokens are the counts of a usage object; cwTotal and cw5 are -1
// when absent.
type usageTokens struct {
	in, out, cr, cwTotal, cw5, cw1h int64
	// fast is `"speed":"fast"`: Claude Code's fast mode, billed at a
	// multiple of the model's rates.
	fast bool
}

// usageFields reads a usage object field by field; ok is false when it is
// not a well-formed object.
func usageFields(u []byte) (usageTokens, bool) {
	t := usageTokens{cwTotal: -1, cw5: -1}
	err := jsonscan.Fields(u, func(k, v []byte) bool {
		n, _ := jsonscan.Int(v)
		switch string(k) {
		case "input_tokens":
			t.in = n
		case "output_tokens":
			t.out = n
		case "cache_read_input_tokens":
			t.cr = n
		case "cache_creation_input_tokens":
			t.cwTotal = n
		case "speed":
			t.fast = string(v) == `"fast"`
		case "cache_creation":
			_ = jsonscan.Fields(v, func(k, v []byte) bool {
				switch string(k) {
				case "ephemeral_5m_input_tokens":
					t.cw5, _ = jsonscan.Int(v)
				case "ephemeral_1h_input_tokens":
					t.cw1h, _ = jsonscan.Int(v)
				}
				return true
			})
		}
		return true
	})
	return t, err == nil
}

// readUsage reads the usage object at b[i] in one pass, as usageFields
// would, and returns the index just past it. It takes only the layout
// Claude Code writes (no whitespace, counts as plain digits); ok is false
// for anything else, which usageFields then reads.
func readUsage(b []byte, i int) (t usageTokens, end int, ok bool) {
	t = usageTokens{cwTotal: -1, cw5: -1}
	if i >= len(b) || b[i] != '{' {
		return t, 0, false
	}
	i++
	if i < len(b) && b[i] == '}' {
		return t, i + 1, true
	}
	for {
		key, v, ok := plainKey(b, i)
		if !ok {
			return t, 0, false
		}
		var dst *int64
		switch string(key) {
		case "input_tokens":
			dst = &t.in
		case "output_tokens":
			dst = &t.out
		case "cache_read_input_tokens":
			dst = &t.cr
		case "cache_creation_input_tokens":
			dst = &t.cwTotal
		case "speed":
			t.fast = bytes.HasPrefix(b[v:], []byte(`"fast"`))
		case "cache_creation":
			if v >= len(b) || b[v] != '{' {
				dst = new(int64) // a count of 0, as Int reads a non-number
				break
			}
			j := v + 1
			if j < len(b) && b[j] == '}' {
				i = j + 1
				goto next
			}
			for {
				key, w, ok := plainKey(b, j)
				if !ok {
					return t, 0, false
				}
				n, e, ok := plainValue(b, w)
				if !ok {
					return t, 0, false
				}
				switch string(key) {
				case "ephemeral_5m_input_tokens":
					t.cw5 = n
				case "ephemeral_1h_input_tokens":
					t.cw1h = n
				}
				if e >= len(b) {
					return t, 0, false
				}
				j = e + 1
				if b[e] == '}' {
					break
				}
				if b[e] != ',' {
					return t, 0, false
				}
			}
			i = j
			goto next
		}
		if dst == nil {
			// Another field: skipped as usageFields skips it.
			e, err := jsonscan.ValueEnd(b, v)
			if err != nil || e == v || skipSpace(b, v) != v {
				return t, 0, false
			}
			i = e
		} else {
			n, e, ok := plainValue(b, v)
			if !ok {
				return t, 0, false
			}
			*dst = n
			i = e
		}
	next:
		if i >= len(b) {
			return t, 0, false
		}
		switch b[i] {
		case ',':
			i++
		case '}':
			return t, i + 1, true
		default:
			return t, 0, false
		}
	}
}

// plainKey reads `"key":` at b[i] (the key raw, as jsonscan.Fields gives
// it, and not ending in a backslash); v is where the value starts.
func plainKey(b []byte, i int) (key []byte, v int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	k := bytes.IndexByte(b[i+1:], '"')
	if k < 0 {
		return nil, 0, false
	}
	key = b[i+1 : i+1+k]
	v = i + k + 3
	if v > len(b) || b[v-1] != ':' || (k > 0 && key[k-1] == '\\') {
		return nil, 0, false
	}
	return key, v, true
}

// plainValue reads a scalar value at b[i]: a count of plain digits (n), or
// a string, null, true or false (n is 0, as Int reads them); e is the index
// past it. Objects, arrays and other numbers are not plain.
func plainValue(b []byte, i int) (n int64, e int, ok bool) {
	if i >= len(b) {
		return 0, 0, false
	}
	switch c := b[i]; {
	case c >= '0' && c <= '9':
		e = i
		for e < len(b) && b[e] >= '0' && b[e] <= '9' {
			e++
		}
		if e < len(b) && (b[e] == '.' || b[e] == 'e' || b[e] == 'E' || b[e] == '+' || b[e] == '-') {
			return 0, 0, false
		}
		n, _ = jsonscan.Int(b[i:e])
		return n, e, true
	case c == '"':
		e, err := jsonscan.ValueEnd(b, i)
		return 0, e, err == nil
	case c == 'n' || c == 't' || c == 'f':
		e, err := jsonscan.ValueEnd(b, i)
		return 0, e, err == nil
	}
	return 0, 0, false
}
