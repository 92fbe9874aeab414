package discovery

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/registry"
)

// snapshot builds a registry snapshot from manifests written to a temp
// folder (with stand-in binaries).
func snapshot(t *testing.T, manifests map[string]string) *registry.Snapshot {
	t.Helper()
	root := t.TempDir()
	for name, m := range manifests {
		dir := filepath.Join(root, name)
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "tool.yaml"), []byte(m), 0o644)
		os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755)
	}
	snap := registry.New(registry.Options{PluginDirs: []string{root}}).Scan()
	if len(snap.Broken) > 0 {
		t.Fatalf("broken: %+v", snap.Broken)
	}
	return snap
}

const sheets = `name: sheets
description: Read workbooks.
entrypoint: sheets
actions:
  - name: read-sheet
    description: Read one sheet's rows.
    read_only: true
    args:
      - {name: path, type: string, required: true, description: The workbook}
      - {name: max-results, type: integer, minimum: 1, default: 100}
      - {name: mode, type: string, enum: [values, formulas]}
    narrow_with: [max-results]
  - name: delete-sheet
    description: Delete a sheet.
    args:
      - {name: path, type: string, required: true}
`

func bigTool(n int) string {
	var b strings.Builder
	b.WriteString("name: big\ndescription: Many actions.\nentrypoint: big\nactions:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - name: action-%d\n    description: %s\n    read_only: true\n    args:\n      - {name: arg, type: string, description: %s}\n",
			i, strings.Repeat("words ", 20), strings.Repeat("more ", 20))
	}
	return b.String()
}

func TestNarrowestFirst(t *testing.T) {
	snap := snapshot(t, map[string]string{"sheets": sheets, "big": bigTool(200)})
	tests := []struct {
		name string
		q    Query
		want []string
		not  []string
	}{
		{"list", Query{}, []string{`"name":"sheets"`, `"description":"Read workbooks."`, `"actions":2`, `"skills":[]`}, []string{"input_schema", "read-sheet"}},
		{"search", Query{Search: "sheet"}, []string{`"action":"read-sheet"`, `"action":"delete-sheet"`}, []string{"input_schema", "action-1"}},
		{"action", Query{Name: "sheets", Action: "read-sheet"}, []string{
			`"call":{"action":"read-sheet","args":{"path":"…"},"tool":"sheets"}`, `"enum":["values","formulas"]`, `"required":true`, `"run_with":"run_tool"`}, nil},
		{"irreversible action", Query{Name: "sheets", Action: "delete-sheet"}, []string{`"irreversible"`, `run_tool_confirmed`}, nil},
		{"full schema", Query{Name: "sheets"}, []string{`"input_schema"`, `"additionalProperties":false`}, []string{"truncated"}},
		{"oversized degrades to the index", Query{Name: "big"}, []string{`"truncated":true`, `"name":"action-199"`, `\"action\":\"…\"`}, []string{"input_schema"}},
		{"kind filter", Query{Kind: "agent"}, []string{`"agents":[]`}, []string{`"tools"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ans, env := Answer(snap, tt.q, 0)
			if env != nil {
				t.Fatalf("error: %v", env)
			}
			got := testplugin.JSON(t, ans)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("answer lacks %s:\n%.600s", w, got)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("answer has %s, which a narrower answer leaves out:\n%.400s", n, got)
				}
			}
		})
	}
}

func TestDegradeKeysOffSize(t *testing.T) {
	snap := snapshot(t, map[string]string{"sheets": sheets})
	full, _ := Answer(snap, Query{Name: "sheets"}, 0)
	size := len(testplugin.JSON(t, full))
	if ans, _ := Answer(snap, Query{Name: "sheets"}, size); ans["truncated"] != nil {
		t.Fatal("degraded at exactly the limit")
	}
	if ans, _ := Answer(snap, Query{Name: "sheets"}, size-1); ans["truncated"] != true {
		t.Fatal("did not degrade one byte over the limit")
	}
}

func TestBadQueriesAnswerThemselves(t *testing.T) {
	snap := snapshot(t, map[string]string{"sheets": sheets})
	tests := []struct {
		q          Query
		code, want string
	}{
		{Query{Name: "sheet"}, "unknown_tool", "sheets"},
		{Query{Name: "sheets", Action: "read_sheet"}, "unknown_action", "read-sheet"},
		{Query{Kind: "tools"}, "invalid_args", "tool"},
		{Query{Action: "read-sheet"}, "invalid_args", ""},
	}
	for _, tt := range tests {
		_, env := Answer(snap, tt.q, 0)
		if env == nil || string(env.Code) != tt.code || (tt.want != "" && (len(env.DidYouMean) == 0 || env.DidYouMean[0] != tt.want)) {
			t.Errorf("%+v: got %v, want %s with did_you_mean %s", tt.q, env, tt.code, tt.want)
		}
	}
}
