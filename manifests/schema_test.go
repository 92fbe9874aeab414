package manifests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"gopkg.in/yaml.v3"
)

func TestArgsSchema(t *testing.T) {
	m, err := Parse("testdata/valid/xlsx.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := m.Action("read-sheet").ArgsSchema()
	want := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"path":        map[string]any{"type": "string", "description": "Local .xlsx/.xlsm file"},
			"sheet":       map[string]any{"type": "string", "description": "Sheet name (default first/active)"},
			"max-results": map[string]any{"type": "integer", "description": "Cap rows returned", "minimum": 1.0, "maximum": 100000.0, "default": int64(1000)},
		},
		"required":             []string{"path"},
		"additionalProperties": false,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ArgsSchema (-want +got):\n%s", diff)
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	const wantJSON = `{"additionalProperties":false,"properties":{"max-results":{"default":1000,"description":"Cap rows returned","maximum":100000,"minimum":1,"type":"integer"},"path":{"description":"Local .xlsx/.xlsm file","type":"string"},"sheet":{"description":"Sheet name (default first/active)","type":"string"}},"required":["path"],"type":"object"}`
	if string(b) != wantJSON {
		t.Errorf("JSON:\ngot  %s\nwant %s", b, wantJSON)
	}

	// No args: an empty object schema with no "required".
	empty := (&Action{Name: "a"}).ArgsSchema()
	if diff := cmp.Diff(map[string]any{"type": "object", "properties": map[string]any{}, "additionalProperties": false}, empty); diff != "" {
		t.Errorf("empty ArgsSchema (-want +got):\n%s", diff)
	}

	// Enum, items and the fresh-copy guarantee.
	m, err = Parse("testdata/valid/mailer.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d := m.Action("draft")
	s := d.ArgsSchema()
	props := s["properties"].(map[string]any)
	if diff := cmp.Diff(map[string]any{"type": "array", "description": "Recipients", "items": map[string]any{"type": "string"}}, props["to"]); diff != "" {
		t.Errorf("to (-want +got):\n%s", diff)
	}
	props["to"].(map[string]any)["items"].(map[string]any)["type"] = "changed"
	props["priority"].(map[string]any)["enum"].([]any)[0] = "changed"
	if d.Arg("to").Items["type"] != "string" || d.Arg("priority").Enum[0] != "low" {
		t.Error("changing a returned schema changed the manifest")
	}
}

func TestFileSchema(t *testing.T) {
	var schema map[string]any
	if err := json.Unmarshal(FileSchema(), &schema); err != nil {
		t.Fatalf("tool.schema.json is not JSON: %v", err)
	}
	if schema["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema: got %v", schema["$schema"])
	}
	defs := schema["$defs"].(map[string]any)

	// The schema and the parser accept the same keys, and require the same.
	levels := []struct {
		name     string
		schema   map[string]any
		keys     []string
		required []string
	}{
		{"top level", schema, topKeys, []string{"name", "description", "entrypoint"}},
		{"mcp action", defs["mcp_action"].(map[string]any), overrideKeys, []string{"name"}},
		{"action", defs["action"].(map[string]any), actionKeys, []string{"name", "description"}},
		{"arg", defs["arg"].(map[string]any), argKeys, []string{"name", "type"}},
		{"secret", defs["secret"].(map[string]any), secretKeys, []string{"name", "env"}},
	}
	for _, l := range levels {
		var props []string
		for k := range l.schema["properties"].(map[string]any) {
			props = append(props, k)
		}
		if diff := cmp.Diff(sorted(l.keys), sorted(props)); diff != "" {
			t.Errorf("%s: schema properties differ from the parser's keys (-parser +schema):\n%s", l.name, diff)
		}
		var req []string
		for _, k := range l.schema["required"].([]any) {
			req = append(req, k.(string))
		}
		if diff := cmp.Diff(sorted(l.required), sorted(req)); diff != "" {
			t.Errorf("%s: required (-want +schema):\n%s", l.name, diff)
		}
		if l.schema["additionalProperties"] != false {
			t.Errorf("%s: additionalProperties is not false", l.name)
		}
	}
	var types []any
	for _, t := range ArgTypes {
		types = append(types, string(t))
	}
	if diff := cmp.Diff(types, defs["arg"].(map[string]any)["properties"].(map[string]any)["type"].(map[string]any)["enum"]); diff != "" {
		t.Errorf("arg types (-want +schema):\n%s", diff)
	}

	// Every valid example is valid against the schema.
	files, err := filepath.Glob("testdata/valid/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if _, err := Parse(f); err != nil {
				t.Fatalf("Parse: %v", err)
			}
			doc := loadYAML(t, f)
			if err := validate(t, doc); err != nil {
				t.Errorf("not valid against tool.schema.json: %v", err)
			}
		})
	}

	// And the validator is not vacuous: invalid documents fail it.
	for _, src := range []string{
		"name: x\ndescription: d\nentrypoint: x\n",                                                                       // no actions
		"name: X\ndescription: d\nentrypoint: x\nactions: [{name: a, description: d}]\n",                                 // name
		"name: x\ndescription: d\nentrypoint: x\nextra: 1\nactions: [{name: a, description: d}]\n",                       // key
		"name: x\ndescription: d\nentrypoint: /x\nactions: [{name: a, description: d}]\n",                                // entrypoint
		"name: x\ndescription: d\nentrypoint: a/../../x\nactions: [{name: a, description: d}]\n",                         // entrypoint
		"name: x\ndescription: d\nentrypoint: x\nactions: [{name: a, description: d, args: [{name: p}]}]\n",              // type
		"name: x\ndescription: d\nentrypoint: x\ntimeout: 30\nactions: [{name: a, description: d}]\n",                    // timeout
		"name: x\ndescription: d\nentrypoint: x\nconcurrency: 0\nactions: [{name: a, description: d}]\n",                 // concurrency
		"name: x\ndescription: d\nentrypoint: x\nsecrets: [{name: t, env: low}]\nactions: [{name: a, description: d}]\n", // env
		"name: x\ndescription: d\nentrypoint: x\ninterpreter: node\nactions: [{name: a, description: d}]\n",              // interpreter without mcp
		"name: x\ndescription: d\nentrypoint: x\nprotocol: mcp\ninterpreter: npx\n",                                      // downloader
		"name: x\ndescription: d\nentrypoint: x\nprotocol: mcp\nactions: [{name: a, reversible: maybe}]\n",               // override flag
	} {
		var doc any
		if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
			t.Fatal(err)
		}
		if err := validate(t, doc); err == nil {
			t.Errorf("the schema accepts an invalid manifest:\n%s", src)
		}
		if _, err := ParseBytes("f", []byte(src)); err == nil {
			t.Errorf("Parse accepts an invalid manifest:\n%s", src)
		}
	}
}

func sorted(l []string) []string {
	c := append([]string(nil), l...)
	sort.Strings(c)
	return c
}

func loadYAML(t *testing.T, path string) any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// validate checks doc (as YAML decodes it) against tool.schema.json with
// jsonschema-go, a validator other than our parser.
func validate(t *testing.T, doc any) error {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(FileSchema(), &s); err != nil {
		t.Fatalf("read tool.schema.json: %v", err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("resolve tool.schema.json: %v", err)
	}
	// Validate JSON values, as an editor's validator sees the file.
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return rs.Validate(v)
}
