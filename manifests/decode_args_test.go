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

// TestDecodeFlatMatchesDecoder holds decodeFlat, the per-call fast path of
// Check, to exactly what a json.Decoder with UseNumber gives for every
// object it accepts, and checks that it declines (so the decoder names the
// problem) what is not one valid object.
func TestDecodeFlatMatchesDecoder(t *testing.T) {
	accept := []string{
		`{}`,
		`{"path":"a.xlsx"}`,
		` {"path" : "a.xlsx" , "n":3 } `[1:],
		`{"n":3.0,"m":-1e30,"o":1e999999999,"p":9223372036854775808,"q":0.1}`,
		`{"a":"x","a":"y"}`,
		`{"s":"\u00e9\ud83d\ude00 \"q\" \\ \n"}`,
		"{\"s\":\"bad \xff utf8\"}",
		"{\"bad \xfe key\":1}",
		`{"t":true,"f":false,"z":null}`,
		`{"arr":[1,2.50,{"k":1e3}],"obj":{"x":[null,"y"]}}`,
		"{\n\t\"path\":\t\"a\"\n}",
	}
	for _, in := range accept {
		got, ok := decodeFlat([]byte(in))
		if !ok {
			t.Errorf("decodeFlat(%q) declined a valid object", in)
			continue
		}
		want, err := decodeWithDecoder([]byte(in))
		if err != nil {
			t.Fatalf("reference decode of %q: %v", in, err)
		}
		if diff := cmp.Diff(want, any(got)); diff != "" {
			t.Errorf("decodeFlat(%q) (-decoder +flat):\n%s", in, diff)
		}
	}
	decline := []string{`{"path":`, `{"path": "f"} {}`, `["f"]`, `"f"`, `3`, `{"a":1,}`, `{"a":01}`, `{'a':1}`}
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
