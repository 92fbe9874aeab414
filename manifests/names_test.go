package manifests

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// strs calls f with every string of up to n bytes drawn from alphabet.
func strs(alphabet string, n int, f func(string)) {
	var gen func(prefix string, left int)
	gen = func(prefix string, left int) {
		f(prefix)
		if left == 0 {
			return
		}
		for i := 0; i < len(alphabet); i++ {
			gen(prefix+alphabet[i:i+1], left-1)
		}
	}
	gen("", n)
}

// TestNameMatchersAgreeWithTheirPatterns holds each hand-written name
// matcher to the regular expression it replaced (package-level regexps
// compiled at every plugin's start): every string of up to four bytes from
// an alphabet holding each class's edges and its neighbours, and longer
// cases by hand.
func TestNameMatchersAgreeWithTheirPatterns(t *testing.T) {
	const alphabet = "aAfgzZ09_-`{@[/ "
	tests := []struct {
		name    string
		pattern string
		match   func(string) bool
		long    []string
	}{
		{"IsKebab", `^[a-z][a-z0-9]*(-[a-z0-9]+)*$`, IsKebab,
			[]string{"read-sheet", "max-results", "a1-b2-c3", "read--sheet", "read-sheet-", "-read", "Read-sheet", "read_sheet", "read-sheet\n"}},
		{"isEnvName", `^[A-Za-z_][A-Za-z0-9_]*$`, isEnvName,
			[]string{"XLSX_ROOTS", "_private", "lower_case9", "9LIVES", "A-B", "PATH\n", "ÄB"}},
		{"isSecretEnvName", `^[A-Z][A-Z0-9_]*$`, isSecretEnvName,
			[]string{"XLSX_API_TOKEN", "A_", "_A", "Xlsx", "A9_B", "A B"}},
		{"isSHA256Hex", `^[0-9a-f]{64}$`, isSHA256Hex,
			[]string{strings.Repeat("0a", 32), strings.Repeat("f", 64), strings.Repeat("f", 63), strings.Repeat("f", 65),
				strings.Repeat("F", 64), strings.Repeat("g", 64), strings.Repeat("0", 63) + "\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			re := regexp.MustCompile(tt.pattern)
			tried, matched := 0, 0
			check := func(s string) {
				tried++
				want := re.MatchString(s)
				if want {
					matched++
				}
				if got := tt.match(s); got != want {
					t.Errorf("%s(%q) = %v, want %v (%s)", tt.name, s, got, want, tt.pattern)
				}
			}
			strs(alphabet, 4, check)
			for _, s := range tt.long {
				check(s)
			}
			if matched == 0 || matched == tried {
				t.Fatalf("%d of %d strings match %s: the cases do not tell a match from a miss", matched, tried, tt.pattern)
			}
		})
	}
}

var memoryPattern = regexp.MustCompile(`^([0-9]{1,13}) ?([KMGT]i?B)$`)

// parseMemoryByPattern is ParseMemory as it was written before: the
// reference the hand-written parser is held to.
func parseMemoryByPattern(s string) (int64, bool) {
	m := memoryPattern.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	unit := map[string]int64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
		"KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}[m[2]]
	if n > math.MaxInt64/unit {
		return 0, false
	}
	return n * unit, true
}

// TestParseMemoryAgreesWithItsPattern holds ParseMemory to the pattern it
// replaced, ^([0-9]{1,13}) ?([KMGT]i?B)$: every string of up to five bytes
// from the characters a size is made of (M and G behave as K and T), and
// the 13-digit edge and the other units by hand.
func TestParseMemoryAgreesWithItsPattern(t *testing.T) {
	check := func(s string) {
		want, wantOK := parseMemoryByPattern(s)
		got, err := ParseMemory(s)
		if (err == nil) != wantOK || got != want {
			t.Errorf("ParseMemory(%q) = %d, %v; want %d, ok %v", s, got, err, want, wantOK)
		}
	}
	strs("09 KTiBb", 5, check)
	for _, s := range []string{"512MiB", "2 GB", "9999999999999KB", "9999999999999TiB", "99999999999999KB",
		"0000000000001TB", "3GiB", "4 MB", "5GB", "1  MiB", " 1MiB", "1MiB ", "1MiB\n", "1kB", "1.5GiB", ""} {
		check(s)
	}
}
