package manifests

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// unmarshal decodes what Marshal wrote as the host's manifest cache does
// (numbers as json.Number, unknown fields refused) and finishes it with
// Restore.
func unmarshal(path string, data []byte) (*Manifest, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if err := Restore(path, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// roundTrip marshals what ParseBytes gave for data and unmarshals it, and
// fails unless the two manifests are equal.
func roundTrip(t *testing.T, path string, data []byte) {
	t.Helper()
	m, err := ParseBytes(path, data)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	enc, err := Marshal(m)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	back, err := unmarshal(path, enc)
	if err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	if !reflect.DeepEqual(back, m) {
		t.Fatalf("round trip changed the manifest:\ngot  %+v\nwant %+v", back, m)
	}
}

// TestMarshalRoundTrip holds every manifest the project ships (the
// plugins', the example's, the test data's) to coming back from the cache
// form exactly as ParseBytes gave it.
func TestMarshalRoundTrip(t *testing.T) {
	var files []string
	for _, g := range []string{"../plugins/*/tool.yaml", "../examples/*/tool.yaml", "testdata/valid/*.yaml"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	if len(files) < 8 {
		t.Fatalf("found %d manifests, want the shipped ones: %v", len(files), files)
	}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			roundTrip(t, f, data)
		})
	}
}

// TestMarshalKeepsTypes checks the values JSON alone would not bring back
// in their type: enums and defaults of each arg type, free-form schemas
// with numbers, durations and limits.
func TestMarshalKeepsTypes(t *testing.T) {
	const manifest = `name: typed
description: d
entrypoint: typed
timeout: 90s
idle: 2m
memory: 512MiB
cpu_time: 1m
env: [A_B]
secrets: [{name: token, env: TYPED_TOKEN, required: true}]
actions:
  - name: a
    description: d
    read_only: true
    output_schema: {type: object, properties: {n: {type: integer, maximum: 10}, f: {type: number, minimum: 0.5}}}
    args:
      - {name: i, type: integer, enum: [1, 2, 3], default: 2, minimum: 1, maximum: 3}
      - {name: f, type: number, enum: [0.5, 1.5, 3], default: 3}
      - {name: s, type: string, enum: [x, "2"], default: "2"}
      - {name: b, type: boolean, default: true}
      - {name: l, type: array, items: {type: integer, minimum: 0}, default: [1, 2]}
      - {name: o, type: object, default: {k: 1.25, n: null, l: [a, true]}}
prompts: [{name: p, description: d, arguments: [{name: q, required: true}]}]
resources: [{uri: "typed://index", name: index}]
resource_templates: [{uri_template: "typed://page/{+path}", name: page}]
`
	roundTrip(t, "typed/tool.yaml", []byte(manifest))
	m, err := ParseBytes("typed/tool.yaml", []byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	enc, err := Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	back, err := unmarshal("elsewhere/tool.yaml", enc)
	if err != nil {
		t.Fatal(err)
	}
	args := back.Actions[0].Args
	for _, c := range []struct {
		got, want any
	}{
		{args[0].Default, int64(2)}, {args[0].Enum[2], int64(3)},
		{args[1].Default, float64(3)}, {args[1].Enum[0], 0.5},
		{args[2].Default, "2"}, {args[3].Default, true},
		{args[4].Default, []any{json.Number("1"), json.Number("2")}},
		{back.Path, "elsewhere/tool.yaml"},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("got %#v, want %#v", c.got, c.want)
		}
	}
}

// FuzzMarshal holds every manifest that parses to the cache form: Marshal
// encodes it and Unmarshal gives back an equal manifest.
func FuzzMarshal(f *testing.F) {
	addValidSeeds(f)
	f.Add([]byte(base))
	f.Add([]byte(checkManifest))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseBytes("f.yaml", data)
		if err != nil {
			return
		}
		enc, err := Marshal(m)
		if err != nil {
			t.Fatalf("Marshal refused a parsed manifest: %v", err)
		}
		back, err := unmarshal("f.yaml", enc)
		if err != nil || !reflect.DeepEqual(back, m) {
			t.Fatalf("round trip: %v\ngot  %+v\nwant %+v", err, back, m)
		}
	})
}
