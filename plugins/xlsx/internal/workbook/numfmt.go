package workbook

import "strings"

// builtinFormats are the number formats Excel does not write into
// styles.xml, as openpyxl knows them.
var builtinFormats = map[int]string{
	0: "General", 1: "0", 2: "0.00", 3: "#,##0", 4: "#,##0.00",
	5: `"$"#,##0_);("$"#,##0)`, 6: `"$"#,##0_);[Red]("$"#,##0)`,
	7: `"$"#,##0.00_);("$"#,##0.00)`, 8: `"$"#,##0.00_);[Red]("$"#,##0.00)`,
	9: "0%", 10: "0.00%", 11: "0.00E+00", 12: "# ?/?", 13: "# ??/??",
	14: "mm-dd-yy", 15: "d-mmm-yy", 16: "d-mmm", 17: "mmm-yy",
	18: "h:mm AM/PM", 19: "h:mm:ss AM/PM", 20: "h:mm", 21: "h:mm:ss",
	22: "m/d/yy h:mm",
	37: "#,##0_);(#,##0)", 38: "#,##0_);[Red](#,##0)",
	39: "#,##0.00_);(#,##0.00)", 40: "#,##0.00_);[Red](#,##0.00)",
	41: `_(* #,##0_);_(* \(#,##0\);_(* "-"_);_(@_)`,
	42: `_("$"* #,##0_);_("$"* \(#,##0\);_("$"* "-"_);_(@_)`,
	43: `_(* #,##0.00_);_(* \(#,##0.00\);_(* "-"??_);_(@_)`,
	44: `_("$"* #,##0.00_)_("$"* \(#,##0.00\)_("$"* "-"??_)_(@_)`,
	45: "mm:ss", 46: "[h]:mm:ss", 47: "mmss.0", 48: "##0.0E+0", 49: "@",
}

// isDateFormat reports whether a number format shows a date or time, by
// openpyxl's rule: in the first section, with quoted literals and bracketed
// codes other than the elapsed markers [h] [hh] [m] [mm] [s] [ss] removed,
// some d m h y s letter follows a character that is not a backslash.
func isDateFormat(f string) bool {
	f, _, _ = strings.Cut(f, ";")
	var b strings.Builder
	for i := 0; i < len(f); {
		c := f[i]
		if c == '"' {
			if j := strings.IndexByte(f[i+1:], '"'); j >= 0 {
				i += j + 2
				continue
			}
		}
		if c == '[' {
			if j := strings.IndexByte(f[i+1:], ']'); j >= 0 {
				switch f[i+1 : i+1+j] {
				case "h", "hh", "m", "mm", "s", "ss":
				default:
					i += j + 2
					continue
				}
			}
		}
		b.WriteByte(c)
		i++
	}
	s := b.String()
	for i := 1; i < len(s); i++ {
		if strings.IndexByte("dmhysDMHYS", s[i]) >= 0 && s[i-1] != '\\' {
			return true
		}
	}
	return false
}

// isElapsedFormat reports whether a format's first section holds an elapsed
// time marker ([h], [mm], [ss], ... in any case), as openpyxl's
// is_timedelta_format does.
func isElapsedFormat(f string) bool {
	f, _, _ = strings.Cut(f, ";")
	f = strings.ToLower(f)
	for _, m := range []string{"[h]", "[hh]", "[m]", "[mm]", "[s]", "[ss]"} {
		if strings.Contains(f, m) {
			return true
		}
	}
	return false
}
