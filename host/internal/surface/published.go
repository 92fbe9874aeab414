package surface

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/host/internal/mcpproto"
)

// Published is the committed snapshot of a surface's published tool list
// (surfaces/chat.published.json): what clients were last given, against
// which the next surface_version is judged.
type Published struct {
	Surface        string      `json:"surface"`
	SurfaceVersion string      `json:"surface_version"`
	ToolsDigest    string      `json:"tools_digest"`
	Tools          []*mcp.Tool `json:"tools"`
}

// NewPublished is the snapshot of tools published as d's version.
func NewPublished(d *Declaration, tools []*mcp.Tool) (*Published, error) {
	digest, err := mcpproto.Digest(tools)
	if err != nil {
		return nil, fmt.Errorf("surface: %w", err)
	}
	return &Published{Surface: d.Surface, SurfaceVersion: d.Version.String(), ToolsDigest: digest, Tools: tools}, nil
}

// ReadPublished reads a snapshot file.
func ReadPublished(path string) (*Published, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("surface: read %s: %w", path, err)
	}
	var p Published
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("surface: %s: %w", path, err)
	}
	return &p, nil
}

// Encode renders the snapshot as indented JSON with a final newline.
func (p *Published) Encode() ([]byte, error) { return encodeFile("snapshot", p) }

// encodeFile renders v as the surface's files are written: indented JSON,
// no HTML escaping, a final newline.
func encodeFile(what string, v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("surface: encode %s: %w", what, err)
	}
	return buf.Bytes(), nil
}

// Bump is how much surface_version must grow for a change.
type Bump int

// The bumps, smallest first.
const (
	BumpNone  Bump = iota // nothing a client sees changed
	BumpPatch             // wording or hints: titles, descriptions, defaults, annotations
	BumpMinor             // additions: a new tool, a new optional arg, a wider schema
	BumpMajor             // removals and narrowing: a client's valid call may now fail
)

// String names the bump: none, patch, minor or major.
func (b Bump) String() string {
	return [...]string{"none", "patch", "minor", "major"}[b]
}

// Change is one difference between two published lists, and the bump it
// needs.
type Change struct {
	Tool string
	Bump Bump
	What string
}

// String renders "published tool NAME: what (needs a BUMP bump)".
func (c Change) String() string {
	return fmt.Sprintf("published tool %s: %s (a %s change)", c.Tool, c.What, c.Bump)
}

// Diff lists what changed from the published tools old to the tools new.
func Diff(old, new []*mcp.Tool) []Change {
	var out []Change
	byName := func(l []*mcp.Tool) map[string]map[string]any {
		m := map[string]map[string]any{}
		for _, t := range l {
			m[t.Name] = normal(t).(map[string]any)
		}
		return m
	}
	o, n := byName(old), byName(new)
	for _, name := range slices.Sorted(maps.Keys(o)) {
		if _, ok := n[name]; !ok {
			out = append(out, Change{name, BumpMajor, "removed"})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(n)) {
		ot, ok := o[name]
		if !ok {
			out = append(out, Change{name, BumpMinor, "added"})
			continue
		}
		nt := n[name]
		for _, k := range []string{"title", "description", "annotations"} {
			if !reflect.DeepEqual(ot[k], nt[k]) {
				out = append(out, Change{name, BumpPatch, k + " changed"})
			}
		}
		for _, c := range schemaDiff(asMap(ot["inputSchema"]), asMap(nt["inputSchema"])) {
			c.Tool = name
			out = append(out, c)
		}
	}
	return out
}

// schemaDiff compares two input schemas as the host writes them (an
// object of typed properties, required, additionalProperties false).
func schemaDiff(o, n map[string]any) []Change {
	var out []Change
	add := func(b Bump, format string, a ...any) {
		out = append(out, Change{Bump: b, What: fmt.Sprintf(format, a...)})
	}
	op, np := asMap(o["properties"]), asMap(n["properties"])
	oreq, nreq := asStrings(o["required"]), asStrings(n["required"])
	for _, k := range slices.Sorted(maps.Keys(op)) {
		if _, ok := np[k]; !ok {
			add(BumpMajor, "arg %q removed", k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(np)) {
		if _, ok := op[k]; !ok {
			if slices.Contains(nreq, k) {
				add(BumpMajor, "required arg %q added", k)
			} else {
				add(BumpMinor, "optional arg %q added", k)
			}
			continue
		}
		if slices.Contains(nreq, k) && !slices.Contains(oreq, k) {
			add(BumpMajor, "arg %q became required", k)
		}
		if !slices.Contains(nreq, k) && slices.Contains(oreq, k) {
			add(BumpMinor, "arg %q became optional", k)
		}
		out = append(out, propDiff(k, asMap(op[k]), asMap(np[k]))...)
	}
	return out
}

func propDiff(name string, o, n map[string]any) []Change {
	var out []Change
	add := func(b Bump, format string, a ...any) {
		out = append(out, Change{Bump: b, What: fmt.Sprintf(format, a...)})
	}
	if o["type"] != n["type"] {
		if o["type"] == "integer" && n["type"] == "number" {
			add(BumpMinor, "arg %q widened from integer to number", name)
		} else {
			add(BumpMajor, "arg %q retyped from %v to %v", name, o["type"], n["type"])
		}
	}
	oe, ne := asSlice(o["enum"]), asSlice(n["enum"])
	switch {
	case oe == nil && ne != nil:
		add(BumpMajor, "arg %q limited to an enum", name)
	case oe != nil && ne == nil:
		add(BumpMinor, "arg %q no longer limited to an enum", name)
	default:
		for _, v := range oe {
			if !containsValue(ne, v) {
				add(BumpMajor, "arg %q no longer accepts %v", name, v)
			}
		}
		for _, v := range ne {
			if !containsValue(oe, v) {
				add(BumpMinor, "arg %q now accepts %v", name, v)
			}
		}
	}
	for _, b := range []struct {
		key     string
		tighter func(o, n float64) bool
	}{
		{"minimum", func(o, n float64) bool { return n > o }},
		{"maximum", func(o, n float64) bool { return n < o }},
	} {
		ov, oOK := o[b.key].(float64)
		nv, nOK := n[b.key].(float64)
		switch {
		case !oOK && nOK, oOK && nOK && b.tighter(ov, nv):
			add(BumpMajor, "arg %q's %s tightened", name, b.key)
		case oOK && !nOK, oOK && nOK && ov != nv:
			add(BumpMinor, "arg %q's %s loosened", name, b.key)
		}
	}
	if !reflect.DeepEqual(o["items"], n["items"]) {
		add(BumpMajor, "arg %q's items changed", name)
	}
	for _, k := range []string{"description", "default"} {
		if !reflect.DeepEqual(o[k], n[k]) {
			add(BumpPatch, "arg %q's %s changed", name, k)
		}
	}
	return out
}

// Needed is the largest bump the changes need.
func Needed(changes []Change) Bump {
	b := BumpNone
	for _, c := range changes {
		b = max(b, c.Bump)
	}
	return b
}

// Enough reports whether going from version old to new is at least the
// bump b: major needs a new major; minor a new major or minor; patch any
// newer version.
func Enough(old, new Semver, b Bump) bool {
	switch b {
	case BumpMajor:
		return new.Major > old.Major
	case BumpMinor:
		return new.Major > old.Major || (new.Major == old.Major && new.Minor > old.Minor)
	case BumpPatch:
		return new.Compare(old) > 0
	}
	return true
}

// Suggest is the smallest version after old that is the bump b.
func Suggest(old Semver, b Bump) Semver {
	switch b {
	case BumpMajor:
		return Semver{old.Major + 1, 0, 0}
	case BumpMinor:
		return Semver{old.Major, old.Minor + 1, 0}
	case BumpPatch:
		return Semver{old.Major, old.Minor, old.Patch + 1}
	}
	return old
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func asStrings(v any) []string {
	var out []string
	for _, x := range asSlice(v) {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func containsValue(l []any, v any) bool {
	for _, x := range l {
		if reflect.DeepEqual(x, v) {
			return true
		}
	}
	return false
}
