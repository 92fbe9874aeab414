package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/manifests"
)

// mustParse parses a test's manifest, src, as the file name.
func mustParse(t *testing.T, name, src string) *manifests.Manifest {
	t.Helper()
	m, err := manifests.ParseBytes(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func greetPlugin() Plugin {
	return Plugin{Actions: map[string]Handler{
		"say-hello": func(_ context.Context, req *Request) (*Result, error) {
			var a struct {
				Name  string `json:"name"`
				Times int    `json:"times"`
				Loud  bool   `json:"loud"`
			}
			if err := req.Bind(&a); err != nil {
				return nil, err
			}
			msg := strings.Repeat("hello "+a.Name+" ", a.Times)
			if a.Loud {
				msg = strings.ToUpper(msg)
			}
			req.Progress(1, 1, "greeted")
			return &Result{Data: map[string]any{"message": strings.TrimSpace(msg), "client": req.Caller.ClientName}, Markdown: "**" + a.Name + "**"}, nil
		},
		"explode": func(context.Context, *Request) (*Result, error) { panic("boom") },
		"refuse": func(context.Context, *Request) (*Result, error) {
			return nil, &Error{Code: "not_allowed", Message: "no", NextStep: "ask nicely"}
		},
	}}
}

func TestCLI(t *testing.T) {
	m := mustParse(t, "greet/tool.yaml", testplugin.Greet)
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"typed flags", []string{"say-hello", "--name", "Ana", "--times", "2", "--loud"}, 0, []string{`"message": "HELLO ANA HELLO ANA"`, `"client": "cli"`}},
		{"equals form and default", []string{"say-hello", "--name=Zé"}, 0, []string{`"message": "hello Zé"`}},
		{"json", []string{"say-hello", "--json", `{"name":"Bo"}`}, 0, []string{`"hello Bo"`}},
		{"json null is no args", []string{"explode", "--json", "null"}, 1, []string{"internal_error", "boom"}},
		{"json not an object", []string{"say-hello", "--json", "[1]"}, 2, []string{"invalid_args"}},
		{"json alone before a flag", []string{"say-hello", "--json", "--name", "Bo"}, 0, []string{`"hello Bo"`}},
		{"markdown", []string{"say-hello", "--name", "Bo", "--markdown"}, 0, []string{"**Bo**"}},
		{"unknown arg", []string{"say-hello", "--nmae", "x"}, 2, []string{`"did_you_mean"`, `"name"`}},
		{"missing arg", []string{"say-hello"}, 2, []string{`"schema"`, `missing required arg`}},
		{"bad integer", []string{"say-hello", "--name", "x", "--times", "two"}, 2, []string{"invalid_args"}},
		{"unknown action", []string{"say_hello"}, 2, []string{`"say-hello"`, "unknown_action"}},
		{"panic", []string{"explode"}, 1, []string{"internal_error", "boom"}},
		{"plugin error", []string{"refuse"}, 1, []string{`"code": "not_allowed"`, `"next_step": "ask nicely"`}},
		{"help", []string{"--help"}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := runCLIWith(context.Background(), greetPlugin(), m, tt.args, nil, &out, &errOut, nil)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out.String(), errOut.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out.String())
				}
			}
			if code != 0 || tt.name == "help" {
				return
			}
			if !json.Valid(out.Bytes()) && !strings.HasPrefix(out.String(), "**") {
				t.Errorf("stdout is not JSON: %s", out.String())
			}
		})
	}
}

func TestDispatchRecoversPanics(t *testing.T) {
	req, _ := NewRequest("explode", nil)
	_, err := dispatch(context.Background(), greetPlugin(), req)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInternalError {
		t.Fatalf("got %v, want internal_error", err)
	}
}

func TestEncodeResultRefusesNonObjects(t *testing.T) {
	w := encodeResult(&Result{Data: []int{1, 2}}, nil)
	if w.GetError().GetCode() != string(CodeInternalError) {
		t.Fatalf("got %v", w)
	}
	w = encodeResult(&Result{Data: map[string]int{"a": 1}}, nil)
	if string(w.GetJson()) != `{"a":1}` {
		t.Fatalf("got %s", w.GetJson())
	}
}

func TestErrorRoundTripsTheWire(t *testing.T) {
	in := &Error{Code: "x", Message: "m", DidYouMean: []string{"a"}, Schema: map[string]any{"k": "v"}, NextStep: "n", Details: map[string]any{"d": 1.0}}
	out := ErrorFromWire(ErrorToWire(in))
	a, _ := json.Marshal(in)
	b, _ := json.Marshal(out)
	if string(a) != string(b) {
		t.Fatalf("got %s, want %s", b, a)
	}
}

func TestNewRequestFor(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, manifests.FileName), []byte(testplugin.Greet), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "internal", "greeter")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub) // the nearest tool.yaml above, as for a plugin's internal package
	tests := []struct {
		name     string
		action   string
		args     any
		want     string
		wantCode Code
	}{
		{"defaults filled as the host fills them", "say-hello", map[string]any{"name": "Ana"}, `{"name":"Ana","times":1}`, ""},
		{"given values kept", "say-hello", map[string]any{"name": "Ana", "times": 3, "loud": true}, `{"loud":true,"name":"Ana","times":3}`, ""},
		{"missing required arg", "say-hello", nil, "", CodeInvalidArgs},
		{"below the minimum", "say-hello", map[string]any{"name": "Ana", "times": 0}, "", CodeInvalidArgs},
		{"misspelt action", "say_hello", nil, "", CodeUnknownAction},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := NewRequestFor(tt.action, tt.args)
			if tt.wantCode != "" {
				var e *Error
				if !errors.As(err, &e) || e.Code != tt.wantCode {
					t.Fatalf("got %v, want %s", err, tt.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(req.Args) != tt.want {
				t.Errorf("args %s, want %s", req.Args, tt.want)
			}
		})
	}
}
