package dispatch

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// fixedRunner answers every call with the same result.
type fixedRunner struct {
	res   *wire.Result
	calls int
}

func (f *fixedRunner) Call(context.Context, *registry.Tool, *wire.CallRequest, func(*wire.Progress)) *wire.Result {
	f.calls++
	return f.res
}

// fixtureDispatcher is a dispatcher over the test plugin's manifest (its
// binary never runs: the runner answers).
func fixtureDispatcher(t *testing.T, r Runner) *Dispatcher {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "testtool")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tool.yaml"), []byte(testplugin.Manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "testtool"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	reg := registry.New(registry.Options{PluginDirs: []string{filepath.Dir(dir)}})
	reg.Scan()
	return &Dispatcher{Registry: reg, Runner: r}
}

// TestMalformedResultsNameThePlugin: a result that is not one JSON object in
// valid UTF-8 was passed on (an array became structuredContent, invalid
// UTF-8 went onto the wire) or made the MCP SDK drop the answer.
func TestMalformedResultsNameThePlugin(t *testing.T) {
	tests := []struct {
		name, json, markdown string
		problem              string // "" means the result passes
	}{
		{"object", `{"a":1}`, "**a**", ""},
		{"empty", ``, "", ""},
		{"object with spaces", " \n{\"a\":[1,2]}\n", "", ""},
		{"cut short", `{"a":[1,2`, "", "is not valid JSON"},
		{"two values", `{"a":1}{"b":2}`, "", "is not valid JSON"},
		{"array", `[1,2,3]`, "", "is JSON but not an object"},
		{"string", `"text"`, "", "is JSON but not an object"},
		{"null", `null`, "", "is JSON but not an object"},
		{"invalid UTF-8", "{\"a\":\"caf\xe9\"}", "", "is not valid UTF-8"},
		{"invalid UTF-8 Markdown", `{"a":1}`, "caf\xe9", "has Markdown that is not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := fixtureDispatcher(t, &fixedRunner{res: &wire.Result{Json: []byte(tt.json), Markdown: tt.markdown}})
			o := d.Run(context.Background(), Call{Kind: manifests.KindTool, Name: "testtool", Action: "echo", Args: json.RawMessage(`{"text":"x"}`)}, nil)
			if tt.problem == "" {
				if o.IsError() || !json.Valid(o.JSON) {
					t.Fatalf("got %s, want the result passed on", o.Body())
				}
				return
			}
			if o.Code() != wire.CodeInternalError || !strings.Contains(string(o.Body()), "the plugin testtool returned a malformed result for echo") ||
				!strings.Contains(string(o.Body()), tt.problem) {
				t.Fatalf("got %s, want internal_error naming testtool and %q", o.Body(), tt.problem)
			}
		})
	}
}

// TestLargeArgsAreInvalidArgs: args over what a plugin's gRPC server
// receives answered internal_error "ResourceExhausted"; they are refused
// before any plugin runs, naming the limit.
func TestLargeArgsAreInvalidArgs(t *testing.T) {
	r := &fixedRunner{res: &wire.Result{Json: []byte(`{}`)}}
	d := fixtureDispatcher(t, r)
	for _, n := range []int{MaxArgsBytes - 100, MaxArgsBytes, MaxArgsBytes + 1, 15 << 20} { // the limit itself is allowed
		args, _ := json.Marshal(map[string]string{"text": strings.Repeat("x", n-len(`{"text":""}`))})
		r.calls = 0
		o := d.Run(context.Background(), Call{Name: "testtool", Action: "echo", Args: args}, nil)
		if n <= MaxArgsBytes {
			if o.IsError() || r.calls != 1 {
				t.Errorf("%d bytes of args: got %s, want the call run", n, o.Body())
			}
			continue
		}
		if o.Code() != wire.CodeInvalidArgs || !strings.Contains(string(o.Body()), "over the host's limit") || r.calls != 0 {
			t.Errorf("%d bytes of args: got %s (runner called %d times), want invalid_args naming the limit", n, o.Body(), r.calls)
		}
	}
}

// TestTooLargeWithoutNarrowWith checks result_too_large from an action
// whose manifest names no narrow_with arg: the next step asks for less in
// general, naming no arg (the narrow_with case is in TestRunAnswersThemselves).
func TestTooLargeWithoutNarrowWith(t *testing.T) {
	big := `{"text":"` + strings.Repeat("x", 100) + `"}`
	d := fixtureDispatcher(t, &fixedRunner{res: &wire.Result{Json: []byte(big)}})
	d.MaxResultBytes = 50
	o := d.Run(context.Background(), Call{Name: "testtool", Action: "echo", Args: json.RawMessage(`{"text":"a"}`)}, nil)
	if e := bodyError(t, o); e.Code != wire.CodeResultTooLarge || e.NextStep != "call again asking for less" {
		t.Fatalf("got %s, want result_too_large with the next step \"call again asking for less\"", o.Body())
	}
}
