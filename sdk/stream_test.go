package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

// countdown is a streamed result: it writes n lines of an array, failing
// after failAt lines when failAt > 0, and counts how often it was written.
type countdown struct {
	n, failAt int
	panics    bool
	writes    *int
}

func (c countdown) WriteJSON(w io.Writer) error {
	*c.writes++
	if c.panics {
		panic("writer boom")
	}
	io.WriteString(w, `{"items": [`)
	for i := range c.n {
		if c.failAt > 0 && i == c.failAt {
			return &Error{Code: "broken_source", Message: fmt.Sprintf("item %d is unreadable", i)}
		}
		if i > 0 {
			io.WriteString(w, ",")
		}
		fmt.Fprintf(w, "\n  %d", i)
	}
	_, err := io.WriteString(w, "\n]}")
	return err
}

const streamManifest = `name: counter
description: Counts.
version: 1.0.0
entrypoint: counter
actions:
  - name: count
    description: Count.
    read_only: true
    args:
      - {name: n, type: integer}
      - {name: fail-at, type: integer}
      - {name: panic, type: boolean}
`

func streamPlugin(writes *int) Plugin {
	return Plugin{Actions: map[string]Handler{
		"count": func(_ context.Context, req *Request) (*Result, error) {
			var a struct {
				N      int  `json:"n"`
				FailAt int  `json:"fail-at"`
				Panic  bool `json:"panic"`
			}
			if err := req.Bind(&a); err != nil {
				return nil, err
			}
			return &Result{Data: countdown{a.N, a.FailAt, a.Panic, writes}, Markdown: "counted"}, nil
		},
	}}
}

// TestStreamedResultCLI checks that a JSONWriter result is printed as the
// plugin writes it, exactly once, and that an error part-way is printed
// after what went out, with exit code 1.
func TestStreamedResultCLI(t *testing.T) {
	m := mustParse(t, "counter/tool.yaml", streamManifest)
	tests := []struct {
		name string
		args []string
		code int
		want string // stdout exactly, or its prefix for errors
	}{
		{"streamed as written", []string{"count", "--n", "3"}, 0, "{\"items\": [\n  0,\n  1,\n  2\n]}\n"},
		{"markdown instead", []string{"count", "--n", "3", "--markdown"}, 0, "counted\n"},
		{"error before anything is out", []string{"count", "--n", "5", "--fail-at", "2"}, 1, "{\n  \"error\": {\n    \"code\": \"broken_source\""},
		{"error part-way", []string{"count", "--n", "200000", "--fail-at", "150000"}, 1, "{\"items\": [\n  0,\n  1,"},
		{"panic in writer", []string{"count", "--panic"}, 1, "{\n  \"error\": {\n    \"code\": \"internal_error\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			writes := 0
			var out, errOut bytes.Buffer
			code := runCLIWith(context.Background(), streamPlugin(&writes), m, tt.args, nil, &out, &errOut, nil)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out.String(), errOut.String())
			}
			if code == 0 && out.String() != tt.want || code != 0 && !strings.HasPrefix(out.String(), tt.want) {
				t.Errorf("stdout = %q, want %q", out.String(), tt.want)
			}
			if tail := out.String()[strings.LastIndex(out.String(), "\n{\n")+1:]; code != 0 && (!json.Valid([]byte(tail)) || !strings.Contains(tail, `"error"`)) {
				t.Errorf("stdout does not end with the error envelope: %q", tail)
			}
			if writes != 1 {
				t.Errorf("WriteJSON called %d times, want once", writes)
			}
		})
	}
}

// TestStreamedResultWire checks the host path: the object written once
// into the result's bytes, an error as the error envelope (nothing of the
// partial object), a non-object refused.
func TestStreamedResultWire(t *testing.T) {
	writes := 0
	w := encodeResult(&Result{Data: countdown{n: 2, writes: &writes}}, nil)
	var got map[string][]int
	if err := json.Unmarshal(w.GetJson(), &got); err != nil || len(got["items"]) != 2 || writes != 1 {
		t.Fatalf("json %q (%v), %d writes", w.GetJson(), err, writes)
	}
	w = encodeResult(&Result{Data: countdown{n: 4, failAt: 3, writes: &writes}}, nil)
	if w.GetError().GetCode() != "broken_source" || len(w.GetJson()) != 0 {
		t.Fatalf("got %v", w)
	}
	w = encodeResult(&Result{Data: notObject{}}, nil)
	var e *Error
	if e = ErrorFromWire(w.GetError()); e.Code != CodeInternalError || !strings.Contains(e.Message, "not a JSON object") {
		t.Fatalf("got %v", w)
	}
}

type notObject struct{}

func (notObject) WriteJSON(w io.Writer) error { _, err := io.WriteString(w, "[1]"); return err }
