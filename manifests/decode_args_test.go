package manifests

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decodeWithDecoder is decodeArgs's reference: one json.Decoder with
// UseNumber over the whole input, as decodeArgs did before decodeFlat.
func decodeWithDecoder(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// TestDecodeFlatMatchesDecoder holds decodeArgs — decodeFlat, Check's
// per-call fast path, and the json.Decoder it falls back to — to exactly
// what a json.Decoder with UseNumber gives, checks that the fast path takes
// the common flat objects, and that it declines (so the decoder decodes or
// names the problem) everything else.
func TestDecodeFlatMatchesDecoder(t *testing.T) {
	tests := []struct {
		in   string
		fast bool // decodeFlat takes it
	}{
		{`{}`, true},
		{` { } `[1:], true},
		{`{"path":"a.xlsx"}`, true},
		{`{"path" : "a.xlsx" , "n":3 } `, true},
		{`{"n":3.0,"m":-1e30,"o":1e999999999,"p":9223372036854775808,"q":0.1,"r":1E+2,"s":-0}`, true},
		{`{"a":"x","a":"y"}`, true},
		{`{"t":true,"f":false,"z":null}`, true},
		{"{\n\t\"path\":\t\"a\",\r\n\"é\":\"ü 😀\"\n}", true},
		{`{"":""}`, true},
		{`{"s":"\u00e9\ud83d\ude00 \"q\" \\ \n"}`, false},
		{`{"a\"b":1}`, false},
		{`{"a":"x\",\"b\":\"y"}`, false},
		{`{"a\",\"b":"y"}`, false},
		{`{"a":"\"}\""}`, false},
		{"{\"s\":\"bad \xff utf8\"}", false},
		{"{\"bad \xfe key\":1}", false},
		{`{"arr":[1,2.50,{"k":1e3}],"obj":{"x":[null,"y"]}}`, false},
		{`{"a":1,"b":[]}`, false},
	}
	for _, tc := range tests {
		want, err := decodeWithDecoder([]byte(tc.in))
		if err != nil {
			t.Fatalf("reference decode of %q: %v", tc.in, err)
		}
		got, err := decodeArgs([]byte(tc.in))
		if err != nil {
			t.Errorf("decodeArgs(%q): %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(want, any(got)); diff != "" {
			t.Errorf("decodeArgs(%q) (-decoder +got):\n%s", tc.in, diff)
		}
		if _, ok := decodeFlat([]byte(tc.in)); ok != tc.fast {
			t.Errorf("decodeFlat(%q) took it: %v, want %v", tc.in, ok, tc.fast)
		}
	}
	decline := []string{`{"path":`, `{"path": "f"} {}`, `["f"]`, `"f"`, `3`, `{"a":1,}`, `{"a":01}`, `{'a':1}`, `{"a":tru}`, `{"a":1 "b":2}`}
	for _, in := range decline {
		if got, ok := decodeFlat([]byte(in)); ok {
			t.Errorf("decodeFlat(%q) = %v, want declined", in, got)
		}
	}
}

// BenchmarkCheck is the arg check of one warm call.
//
//	go test ./manifests -run '^$' -bench Check -benchmem
func BenchmarkCheck(b *testing.B) {
	a := checkAction(b)
	raw := json.RawMessage(`{"path":"a.xlsx","max-results":5}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.Check(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzDecodeArgs holds decodeArgs to the json.Decoder with UseNumber on
// any input: the same value when both decode it, an error when it fails.
//
//	go test ./manifests -run '^$' -fuzz FuzzDecodeArgs
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{`{}`, `{"path":"a.xlsx","n":3}`, `{"a":"\"}\""}`, `{"a":[1,{"b":2e3}]}`, `{"a":1} {}`, "{\"\xff\":1}", `{"a":tru}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := decodeArgs(raw)
		trimmed := bytes.TrimSpace(raw)
		if len(trimmed) == 0 || string(trimmed) == "null" {
			return
		}
		want, werr := decodeWithDecoder(trimmed)
		if werr != nil || err != nil {
			if err == nil {
				t.Fatalf("decodeArgs(%q) = %v, but the decoder fails: %v", raw, got, werr)
			}
			return
		}
		if diff := cmp.Diff(want, any(got)); diff != "" {
			t.Fatalf("decodeArgs(%q) (-decoder +got):\n%s", raw, diff)
		}
	})
}
