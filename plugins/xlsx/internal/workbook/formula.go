package workbook

import "strconv"

// TranslateFormula moves the relative references of a formula (without its
// "=") by dRow rows and dCol columns, as Excel fills a shared formula from
// its master cell: A1 → B2 for (1, 1); $A$1 stays; text in quotes and
// quoted sheet names are left alone, and so are names and function calls.
// Column-only and row-only ranges (A:A, 1:1) move too.
func TranslateFormula(f string, dRow, dCol int) string {
	if dRow == 0 && dCol == 0 {
		return f
	}
	out := make([]byte, 0, len(f)+8)
	for i := 0; i < len(f); {
		c := f[i]
		switch {
		case c == '"' || c == '\'':
			// A string literal or a quoted sheet name, doubled quotes inside.
			j := i + 1
			for j < len(f) {
				if f[j] == c {
					if j+1 < len(f) && f[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			j = min(j+1, len(f))
			out = append(out, f[i:j]...)
			i = j
		case c == '$' || isLetter(c) || isDigit(c):
			j := i
			for j < len(f) && (isLetter(f[j]) || isDigit(f[j]) || f[j] == '$' || f[j] == '_' || f[j] == '.') {
				j++
			}
			word := f[i:j]
			prevIdent := i > 0 && (isLetter(f[i-1]) || isDigit(f[i-1]) || f[i-1] == '_' || f[i-1] == '.')
			if !prevIdent && (j >= len(f) || f[j] != '(') {
				if moved, ok := moveRef(word, dRow, dCol, j < len(f) && f[j] == ':' || i > 0 && f[i-1] == ':'); ok {
					out = append(out, moved...)
					i = j
					continue
				}
			}
			out = append(out, word...)
			i = j
		default:
			out = append(out, c)
			i++
		}
	}
	return string(out)
}

// moveRef moves one reference: a cell ($A$1, B7), or, inside a range
// (inRange), a whole column (A, $C) or row (3, $4). Anything else is not a
// reference.
func moveRef(w string, dRow, dCol int, inRange bool) (string, bool) {
	i := 0
	colAbs := i < len(w) && w[i] == '$'
	if colAbs {
		i++
	}
	cs := i
	for i < len(w) && isLetter(w[i]) {
		i++
	}
	letters := w[cs:i]
	rowAbs := i < len(w) && w[i] == '$'
	if rowAbs {
		i++
	}
	rs := i
	for i < len(w) && isDigit(w[i]) {
		i++
	}
	digits := w[rs:i]
	if i != len(w) || len(letters) > 3 {
		return "", false
	}
	col := 0
	for _, c := range []byte(letters) {
		col = col*26 + int(c|0x20-'a'+1)
	}
	row, _ := strconv.Atoi(digits)
	switch {
	case letters != "" && digits != "":
		if col > MaxColumns || row < 1 || row > MaxRows {
			return "", false
		}
	case letters != "" && inRange && !rowAbs:
		if col > MaxColumns {
			return "", false
		}
	case digits != "" && inRange && !colAbs && row >= 1:
	default:
		return "", false
	}
	var b []byte
	if letters != "" {
		if colAbs {
			b = append(b, '$')
		} else {
			col += dCol
		}
		if col < 1 || col > MaxColumns {
			return "#REF!", true
		}
		b = append(b, ColumnName(col)...)
	}
	if digits != "" {
		if rowAbs {
			b = append(b, '$')
		} else {
			row += dRow
		}
		if row < 1 || row > MaxRows {
			return "#REF!", true
		}
		b = strconv.AppendInt(b, int64(row), 10)
	}
	return string(b), true
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
