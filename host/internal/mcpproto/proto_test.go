package mcpproto

import (
	"encoding/json"
	"testing"
)

func TestCanonical(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"b":1, "a":{"d":[1, 2],"c":"x"}}`, `{"a":{"c":"x","d":[1,2]},"b":1}`},
		{`{"s":"<é>&"}`, `{"s":"<é>&"}`},
		{`{"n":1.50}`, `{"n":1.50}`},
	}
	for _, tt := range tests {
		got, err := Canonical([]byte(tt.in))
		if err != nil || string(got) != tt.want {
			t.Errorf("Canonical(%s): got %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}

func TestWithMeta(t *testing.T) {
	tests := []struct{ in, want string }{
		{``, `{"_meta":{"k":"v"}}`},
		{`{"name":"x"}`, `{"_meta":{"k":"v"},"name":"x"}`},
		{`{"_meta":{"a":1},"name":"x"}`, `{"_meta":{"a":1,"k":"v"},"name":"x"}`},
		{`[1]`, `[1]`},
		{`null`, `{"_meta":{"k":"v"}}`},
		{`{"_meta":null,"name":"x"}`, `{"_meta":{"k":"v"},"name":"x"}`},
		{`{"_meta":5}`, `{"_meta":5}`},
	}
	for _, tt := range tests {
		if got := string(withMeta(json.RawMessage(tt.in), "k", "v")); got != tt.want {
			t.Errorf("withMeta(%s): got %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestListenAddr(t *testing.T) {
	tests := []struct {
		addr, token, want string
		wantErr           bool
	}{
		{"8080", "", "127.0.0.1:8080", false},
		{":8080", "", "127.0.0.1:8080", false},
		{"localhost:8080", "", "localhost:8080", false},
		{"[::1]:8080", "", "[::1]:8080", false},
		{"0.0.0.0:8080", "", "", true},
		{"0.0.0.0:8080", "tok", "0.0.0.0:8080", false},
		{"example.com:80", "", "", true},
	}
	for _, tt := range tests {
		got, err := listenAddr(tt.addr, tt.token)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("listenAddr(%q, %q): got %q, %v; want %q (error %v)", tt.addr, tt.token, got, err, tt.want, tt.wantErr)
		}
	}
}
