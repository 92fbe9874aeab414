package surface

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/host/internal/dispatch"
	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// sheetsManifest is the fixture tool the declarations below publish.
const sheetsManifest = `name: sheets
kind: tool
description: Fixture spreadsheet tool.
version: 1.0.0
entrypoint: sheets
actions:
  - name: read-sheet
    description: Read one sheet.
    read_only: true
    args:
      - {name: path, type: string, required: true, description: The file}
      - {name: sheet, type: string, description: The sheet}
      - {name: max-results, type: integer, minimum: 1, default: 100, description: Most rows}
      - {name: format, type: string, enum: [json, csv], default: json, description: Output format}
  - name: copy-sheet
    description: Copy a sheet into a new workbook.
    reversible: true
    args:
      - {name: path, type: string, required: true}
  - name: delete-sheet
    description: Delete a sheet.
    args:
      - {name: path, type: string, required: true}
`

// fixture writes the sheets manifest (after edit) into a plugins folder and
// returns the registry's snapshot.
func fixture(t *testing.T, edit func(string) string) *registry.Snapshot {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sheets")
	must(t, os.MkdirAll(dir, 0o755))
	m := sheetsManifest
	if edit != nil {
		m = edit(m)
	}
	must(t, os.WriteFile(filepath.Join(dir, "tool.yaml"), []byte(m), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "sheets"), []byte("#!/bin/sh\n"), 0o755))
	snap := registry.New(registry.Options{PluginDirs: []string{filepath.Dir(dir)}}).Scan()
	if len(snap.Tools) != 1 {
		t.Fatalf("fixture not loaded: %+v", snap.Broken)
	}
	return snap
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func digestOf(t *testing.T, snap *registry.Snapshot, action string) string {
	t.Helper()
	tool, _ := snap.Tool("sheets")
	return ArgsDigest(tool.Manifest.Action(action))
}

// declaration is a valid declaration of the fixture (digests of the
// unedited manifest); extra tools are appended.
func declaration(t *testing.T, version string, extra ...string) string {
	t.Helper()
	snap := fixture(t, nil)
	d := `surface: chat
surface_version: "` + version + `"
description: Fixture surface.
publish:
  name: io.github.example/fixture
tools:
  - name: sheets_read
    tool: sheets
    action: read-sheet
    title: Read a sheet
    description: Read one sheet's rows.
    args:
      - {name: path, type: string, required: true, description: The file}
      - {name: max-results, type: integer, minimum: 1, default: 100, description: Most rows}
    fixed: {format: json}
    args_digest: ` + digestOf(t, snap, "read-sheet") + "\n"
	for _, e := range extra {
		d += e
	}
	return d
}

func parse(t *testing.T, text string) *Declaration {
	t.Helper()
	d, err := ParseBytes("chat.yaml", []byte(text))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return d
}

// TestParseNamesFileLineAndField: a bad declaration names every problem
// with file, line and field, as tool.yaml's errors do.
func TestParseNamesFileLineAndField(t *testing.T) {
	tests := []struct {
		name, old, new, want string
	}{
		{"not snake_case", "name: sheets_read", "name: sheets-Read", `chat.yaml:7: tools[0].name: "sheets-Read" is not snake_case`},
		{"not namespaced", "name: sheets_read", "name: read_sheet", `chat.yaml:7: tools[0].name: "read_sheet" is not namespaced by its domain: want a name starting with "sheets_"`},
		{"semver", `surface_version: "1.0.0"`, `surface_version: "v1"`, "chat.yaml:2: surface_version: want a semantic version"},
		{"unknown key", "title: Read a sheet", "titel: Read a sheet", `chat.yaml:10: tools[0].titel: unknown key "titel" (did you mean "title"?)`},
		{"arg type", "{name: path, type: string,", "{name: path, type: strin,", `chat.yaml:13: tools[0].args[0].type: unknown type "strin"`},
		{"fixed and published", "fixed: {format: json}", "fixed: {path: x.xlsx}", "chat.yaml:15: tools[0].fixed.path: path is both a published arg and fixed"},
		{"digest", "args_digest: ", "args_digest: abc #", "chat.yaml:16: tools[0].args_digest: want the 64 hex digits"},
		{"missing action", "    action: read-sheet\n", "", "chat.yaml:7: tools[0].action: required field is missing"},
		// The kind and value named as tool.yaml's errors name them.
		{"fixed not a mapping", "fixed: {format: json}", "fixed: 5", "chat.yaml:15: tools[0].fixed: want a mapping of arg name to value, got integer 5"},
		{"title not a string", "title: Read a sheet", "title: [a]", "chat.yaml:10: tools[0].title: want a string, got a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := strings.Replace(declaration(t, "1.0.0"), tt.old, tt.new, 1)
			_, err := ParseBytes("chat.yaml", []byte(text))
			var me *manifests.Error
			if !errors.As(err, &me) {
				t.Fatalf("got %v, want a *manifests.Error", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got:\n%v\nwant a line containing %q", err, tt.want)
			}
		})
	}
}

func TestParseCapsToolsPerDomain(t *testing.T) {
	var extra []string
	for i := range MaxToolsPerDomain {
		extra = append(extra, strings.ReplaceAll(`  - name: sheets_copy_N
    tool: sheets
    action: copy-sheet
    title: Copy
    description: Copy.
    args_digest: 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
`, "N", string(rune('a'+i))))
	}
	_, err := ParseBytes("chat.yaml", []byte(declaration(t, "1.0.0", extra...)))
	if err == nil || !strings.Contains(err.Error(), "more than 12 published tools for sheets") {
		t.Fatalf("got %v, want the per-domain cap", err)
	}
}

// TestResolveFindsDrift: every way a manifest can change under a reviewed
// surface is found, and the message names the published tool.
func TestResolveFindsDrift(t *testing.T) {
	tests := []struct {
		name     string
		edit     func(string) string
		extra    string
		blocking bool
		want     string // "" means no finding
	}{
		{name: "unchanged"},
		{name: "action renamed", blocking: true,
			edit: func(m string) string { return strings.Replace(m, "name: read-sheet", "name: read-sheets", 1) },
			want: `published tool sheets_read: sheets has no action "read-sheet" (renamed or removed?) (did you mean "read-sheets"?)`},
		{name: "required arg added",
			edit: func(m string) string {
				return strings.Replace(m, "      - {name: sheet, type: string, description: The sheet}",
					"      - {name: sheet, type: string, required: true, description: The sheet}", 1)
			},
			want: `published tool sheets_read: sheets read-sheet requires arg "sheet", which the published tool neither requires nor fixes`},
		{name: "args changed since review",
			edit: func(m string) string {
				return strings.Replace(m, "description: The sheet", "description: Which sheet", 1)
			},
			want: "published tool sheets_read: the manifest args of sheets read-sheet changed since it was reviewed"},
		{name: "bound tightened",
			edit: func(m string) string {
				return strings.Replace(m, "minimum: 1, default: 100", "minimum: 10, default: 100", 1)
			},
			want: `published tool sheets_read: publishes arg "max-results" with a lower minimum than sheets read-sheet's 10`},
		{name: "fixed value no longer accepted",
			edit: func(m string) string {
				return strings.Replace(m, "enum: [json, csv], default: json", "enum: [csv], default: csv", 1)
			},
			want: `published tool sheets_read: fixes arg "format" to json, which sheets read-sheet refuses`},
		{name: "became irreversible", blocking: true,
			edit: func(m string) string {
				return strings.Replace(m, "    read_only: true\n", "    reversible: false\n", 1)
			},
			want: "published tool sheets_read: sheets read-sheet is irreversible"},
		{name: "irreversible declared", blocking: true, extra: `  - name: sheets_delete
    tool: sheets
    action: delete-sheet
    title: Delete
    description: Delete a sheet.
    args: [{name: path, type: string, required: true}]
    args_digest: 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
`, want: "published tool sheets_delete: sheets delete-sheet is irreversible (the action name \"delete-sheet\" contains the irreversible verb \"delete\")"},
		{name: "tool gone", blocking: true,
			edit: func(m string) string { return strings.Replace(m, "name: sheets\n", "name: sheetz\n", 1) },
			want: `published tool sheets_read: no tool "sheets" in the registry (did you mean "sheetz"?)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := parse(t, declaration(t, "1.0.0", tt.extra))
			_, findings := Resolve(d, fixture(t, tt.edit))
			if tt.want == "" {
				if len(findings) > 0 {
					t.Fatalf("got findings %v, want none", findings)
				}
				return
			}
			for _, f := range findings {
				if strings.Contains(f.String(), tt.want) {
					if f.Blocking != tt.blocking {
						t.Fatalf("%s: blocking %v, want %v", f, f.Blocking, tt.blocking)
					}
					return
				}
			}
			t.Fatalf("got findings %v, want one containing %q", findings, tt.want)
		})
	}
}

// TestDiffNeedsTheRightBump: removals and narrowing are major, additions
// minor, wording patch.
func TestDiffNeedsTheRightBump(t *testing.T) {
	schema := func(props string, required ...string) map[string]any {
		var s map[string]any
		must(t, json.Unmarshal([]byte(`{"type":"object","additionalProperties":false,"properties":{`+props+`}}`), &s))
		if len(required) > 0 {
			s["required"] = required
		}
		return s
	}
	base := func() []*mcp.Tool {
		return []*mcp.Tool{{Name: "a_read", Title: "Read", Description: "Read it.",
			InputSchema: schema(`"path":{"type":"string"},"n":{"type":"integer","minimum":1},"f":{"type":"string","enum":["x","y"]}`, "path")}}
	}
	tests := []struct {
		name string
		edit func([]*mcp.Tool) []*mcp.Tool
		want Bump
	}{
		{"same", func(l []*mcp.Tool) []*mcp.Tool { return l }, BumpNone},
		{"tool removed", func([]*mcp.Tool) []*mcp.Tool { return nil }, BumpMajor},
		{"tool added", func(l []*mcp.Tool) []*mcp.Tool {
			return append(l, &mcp.Tool{Name: "a_list", InputSchema: schema("")})
		}, BumpMinor},
		{"description", func(l []*mcp.Tool) []*mcp.Tool { l[0].Description = "Read it all."; return l }, BumpPatch},
		{"optional arg added", func(l []*mcp.Tool) []*mcp.Tool {
			l[0].InputSchema = schema(`"path":{"type":"string"},"n":{"type":"integer","minimum":1},"f":{"type":"string","enum":["x","y"]},"z":{"type":"string"}`, "path")
			return l
		}, BumpMinor},
		{"arg became required", func(l []*mcp.Tool) []*mcp.Tool {
			l[0].InputSchema = schema(`"path":{"type":"string"},"n":{"type":"integer","minimum":1},"f":{"type":"string","enum":["x","y"]}`, "path", "n")
			return l
		}, BumpMajor},
		{"enum narrowed", func(l []*mcp.Tool) []*mcp.Tool {
			l[0].InputSchema = schema(`"path":{"type":"string"},"n":{"type":"integer","minimum":1},"f":{"type":"string","enum":["x"]}`, "path")
			return l
		}, BumpMajor},
		{"minimum raised", func(l []*mcp.Tool) []*mcp.Tool {
			l[0].InputSchema = schema(`"path":{"type":"string"},"n":{"type":"integer","minimum":5},"f":{"type":"string","enum":["x","y"]}`, "path")
			return l
		}, BumpMajor},
		{"arg removed", func(l []*mcp.Tool) []*mcp.Tool {
			l[0].InputSchema = schema(`"path":{"type":"string"},"n":{"type":"integer","minimum":1}`, "path")
			return l
		}, BumpMajor},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			changes := Diff(base(), tt.edit(base()))
			if got := Needed(changes); got != tt.want {
				t.Fatalf("got %s (%v), want %s", got, changes, tt.want)
			}
		})
	}
	v := func(s string) Semver { x, err := ParseSemver(s); must(t, err); return x }
	for _, c := range []struct {
		old, new string
		bump     Bump
		ok       bool
	}{
		{"1.2.3", "2.0.0", BumpMajor, true}, {"1.2.3", "1.3.0", BumpMajor, false},
		{"1.2.3", "1.3.0", BumpMinor, true}, {"1.2.3", "1.2.4", BumpMinor, false},
		{"1.2.3", "1.2.4", BumpPatch, true}, {"1.2.3", "1.2.3", BumpPatch, false},
	} {
		if got := Enough(v(c.old), v(c.new), c.bump); got != c.ok {
			t.Errorf("Enough(%s → %s, %s): got %v, want %v", c.old, c.new, c.bump, got, c.ok)
		}
	}
}

// surfaceDir writes a surfaces folder for the fixture with the registry
// schema copy, the declaration text, and (when record) the published files
// of that declaration.
func surfaceDir(t *testing.T, snap *registry.Snapshot, text string, record bool) Files {
	t.Helper()
	f := Files{Dir: t.TempDir(), Name: "chat"}
	schema, err := os.ReadFile(filepath.Join("..", "..", "..", "surfaces", "registry", "server.schema.json"))
	must(t, err)
	must(t, os.MkdirAll(filepath.Join(f.Dir, "registry"), 0o755))
	must(t, os.WriteFile(f.RegistrySchema(), schema, 0o644))
	must(t, os.WriteFile(f.Declaration(), []byte(text), 0o644))
	if record {
		r, err := Audit(f, snap, "1.0.0")
		must(t, err)
		must(t, r.Write(f))
	}
	return f
}

// TestAuditEnforcesTheVersionBump: after a published list is recorded, a
// change fails the check until surface_version grows by what it needs, and
// then until the snapshot is rewritten.
func TestAuditEnforcesTheVersionBump(t *testing.T) {
	snap := fixture(t, nil)
	f := surfaceDir(t, snap, declaration(t, "1.0.0"), true)
	r, err := Audit(f, snap, "1.0.0")
	must(t, err)
	if len(r.Problems) > 0 {
		t.Fatalf("fresh surface: got problems %v", r.Problems)
	}

	// Narrow the published schema: max-results leaves the surface.
	text := strings.Replace(declaration(t, "1.1.0"), "      - {name: max-results, type: integer, minimum: 1, default: 100, description: Most rows}\n", "", 1)
	must(t, os.WriteFile(f.Declaration(), []byte(text), 0o644))
	r, err = Audit(f, snap, "1.0.0")
	must(t, err)
	want := `published tool sheets_read: arg "max-results" removed (a major change): needs a major bump of surface_version (1.0.0 published; at least 2.0.0)`
	if !slices.ContainsFunc(r.Problems, func(p string) bool { return strings.Contains(p, want) }) {
		t.Fatalf("got %v, want %q", r.Problems, want)
	}
	if err := r.Write(f); err == nil {
		t.Fatal("Write recorded a narrowed surface without a major bump")
	}

	must(t, os.WriteFile(f.Declaration(), []byte(strings.Replace(text, `"1.1.0"`, `"2.0.0"`, 1)), 0o644))
	r, err = Audit(f, snap, "1.0.0")
	must(t, err)
	if len(r.Problems) != 2 || !strings.Contains(r.Problems[0], "chat.published.json is out of date") || !strings.Contains(r.Problems[1], "chat.server.json is not what the declaration generates") {
		t.Fatalf("got %v, want the snapshot and server.json out of date", r.Problems)
	}
	must(t, r.Write(f))
	r, err = Audit(f, snap, "1.0.0")
	must(t, err)
	if len(r.Problems) > 0 {
		t.Fatalf("after writing: got %v", r.Problems)
	}
	p, err := ReadPublished(f.Published())
	must(t, err)
	if p.SurfaceVersion != "2.0.0" || p.ToolsDigest != r.Published.ToolsDigest {
		t.Fatalf("snapshot: got %s %s", p.SurfaceVersion, p.ToolsDigest)
	}
}

// TestServerJSONValidates: the generated server.json validates against
// the registry's schema (copied from modelcontextprotocol/registry, see
// surfaces/registry/README.md), and a description over the registry's 100
// characters does not.
func TestServerJSONValidates(t *testing.T) {
	schema, err := os.ReadFile(filepath.Join("..", "..", "..", "surfaces", "registry", "server.schema.json"))
	must(t, err)
	d := parse(t, declaration(t, "1.0.0"))
	doc, err := ServerJSON(d, "0.1.0", &Published{SurfaceVersion: "1.0.0", ToolsDigest: strings.Repeat("a", 64)})
	must(t, err)
	if err := ValidateServerJSON(doc, schema); err != nil {
		t.Fatalf("generated server.json: %v\n%s", err, doc)
	}
	d.Description = strings.Repeat("x", 101)
	doc, err = ServerJSON(d, "0.1.0", &Published{})
	must(t, err)
	if err := ValidateServerJSON(doc, schema); err == nil || !strings.Contains(err.Error(), "description") {
		t.Fatalf("a 101-character description: got %v, want a schema error", err)
	}
	d.Description = "ok"
	d.Publish.Name = "no-slash"
	doc, _ = ServerJSON(d, "0.1.0", &Published{})
	if err := ValidateServerJSON(doc, schema); err == nil {
		t.Fatal("a name without a namespace validated")
	}
	// The committed chat surface's entry validates too.
	committed, err := os.ReadFile(filepath.Join("..", "..", "..", "surfaces", "chat.server.json"))
	must(t, err)
	if err := ValidateServerJSON(committed, schema); err != nil {
		t.Fatalf("surfaces/chat.server.json: %v", err)
	}
}

// TestTheChatDeclarationParses: the shipped declaration is well formed,
// publishes at most MaxToolsPerDomain tools per domain, and every name is
// namespaced by its tool.
func TestTheChatDeclarationParses(t *testing.T) {
	d, err := Parse(filepath.Join("..", "..", "..", "surfaces", "chat.yaml"))
	must(t, err)
	if d.Surface != "chat" || len(d.Tools) == 0 {
		t.Fatalf("got surface %q with %d tools", d.Surface, len(d.Tools))
	}
}

// fakeRunner records the calls the curated server makes.
type fakeRunner struct {
	mu    sync.Mutex
	calls []dispatch.Call
}

func (f *fakeRunner) Run(_ context.Context, call dispatch.Call, _ func(*wire.Progress)) dispatch.Outcome {
	f.mu.Lock()
	f.calls = append(f.calls, call)
	f.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"ran": call.Name + " " + call.Action, "args": json.RawMessage(call.Args)})
	return dispatch.Outcome{JSON: b}
}

// TestServerPublishesExactlyTheDeclaredTools: tools/list gives the
// declared tools with the manifest's annotations; a call runs the action
// with the fixed args added, through the surface (so the gate has no
// approval path); an arg the surface does not publish is refused with
// did_you_mean even when the action takes it.
func TestServerPublishesExactlyTheDeclaredTools(t *testing.T) {
	snap := fixture(t, nil)
	d := parse(t, declaration(t, "1.0.0", `  - name: sheets_copy
    tool: sheets
    action: copy-sheet
    title: Copy a sheet
    description: Copy a sheet into a new workbook.
    args: [{name: path, type: string, required: true}]
    args_digest: `+digestOf(t, snap, "copy-sheet")+"\n"))
	resolved, findings := Resolve(d, snap)
	if len(findings) > 0 {
		t.Fatal(findings)
	}
	runner := &fakeRunner{}
	srv, err := NewServer(Options{Declaration: d, Resolved: resolved, Runner: runner, Version: "test"})
	must(t, err)
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	go func() { _ = srv.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "surface-test", Version: "1"}, nil).Connect(ctx, ct, nil)
	must(t, err)
	defer cs.Close()

	list, err := cs.ListTools(ctx, nil)
	must(t, err)
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		switch tool.Name {
		case "sheets_read":
			if !tool.Annotations.ReadOnlyHint || *tool.Annotations.DestructiveHint {
				t.Errorf("sheets_read annotations: got %+v, want read-only, not destructive", tool.Annotations)
			}
		case "sheets_copy":
			if tool.Annotations.ReadOnlyHint {
				t.Errorf("sheets_copy writes: got readOnlyHint true")
			}
		}
	}
	if want := []string{"sheets_copy", "sheets_read"}; !slices.Equal(names, want) {
		t.Fatalf("tools: got %v, want %v", names, want)
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sheets_read", Arguments: map[string]any{"path": "b.xlsx"}})
	must(t, err)
	if res.IsError {
		t.Fatalf("call: %v", res.StructuredContent)
	}
	runner.mu.Lock()
	call := runner.calls[0]
	runner.mu.Unlock()
	var args map[string]any
	must(t, json.Unmarshal(call.Args, &args))
	if call.Name != "sheets" || call.Action != "read-sheet" || call.Surface != "chat" || call.Confirmed ||
		args["format"] != "json" || args["path"] != "b.xlsx" || args["max-results"] != float64(100) {
		t.Fatalf("call: got %+v with args %v", call, args)
	}
	if call.Caller.GetClientName() != "surface-test" {
		t.Errorf("caller: got %q, want surface-test", call.Caller.GetClientName())
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "sheets_read", Arguments: map[string]any{"path": "b.xlsx", "sheet": "S"}})
	must(t, err)
	body, _ := json.Marshal(res.StructuredContent)
	if !res.IsError || !strings.Contains(string(body), `"code":"invalid_args"`) || !strings.Contains(string(body), "sheets_read: unknown arg 'sheet'") {
		t.Fatalf("unpublished arg: got %s", body)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "sheets_read", Arguments: map[string]any{"path": "b.xlsx", "max_results": 3}})
	must(t, err)
	body, _ = json.Marshal(res.StructuredContent)
	if !res.IsError || !strings.Contains(string(body), `"did_you_mean":["max-results"]`) {
		t.Fatalf("max_results: got %s", body)
	}
}

// TestCuratedSurfaceOverHTTP: the same server over Streamable HTTP lists
// the declared tools and runs them, and its tools digest (what
// server/discover reports) is the one the snapshot and server.json carry.
func TestCuratedSurfaceOverHTTP(t *testing.T) {
	snap := fixture(t, nil)
	d := parse(t, declaration(t, "1.0.0"))
	resolved, findings := Resolve(d, snap)
	if len(findings) > 0 {
		t.Fatal(findings)
	}
	runner := &fakeRunner{}
	srv, err := NewServer(Options{Declaration: d, Resolved: resolved, Runner: runner})
	must(t, err)
	pub, err := NewPublished(d, Tools(resolved))
	must(t, err)
	if srv.ToolsDigest() != pub.ToolsDigest {
		t.Fatalf("served tools digest %s, snapshot's %s", srv.ToolsDigest(), pub.ToolsDigest)
	}
	hs := httptest.NewServer(srv.HTTPHandler(""))
	defer hs.Close()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-surface", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	must(t, err)
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	must(t, err)
	if len(list.Tools) != 1 || list.Tools[0].Name != "sheets_read" {
		t.Fatalf("tools over HTTP: got %d tools, want sheets_read alone", len(list.Tools))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sheets_read", Arguments: map[string]any{"path": "b.xlsx"}})
	if err != nil || res.IsError {
		t.Fatalf("call over HTTP: %v %+v", err, res)
	}
	runner.mu.Lock()
	defer runner.mu.Unlock()
	if len(runner.calls) != 1 || runner.calls[0].Surface != "chat" {
		t.Fatalf("calls: got %+v", runner.calls)
	}
}

// TestListStaysTheSameAcrossPluginUpdates: a manifest update that leaves
// the published args alone (new wording, a new optional arg, a new action)
// does not change the published list a client caches; only the
// declaration does.
func TestListStaysTheSameAcrossPluginUpdates(t *testing.T) {
	d := parse(t, declaration(t, "1.0.0"))
	digest := func(edit func(string) string) string {
		resolved, _ := Resolve(d, fixture(t, edit))
		p, err := NewPublished(d, Tools(resolved))
		must(t, err)
		return p.ToolsDigest
	}
	before := digest(nil)
	after := digest(func(m string) string {
		m = strings.Replace(m, "description: Read one sheet.", "description: Read one sheet, faster.", 1)
		m = strings.Replace(m, "description: Output format}", "description: Output format}\n      - {name: skip-empty, type: boolean, description: Skip empty rows}", 1)
		return m + "  - name: list-sheets\n    description: List sheets.\n    read_only: true\n"
	})
	if before != after {
		t.Fatalf("the published list changed with the manifest: %s → %s", before, after)
	}
}
