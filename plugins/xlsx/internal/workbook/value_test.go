package workbook

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPyRepr(t *testing.T) {
	tests := []struct {
		f    float64
		want string
	}{
		{1, "1.0"}, {0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {0.1, "0.1"}, {1.5, "1.5"},
		{-3.25, "-3.25"}, {1e15, "1000000000000000.0"}, {1e16, "1e+16"}, {1.23456789e22, "1.23456789e+22"},
		{0.0001, "0.0001"}, {0.00001, "1e-05"}, {1.5e-7, "1.5e-07"}, {12.618328720000001, "12.618328720000001"},
		{40982.56313888889, "40982.56313888889"}, {1e100, "1e+100"}, {123456789012345678, "1.2345678901234568e+17"},
	}
	for _, tc := range tests {
		if got := pyRepr(tc.f); got != tc.want {
			t.Errorf("pyRepr(%v) = %s, want %s", tc.f, got, tc.want)
		}
	}
}

// pyRepr agrees with Python's rule spelled with strconv's two forms, on
// numbers of every magnitude and on the decimals sheets hold.
func TestPyReprMatchesBothForms(t *testing.T) {
	want := func(x float64) string {
		s := strconv.FormatFloat(x, 'e', -1, 64)
		exp, _ := strconv.Atoi(s[strings.IndexByte(s, 'e')+1:])
		if exp < -4 || exp >= 16 {
			return s[:strings.IndexByte(s, 'e')+2] + fmt.Sprintf("%02d", max(exp, -exp))
		}
		s = strconv.FormatFloat(x, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200000; i++ {
		var x float64
		switch i % 3 {
		case 0:
			x = math.Float64frombits(r.Uint64())
		case 1:
			x = float64(r.Int64N(2e9)-1e9) / math.Pow(10, float64(r.IntN(12)))
		default:
			x = (r.Float64() - 0.5) * math.Pow(10, float64(r.IntN(44)-22))
		}
		if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
			continue
		}
		if got := pyRepr(x); got != want(x) {
			t.Fatalf("pyRepr(%b) = %s, want %s", x, got, want(x))
		}
	}
}

func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	values := []Value{
		{}, {Kind: KindInt, Int: -42}, {Kind: KindFloat, Num: 2}, {Kind: KindFloat, Num: 0.1},
		{Kind: KindBool, Bool: true}, {Kind: KindError, Str: "#N/A"},
		{Kind: KindString, Str: "tab\there \"quoted\" <b>&amp;</b> \\ \r\n \x01 \u2028 ăîâșț 😀 \xff"},
		{Kind: KindDateTime, Str: "2021-01-01T00:00:00"},
	}
	for _, v := range values {
		want, err := json.Marshal(v.JSON())
		if err != nil {
			t.Fatal(err)
		}
		if v.Kind == KindEmpty {
			want = []byte(`""`)
		}
		if got := v.AppendJSON(nil, `""`); string(got) != string(want) {
			t.Errorf("%+v: AppendJSON = %s, encoding/json = %s", v, got, want)
		}
	}
	row := AppendRowJSON(nil, values[:3])
	if string(row) != `["",-42,2.0]` {
		t.Errorf("row = %s", row)
	}
}

func TestSerialToValue(t *testing.T) {
	tests := []struct {
		serial          float64
		date1904, elaps bool
		want            string
		kind            ValueKind
	}{
		{40982.563138888887, false, false, "2012-03-14T13:30:55.200000", KindDateTime},
		{44197, false, false, "2021-01-01T00:00:00", KindDateTime},
		{44197, true, false, "2025-01-02T00:00:00", KindDateTime},
		{0.5, false, false, "12:00:00", KindTime},
		{0, false, false, "00:00:00", KindTime},
		{0.99999999999, false, false, "1900-01-01T00:00:00", KindDateTime},
		{1, false, false, "1900-01-01T00:00:00", KindDateTime},
		{59, false, false, "1900-02-28T00:00:00", KindDateTime},
		{60, false, false, "1900-02-28T00:00:00", KindDateTime},
		{61, false, false, "1900-03-01T00:00:00", KindDateTime},
		{1.5, false, false, "1900-01-01T12:00:00", KindDateTime},
		{-1, false, false, "1899-12-29T00:00:00", KindDateTime},
		{2958465.9999999, false, false, "9999-12-31T23:59:59.991000", KindDateTime},
		{2958466, false, false, "#VALUE!", KindError},
		{10.6320601851852, false, true, "PT255H10M10S", KindDuration},
		{0.5631388888888889, false, true, "PT13H30M55.2S", KindDuration},
		{-1.2, false, true, "-PT28H48M", KindDuration},
		{0, false, true, "PT0S", KindDuration},
	}
	for _, tc := range tests {
		v := serialToValue(tc.serial, tc.date1904, tc.elaps)
		if v.Str != tc.want || v.Kind != tc.kind {
			t.Errorf("serialToValue(%v, 1904=%v, elapsed=%v) = %s %v, want %s %v", tc.serial, tc.date1904, tc.elaps, v.Str, v.Kind, tc.want, tc.kind)
		}
	}
}

func TestISOCells(t *testing.T) {
	tests := []struct{ in, want string }{
		{"2021-01-01", "2021-01-01"},
		{"2021-01-01T10:10:10", "2021-01-01T10:10:10"},
		{"2014-02-14T08:27:48.765Z", "2014-02-14T08:27:48.765000"},
		{"10:10:10", "10:10:10"},
		{"PT36H", "PT36H"},
		{"not a date", "not a date"},
	}
	for _, tc := range tests {
		if got := isoToValue(tc.in).Str; got != tc.want {
			t.Errorf("isoToValue(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestDateFormats(t *testing.T) {
	tests := []struct {
		f             string
		date, elapsed bool
	}{
		{"General", false, false}, {"0.00", false, false}, {"mm-dd-yy", true, false},
		{"yyyy-mm-dd hh:mm:ss", true, false}, {"[h]:mm:ss", true, true}, {"[HH]:MM", true, true},
		{`"Date: "0.00`, false, false}, {`[Red]0.00;[Blue]-0.00`, false, false},
		{`[$-409]mmmm d, yyyy`, true, false}, {`0.00;"d"`, false, false}, {`\d0`, false, false},
		{"d", false, false}, {"dd", true, false}, {"#,##0_);[Red](#,##0)", false, false},
		{"mm:ss.0", true, false}, {"@", false, false}, {`yyyy"年"m"月"d"日"`, true, false},
	}
	for _, tc := range tests {
		if got := isDateFormat(tc.f); got != tc.date {
			t.Errorf("isDateFormat(%q) = %v, want %v", tc.f, got, tc.date)
		}
		if got := isElapsedFormat(tc.f); got != tc.elapsed {
			t.Errorf("isElapsedFormat(%q) = %v, want %v", tc.f, got, tc.elapsed)
		}
	}
}

func TestUnescapeOOXML(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ABC_x000D_\nDEF", "ABC\r\nDEF"}, {"a_x005F_x000D_b", "a_x000D_b"}, {"_x00", "_x00"},
		{"plain", "plain"}, {"_xZZZZ_", "_xZZZZ_"}, {"tab_x0009_", "tab\t"},
	}
	for _, tc := range tests {
		if got := unescapeOOXML(tc.in); got != tc.want {
			t.Errorf("unescapeOOXML(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFastDecimalMatchesStrconv(t *testing.T) {
	for _, s := range []string{"0.1", "1.0", "-0.0", "123456.789", "0.000123", "999999999999999.", ".5", "-3.25",
		"12.618328720000001", "40982.56313888889", "1.5e3", "1e400", "0.30000000000000004", "+7.5", "1..2", "."} {
		want, werr := strconv.ParseFloat(s, 64)
		got, ok := fastDecimal([]byte(s))
		if ok && (werr != nil || math.Float64bits(got) != math.Float64bits(want)) {
			t.Errorf("fastDecimal(%q) = %v, strconv %v (%v)", s, got, want, werr)
		}
		v := castNumber([]byte(s))
		if werr == nil && (v.Kind != KindFloat || math.Float64bits(v.Num) != math.Float64bits(want)) {
			t.Errorf("castNumber(%q) = %+v, want float %v", s, v, want)
		}
	}
}

func FuzzFastDecimal(f *testing.F) {
	f.Add("123.456")
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := fastDecimal([]byte(s))
		if !ok {
			return
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("fastDecimal(%q) = %v, strconv %v %v", s, got, want, err)
		}
	})
}

// TestAppendJSONStringEveryOffset puts each byte that needs a look (an
// escape, a non-ASCII lead byte, an invalid byte) at every position of a
// 72-byte plain run, so it falls in each lane of each word of the
// thirty-two-at-a-time scan and of the eight-at-a-time one after it, and
// compares with encoding/json.
func TestAppendJSONStringEveryOffset(t *testing.T) {
	specials := []string{"\"", "\\", "<", ">", "&", "\x00", "\x1f", "\n", "\b", "\f", "\x7f", " ", "~", "é", "\u2028", "😀", "\xff", "\xc3"}
	const plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 !#$%'()*+,-."
	for _, sp := range specials {
		for i := 0; i <= len(plain); i++ {
			s := plain[:i] + sp + plain[i:]
			want, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			if got := AppendJSONString(nil, s); string(got) != string(want) {
				t.Errorf("%q: AppendJSONString = %s, encoding/json = %s", s, got, want)
			}
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain text longer than eight", "a<b>&\"c\\d\x01\u2028😀\xff", "12345678\x7f12345678"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendJSONString(nil, s); string(got) != string(want) {
			t.Errorf("%q: AppendJSONString = %s, encoding/json = %s", s, got, want)
		}
	})
}

func FuzzRuneCount(f *testing.F) {
	for _, s := range []string{"", "plain ascii text, longer than eight", "ăîâșț 😀 mixed with ascii runs of eight+", "\xff\xfe bad \xc3 bytes \xe2\x82", "12345678\x80", "1234567é and more ascii text"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := RuneCount(b), utf8.RuneCount(b); got != want {
			t.Errorf("RuneCount(%q) = %d, utf8.RuneCount = %d", b, got, want)
		}
	})
}
