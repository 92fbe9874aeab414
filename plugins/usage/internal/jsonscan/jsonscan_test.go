package jsonscan

import (
	"encoding/json"
	"testing"
)

func TestFields(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    map[string]string
		wantErr bool
	}{
		{"flat", `{"a":1,"b":"x","c":null}`, map[string]string{"a": "1", "b": `"x"`, "c": "null"}, false},
		{"nested and escapes", `{"s":"q\"}{[","o":{"k":[1,{"z":"]"}]},"t":true}`,
			map[string]string{"s": `"q\"}{["`, "o": `{"k":[1,{"z":"]"}]}`, "t": "true"}, false},
		{"whitespace", " { \"a\" : 1 , \"b\" : [ ] } ", map[string]string{"a": "1", "b": "[ ]"}, false},
		{"backslash before quote", `{"p":"C:\\","n":2}`, map[string]string{"p": `"C:\\"`, "n": "2"}, false},
		{"empty", `{}`, map[string]string{}, false},
		{"truncated", `{"a":{"b":1`, nil, true},
		{"truncated string", `{"a":"abc`, nil, true},
		{"not an object", `[1]`, nil, true},
		{"missing colon", `{"a" 1}`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]string{}
			err := Fields([]byte(tt.in), func(k, v []byte) bool { got[string(k)] = string(v); return true })
			if (err != nil) != tt.wantErr {
				t.Fatalf("got error %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s: got %q, want %q", k, got[k], v)
				}
			}
		})
	}
}

func TestScalars(t *testing.T) {
	if n, ok := Int([]byte("12345")); !ok || n != 12345 {
		t.Errorf("Int: got %d %v", n, ok)
	}
	if n, ok := Int([]byte("1.5e3")); !ok || n != 1500 {
		t.Errorf("Int float: got %d %v", n, ok)
	}
	if _, ok := Int([]byte("null")); ok {
		t.Error("Int(null) ok")
	}
	if s, ok := String([]byte(`"a\u00e9\n"`)); !ok || s != "aé\n" {
		t.Errorf("String: got %q", s)
	}
}

// FuzzFields: Fields never panics, and agrees with encoding/json on
// whether an object is well-formed at the top level.
func FuzzFields(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":"\"","b":[{}]}`, `{"a":`, `{}`, `{"x":tru}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := Fields([]byte(s), func(k, v []byte) bool { return true })
		var m map[string]json.RawMessage
		if err == nil && json.Unmarshal([]byte(s), &m) != nil && json.Valid([]byte(s)) {
			t.Errorf("accepted %q, which is valid JSON but not an object", s)
		}
	})
}
