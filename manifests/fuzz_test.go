package manifests

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// addValidSeeds adds every manifest under testdata/valid to f's corpus.
func addValidSeeds(f *testing.F) {
	f.Helper()
	files, _ := filepath.Glob("testdata/valid/*.yaml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

func FuzzParse(f *testing.F) {
	addValidSeeds(f)
	for _, s := range []string{
		base, checkManifest, "", "---", "[]", "name: [", "a: &a [*a]", "<<: {a: 1}",
		"name: x\nactions:\n  - name: send-x\n    description: d\n    read_only: true\n",
		"name: x\ndescription: d\nentrypoint: x\nactions: [{name: a, description: d, args: [{name: n, type: integer, default: 1e400, enum: [.inf, 0x10, 1_000]}]}]\n",
		"name: x\ndescription: d\nentrypoint: x\nactions: [{name: a, description: d, output_schema: {? [a] : b}}]\n",
		"!!binary x: y\n", "? - a\n: b\n", "name: !custom x\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseBytes("f.yaml", data)
		if m == nil || m.Path != "f.yaml" {
			t.Fatalf("got manifest %v, want one with Path set", m)
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || len(e.Problems) == 0 {
				t.Fatalf("got %v (%T), want *Error with problems", err, err)
			}
			for _, p := range e.Problems {
				if p.File != "f.yaml" || p.Message == "" || p.Line < 0 {
					t.Fatalf("bad problem %+v", p)
				}
			}
			_ = err.Error()
			return
		}
		// A manifest that parses keeps every promise of the package.
		if !IsKebab(m.Name) || m.Timeout < MinTimeout || m.Timeout > MaxTimeout ||
			m.Concurrency < 1 || m.Concurrency > MaxConcurrency || (len(m.Actions) == 0) != m.MCP() ||
			(m.Kind != KindTool && m.Kind != KindAgent) || checkEntrypoint(m.Entrypoint) != "" {
			t.Fatalf("invalid manifest accepted: %+v", m)
		}
		for _, o := range m.Overrides {
			if !m.MCP() || !isMCPToolName(o.Name) || downloader(m.Interpreter) != "" {
				t.Fatalf("invalid override accepted: %+v", o)
			}
		}
		for i := range m.Actions {
			a := &m.Actions[i]
			if !IsKebab(a.Name) || (a.ReadOnly && !a.Reversible) {
				t.Fatalf("invalid action accepted: %+v", a)
			}
			if _, _, irreversible := isIrreversibleName(m.Name, a.Name); irreversible && a.Reversible {
				t.Fatalf("action %s is irreversible by name but reversible", a.Name)
			}
			if _, err := json.Marshal(a.ArgsSchema()); err != nil {
				t.Fatalf("ArgsSchema does not marshal: %v", err)
			}
			if _, err := json.Marshal(a.OutputSchema); err != nil {
				t.Fatalf("output_schema does not marshal: %v", err)
			}
			// The defaults alone must pass the checker when nothing is required.
			_, _ = a.Check(nil)
		}
	})
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		``, `null`, `{}`, `[]`, `"x"`, `{"path": "f"}`, `{"path": "f", "max-results": 3.0}`,
		`{"path": "f", "max-results": 1e999999999}`, `{"path": "f", "max-results": -0.0e-5}`,
		`{"path": "f", "ratio": 1e-400}`, `{"max_results": 1, "priority": "hihg"}`,
		`{"path": "f", "tags": ["a", 1], "ids": [1.5], "headers": {"a": [{}]}}`,
		`{"path": "f"} trailing`, `{"path": "f", "level": 2.0e0}`, `{"path": "\u0000"}`,
	} {
		f.Add([]byte(s))
	}
	a := checkAction(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		out, err := a.Check(raw)
		if err != nil {
			var ae *ArgError
			if !errors.As(err, &ae) || ae.Message == "" {
				t.Fatalf("got %v (%T), want *ArgError with a message", err, err)
			}
			if out != nil {
				t.Fatalf("got args %v with an error", out)
			}
			if _, err := json.Marshal(ae.Schema); err != nil {
				t.Fatalf("schema does not marshal: %v", err)
			}
			return
		}
		// What Check returns is valid args that check to themselves.
		again, err := json.Marshal(out)
		if err != nil {
			t.Fatalf("result does not marshal: %v", err)
		}
		out2, err := a.Check(again)
		if err != nil {
			t.Fatalf("Check(%s) accepted, but its result %s is refused: %v", raw, again, err)
		}
		if !reflect.DeepEqual(out, out2) {
			t.Fatalf("not idempotent:\n%#v\n%#v", out, out2)
		}
	})
}

func FuzzFromString(f *testing.F) {
	for _, s := range []string{"", "1", "3.0", "1e999", "yes", "a,b", "[1]", `{"a":1}`, "NaN", "-0"} {
		f.Add(s)
	}
	args := checkAction(f).Args
	f.Fuzz(func(t *testing.T, s string) {
		for i := range args {
			v, err := args[i].FromString(s)
			if err != nil {
				continue
			}
			if _, err := json.Marshal(v); err != nil {
				t.Fatalf("%s: FromString(%q) = %#v does not marshal: %v", args[i].Name, s, v, err)
			}
		}
		_ = Suggest(s, []string{"max-results", "read-sheet", "list-credentials"})
		_, _ = IrreversibleWord(s)
	})
}
