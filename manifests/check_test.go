package manifests

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkManifest has one action with an arg of every kind.
const checkManifest = `name: t
description: d
entrypoint: t
actions:
  - name: act
    description: d
    args:
      - {name: path, type: string, required: true, description: A file}
      - {name: max-results, type: integer, minimum: 1, maximum: 1000, default: 100}
      - {name: ratio, type: number, minimum: 0, maximum: 1}
      - {name: priority, type: string, enum: [low, normal, high], default: normal}
      - {name: level, type: integer, enum: [1, 2, 3]}
      - {name: dry-run, type: boolean}
      - {name: tags, type: array, items: {type: string}}
      - {name: ids, type: array, items: {type: integer}}
      - {name: headers, type: object, default: {a: 1, b: [x]}}
`

func checkAction(t testing.TB) *Action {
	t.Helper()
	m, err := ParseBytes("t.yaml", []byte(checkManifest))
	if err != nil {
		t.Fatal(err)
	}
	return m.Action("act")
}

func TestCheck(t *testing.T) {
	a := checkAction(t)
	defaults := map[string]any{
		"max-results": int64(100),
		"priority":    "normal",
		"headers":     map[string]any{"a": json.Number("1"), "b": []any{"x"}},
	}
	with := func(kv ...any) map[string]any {
		m := map[string]any{"path": "f.xlsx"}
		for k, v := range defaults {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name string
		args string
		want map[string]any
	}{
		{"defaults filled", `{"path": "f.xlsx"}`, with()},
		{"null optional is not given", `{"path": "f.xlsx", "max-results": null, "ratio": null}`, with()},
		{"integer", `{"path": "f.xlsx", "max-results": 5}`, with("max-results", int64(5))},
		{"integer written 3.0", `{"path": "f.xlsx", "max-results": 3.0}`, with("max-results", int64(3))},
		{"integer written 1e2", `{"path": "f.xlsx", "max-results": 1e2}`, with("max-results", int64(100))},
		{"integer written 500e-2", `{"path": "f.xlsx", "max-results": 500e-2}`, with("max-results", int64(5))},
		{"integer written 2.50e1", `{"path": "f.xlsx", "max-results": 2.50e1}`, with("max-results", int64(25))},
		{"integer at the bounds", `{"path": "f.xlsx", "max-results": 1000}`, with("max-results", int64(1000))},
		{"number", `{"path": "f.xlsx", "ratio": 0.25}`, with("ratio", 0.25)},
		{"number given an integer", `{"path": "f.xlsx", "ratio": 1}`, with("ratio", 1.0)},
		{"enum", `{"path": "f.xlsx", "priority": "high"}`, with("priority", "high")},
		{"integer enum written 2.0", `{"path": "f.xlsx", "level": 2.0}`, with("level", int64(2))},
		{"boolean", `{"path": "f.xlsx", "dry-run": true}`, with("dry-run", true)},
		{"array", `{"path": "f.xlsx", "tags": ["a", "b"]}`, with("tags", []any{"a", "b"})},
		{"array of integers stays exact", `{"path": "f.xlsx", "ids": [9007199254740993, 2.0]}`,
			with("ids", []any{json.Number("9007199254740993"), json.Number("2.0")})},
		{"object", `{"path": "f.xlsx", "headers": {"k": 1.50}}`, with("headers", map[string]any{"k": json.Number("1.50")})},
		{"empty string", `{"path": ""}`, func() map[string]any { m := with(); m["path"] = ""; return m }()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := a.Check(json.RawMessage(tt.args))
			if err != nil {
				t.Fatalf("Check(%s): %v", tt.args, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check(%s) (-want +got):\n%s", tt.args, diff)
			}
		})
	}
}

func TestCheckEmptyArgs(t *testing.T) {
	a := &Action{Name: "a", Args: []Arg{{Name: "n", Type: TypeInteger, Default: int64(7)}}}
	for _, raw := range []string{"", "null", "  ", "{}", " null \n"} {
		got, err := a.Check(json.RawMessage(raw))
		if err != nil {
			t.Fatalf("Check(%q): %v", raw, err)
		}
		if diff := cmp.Diff(map[string]any{"n": int64(7)}, got); diff != "" {
			t.Errorf("Check(%q) (-want +got):\n%s", raw, diff)
		}
	}
}

func TestCheckErrors(t *testing.T) {
	a := checkAction(t)
	tests := []struct {
		name       string
		args       string
		message    string
		didYouMean []string
		schema     bool
	}{
		{"not JSON", `{"path":`, "args are not valid JSON: unexpected EOF", nil, false},
		{"trailing data", `{"path": "f"} {}`, "args are not valid JSON: unexpected data after the object", nil, false},
		{"not an object", `["f.xlsx"]`, "args must be a JSON object of arg name to value, got array", nil, false},
		{"a string", `"f.xlsx"`, `args must be a JSON object of arg name to value, got string "f.xlsx"`, nil, false},
		{"unknown arg snake_case", `{"path": "f", "max_results": 3}`, "unknown arg 'max_results'", []string{"max-results"}, true},
		{"unknown arg camelCase", `{"path": "f", "maxResults": 3}`, "unknown arg 'maxResults'", []string{"max-results"}, true},
		{"unknown arg with no near name", `{"path": "f", "zzzzzzzz": 3}`, "unknown arg 'zzzzzzzz'", nil, true},
		{"missing required", `{}`, "missing required arg 'path' (string)", nil, true},
		{"required given null", `{"path": null}`, "missing required arg 'path' (string)", nil, true},
		{"string for integer", `{"path": "f", "max-results": "5"}`, `arg 'max-results': want integer, got string "5"`, nil, false},
		{"fraction for integer", `{"path": "f", "max-results": 2.5}`, "arg 'max-results': want integer, got number 2.5", nil, false},
		{"tiny fraction for integer", `{"path": "f", "max-results": 3.0000000000000000001}`, "arg 'max-results': want integer, got number 3.0000000000000000001", nil, false},
		{"huge integer", `{"path": "f", "max-results": 1e30}`, "arg 'max-results': integer 1e30 is out of range", nil, false},
		{"past int64", `{"path": "f", "max-results": 9223372036854775808}`, "arg 'max-results': integer 9223372036854775808 is out of range", nil, false},
		{"giant exponent", `{"path": "f", "max-results": 1e999999999}`, "arg 'max-results': integer 1e999999999 is out of range", nil, false},
		{"tiny exponent", `{"path": "f", "max-results": 1e-999999999}`, "arg 'max-results': want integer, got number 1e-999999999", nil, false},
		{"negative exponent leaving a fraction", `{"path": "f", "max-results": 15e-1}`, "arg 'max-results': want integer, got number 15e-1", nil, false},
		{"exponent just past the bound", `{"path": "f", "max-results": 1e-1001}`, "arg 'max-results': want integer, got number 1e-1001", nil, false},
		{"zero with a giant exponent", `{"path": "f", "max-results": 0e999999999}`, "arg 'max-results': 0 is below the minimum 1", nil, false},
		{"below minimum", `{"path": "f", "max-results": 0}`, "arg 'max-results': 0 is below the minimum 1", nil, false},
		{"above maximum", `{"path": "f", "max-results": 1001}`, "arg 'max-results': 1001 is above the maximum 1000", nil, false},
		{"number above maximum", `{"path": "f", "ratio": 1.5}`, "arg 'ratio': 1.5 is above the maximum 1", nil, false},
		{"number out of float range", `{"path": "f", "ratio": 1e999}`, "arg 'ratio': number 1e999 is out of range", nil, false},
		{"boolean as string", `{"path": "f", "dry-run": "true"}`, `arg 'dry-run': want boolean, got string "true"`, nil, false},
		{"number for string", `{"path": 5}`, "arg 'path': want string, got number 5", nil, false},
		{"object for array", `{"path": "f", "tags": {}}`, "arg 'tags': want array, got object", nil, false},
		{"wrong item type", `{"path": "f", "tags": ["a", 1]}`, "arg 'tags': item 1: want string, got number 1", nil, false},
		{"fraction item for integers", `{"path": "f", "ids": [1, 1.5]}`, "arg 'ids': item 1: want integer, got number 1.5", nil, false},
		{"array for object", `{"path": "f", "headers": []}`, "arg 'headers': want object, got array", nil, false},
		{"bad enum", `{"path": "f", "priority": "hihg"}`, `arg 'priority': string "hihg" is not one of "low", "normal", "high"`, []string{"high"}, false},
		{"bad integer enum", `{"path": "f", "level": 4}`, "arg 'level': number 4 is not one of 1, 2, 3", nil, false},
		{"long string is cut in the message", `{"path": 1, "priority": "` + strings.Repeat("x", 100) + `"}`,
			`arg 'path': want string, got number 1; arg 'priority': string "` + strings.Repeat("x", 40) + `…" is not one of "low", "normal", "high"`, nil, false},
		{"several problems at once", `{"max_results": 3, "ratio": "x", "priority": "Low"}`,
			"unknown arg 'max_results'; missing required arg 'path' (string); arg 'ratio': want number, got string \"x\"; arg 'priority': string \"Low\" is not one of \"low\", \"normal\", \"high\"",
			[]string{"max-results", "low"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := a.Check(json.RawMessage(tt.args))
			if err == nil {
				t.Fatalf("Check(%s): got %v, want an error", tt.args, got)
			}
			var ae *ArgError
			if !errors.As(err, &ae) {
				t.Fatalf("got %T, want *ArgError", err)
			}
			if ae.Message != tt.message {
				t.Errorf("message:\ngot  %s\nwant %s", ae.Message, tt.message)
			}
			if diff := cmp.Diff(tt.didYouMean, ae.DidYouMean); diff != "" {
				t.Errorf("did_you_mean (-want +got):\n%s", diff)
			}
			if (ae.Schema != nil) != tt.schema {
				t.Errorf("got schema %v, want schema %v", ae.Schema != nil, tt.schema)
			}
		})
	}
}

func TestCheckSchema(t *testing.T) {
	a := checkAction(t)
	_, err := a.Check(json.RawMessage(`{"max_results": 1}`))
	var ae *ArgError
	if !errors.As(err, &ae) {
		t.Fatalf("got %v, want *ArgError", err)
	}
	want := map[string]any{
		"path":        map[string]any{"type": "string", "required": true, "description": "A file"},
		"max-results": map[string]any{"type": "integer", "required": false, "minimum": 1.0, "maximum": 1000.0, "default": int64(100)},
		"ratio":       map[string]any{"type": "number", "required": false, "minimum": 0.0, "maximum": 1.0},
		"priority":    map[string]any{"type": "string", "required": false, "enum": []any{"low", "normal", "high"}, "default": "normal"},
		"level":       map[string]any{"type": "integer", "required": false, "enum": []any{int64(1), int64(2), int64(3)}},
		"dry-run":     map[string]any{"type": "boolean", "required": false},
		"tags":        map[string]any{"type": "array", "required": false, "items": map[string]any{"type": "string"}},
		"ids":         map[string]any{"type": "array", "required": false, "items": map[string]any{"type": "integer"}},
		"headers":     map[string]any{"type": "object", "required": false, "default": map[string]any{"a": json.Number("1"), "b": []any{"x"}}},
	}
	if diff := cmp.Diff(want, ae.Schema); diff != "" {
		t.Errorf("schema (-want +got):\n%s", diff)
	}
	if _, err := json.Marshal(ae.Schema); err != nil {
		t.Errorf("schema does not marshal: %v", err)
	}
	if got, want := ae.Error(), "unknown arg 'max_results'; missing required arg 'path' (string) (did you mean 'max-results'?)"; got != want {
		t.Errorf("Error():\ngot  %s\nwant %s", got, want)
	}
	if got := (&ArgError{Message: "m", DidYouMean: []string{"a", "b"}}).Error(); got != "m (did you mean 'a' or 'b'?)" {
		t.Errorf("Error(): got %q", got)
	}
}

func TestCheckDefaultsAreCopies(t *testing.T) {
	a := checkAction(t)
	got, err := a.Check(json.RawMessage(`{"path": "f"}`))
	if err != nil {
		t.Fatal(err)
	}
	got["headers"].(map[string]any)["a"] = "changed"
	got["headers"].(map[string]any)["b"].([]any)[0] = "changed"
	again, err := a.Check(json.RawMessage(`{"path": "f"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": json.Number("1"), "b": []any{"x"}}
	if diff := cmp.Diff(want, again["headers"]); diff != "" {
		t.Errorf("a default changed through a returned value (-want +got):\n%s", diff)
	}
}

func TestFromString(t *testing.T) {
	tests := []struct {
		arg     Arg
		in      string
		want    any
		wantErr string
	}{
		{Arg{Name: "s", Type: TypeString}, " a, b ", " a, b ", ""},
		{Arg{Name: "s", Type: TypeString}, "", "", ""},
		{Arg{Name: "n", Type: TypeInteger}, "42", int64(42), ""},
		{Arg{Name: "n", Type: TypeInteger}, "-7", int64(-7), ""},
		{Arg{Name: "n", Type: TypeInteger}, "3.0", int64(3), ""},
		{Arg{Name: "n", Type: TypeInteger}, " 5 ", int64(5), ""},
		{Arg{Name: "n", Type: TypeInteger}, "3.5", nil, "arg n: want integer, got number 3.5"},
		{Arg{Name: "n", Type: TypeInteger}, "five", nil, `arg n: want integer, got "five"`},
		{Arg{Name: "n", Type: TypeInteger}, "0x10", nil, `arg n: want integer, got "0x10"`},
		{Arg{Name: "n", Type: TypeInteger}, "", nil, `arg n: want integer, got ""`},
		{Arg{Name: "n", Type: TypeInteger}, "99999999999999999999", nil, "arg n: integer 99999999999999999999 is out of range"},
		{Arg{Name: "f", Type: TypeNumber}, "0.5", 0.5, ""},
		{Arg{Name: "f", Type: TypeNumber}, "1e3", 1000.0, ""},
		{Arg{Name: "f", Type: TypeNumber}, "NaN", nil, `arg f: want number, got "NaN"`},
		{Arg{Name: "f", Type: TypeNumber}, "inf", nil, `arg f: want number, got "inf"`},
		{Arg{Name: "f", Type: TypeNumber}, "1e999", nil, "arg f: number 1e999 is out of range"},
		{Arg{Name: "b", Type: TypeBoolean}, "true", true, ""},
		{Arg{Name: "b", Type: TypeBoolean}, "YES", true, ""},
		{Arg{Name: "b", Type: TypeBoolean}, "1", true, ""},
		{Arg{Name: "b", Type: TypeBoolean}, "false", false, ""},
		{Arg{Name: "b", Type: TypeBoolean}, "no", false, ""},
		{Arg{Name: "b", Type: TypeBoolean}, "0", false, ""},
		{Arg{Name: "b", Type: TypeBoolean}, "maybe", nil, `arg b: want boolean (true/false, 1/0, yes/no), got "maybe"`},
		{Arg{Name: "l", Type: TypeArray}, `[1, "a"]`, []any{json.Number("1"), "a"}, ""},
		{Arg{Name: "l", Type: TypeArray}, "a, b,c", []any{"a", "b", "c"}, ""},
		{Arg{Name: "l", Type: TypeArray, Items: map[string]any{"type": "string"}}, "a,b", []any{"a", "b"}, ""},
		{Arg{Name: "l", Type: TypeArray}, "", []any{}, ""},
		{Arg{Name: "l", Type: TypeArray}, "[1,", nil, "arg l: want a JSON array: unexpected EOF"},
		{Arg{Name: "l", Type: TypeArray, Items: map[string]any{"type": "integer"}}, "1,2", nil, `arg l: want a JSON array of integer, got "1,2"`},
		{Arg{Name: "o", Type: TypeObject}, `{"a": 1.50}`, map[string]any{"a": json.Number("1.50")}, ""},
		{Arg{Name: "o", Type: TypeObject}, `[1]`, nil, "arg o: want a JSON object, got array"},
		{Arg{Name: "o", Type: TypeObject}, `a=b`, nil, "arg o: want a JSON object: invalid character 'a' looking for beginning of value"},
		{Arg{Name: "x", Type: "date"}, `x`, nil, `arg x: unknown type "date"`},
	}
	for _, tt := range tests {
		t.Run(string(tt.arg.Type)+"/"+tt.in, func(t *testing.T) {
			got, err := tt.arg.FromString(tt.in)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("FromString(%q): got %v, %v; want error %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("FromString(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("FromString(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestFromStringThenCheck(t *testing.T) {
	// The CLI path: strings → FromString → JSON → Check.
	a := checkAction(t)
	in := map[string]string{"path": "f.xlsx", "max-results": "5", "dry-run": "yes", "tags": "a,b"}
	args := map[string]any{}
	for k, s := range in {
		v, err := a.Arg(k).FromString(s)
		if err != nil {
			t.Fatal(err)
		}
		args[k] = v
	}
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.Check(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got["max-results"] != int64(5) || got["dry-run"] != true || len(got["tags"].([]any)) != 2 {
		t.Errorf("got %v", got)
	}
}
