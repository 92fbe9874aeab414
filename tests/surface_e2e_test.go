package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// publishedChat is surfaces/chat.published.json: the tools the chat
// surface publishes, as last recorded.
type publishedChat struct {
	SurfaceVersion string `json:"surface_version"`
	ToolsDigest    string `json:"tools_digest"`
	Tools          []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

func readPublishedChat(t *testing.T) publishedChat {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "surfaces", "chat.published.json"))
	must(t, err)
	var p publishedChat
	must(t, json.Unmarshal(raw, &p))
	return p
}

// surfaceCall is one call of the curated surface and the run_tool call the
// generic surface answers the same way.
type surfaceCall struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
	RunTool   map[string]any `json:"run_tool"`
}

// volatile are result keys that differ between any two runs (clocks,
// timings, commit hashes); they are left out of the comparison, and so are
// ULIDs (notes' ids, operation ids and session handles) inside strings.
var volatile = []string{"op", "commit", "created", "updated", "session_handle", "last_scan", "last_scan_us"}

var ulid = regexp.MustCompile(`\b[0-9A-HJKMNP-TV-Z]{26}\b`)

func scrub(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, val := range x {
			if !slices.Contains(volatile, k) {
				out[k] = scrub(val)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = scrub(val)
		}
		return out
	case string:
		return ulid.ReplaceAllString(x, "<ulid>")
	}
	return v
}

// TestCuratedSurfaceMatchesGeneric: the TypeScript SDK client lists
// exactly the published tools on `host serve --surface chat` (none
// destructive), and each answers what run_tool answers on the generic
// surface for the same action and args (fixed args included).
func TestCuratedSurfaceMatchesGeneric(t *testing.T) {
	node, _ := npmClients(t)
	if !slices.Contains(realPluginNames, "xlsx") {
		t.Fatal("plugin xlsx did not build")
	}
	e, exp, brain := realEnv(t)
	// A workbook from calamine's test suite (see plugins/xlsx/testdata/corpus/SOURCES.tsv).
	book := filepath.Join(repoRoot, "plugins", "xlsx", "testdata", "corpus", "files", "calamine__merge_cells.xlsx")
	e.vars = append(e.vars, "XLSX_ROOTS="+filepath.Dir(book), "HOST_SURFACE_DIR="+filepath.Join(repoRoot, "surfaces"))

	run := func(tool, action string, args map[string]any) map[string]any {
		return map[string]any{"tool": tool, "action": action, "args": args}
	}
	with := func(m map[string]any, k string, v any) map[string]any {
		out := map[string]any{k: v}
		for kk, vv := range m {
			out[kk] = vv
		}
		return out
	}
	period := map[string]any{"from": exp.From, "to": exp.To, "timezone": "UTC", "by": "model"}
	memory := map[string]any{"type": "gotcha", "content": "The staging queue drops messages larger than 256 KB."}
	calls := map[string]surfaceCall{
		"xlsx_list_sheets":      {Arguments: map[string]any{"path": book}, RunTool: run("xlsx", "list-sheets", map[string]any{"path": book})},
		"xlsx_read_sheet":       {Arguments: map[string]any{"path": book, "max-results": 5}, RunTool: run("xlsx", "read-sheet", map[string]any{"path": book, "max-results": 5})},
		"xlsx_read_range":       {Arguments: map[string]any{"path": book, "range": "A1:C3"}, RunTool: run("xlsx", "read-range", map[string]any{"path": book, "range": "A1:C3"})},
		"xlsx_read_records":     {Arguments: map[string]any{"path": book}, RunTool: run("xlsx", "records", map[string]any{"path": book})},
		"xlsx_search":           {Arguments: map[string]any{"path": book, "query": "a"}, RunTool: run("xlsx", "search", map[string]any{"path": book, "query": "a"})},
		"xlsx_describe_columns": {Arguments: map[string]any{"path": book}, RunTool: run("xlsx", "describe", map[string]any{"path": book})},
		"usage_get_usage":       {Arguments: period, RunTool: run("usage", "get-usage", with(period, "include-project-names", false))},
		"usage_get_savings": {Arguments: map[string]any{"period": "last_7_days", "timezone": "UTC"},
			RunTool: run("usage", "get-savings", map[string]any{"period": "last_7_days", "timezone": "UTC", "include-project-names": false})},
		"usage_get_blocks": {Arguments: map[string]any{"from": exp.From, "to": exp.To, "timezone": "UTC"},
			RunTool: run("usage", "blocks", map[string]any{"from": exp.From, "to": exp.To, "timezone": "UTC"})},
		"usage_sources":  {Arguments: map[string]any{}, RunTool: run("usage", "status", map[string]any{})},
		"notes_remember": {Arguments: memory, RunTool: run("notes", "remember", memory)},
		"notes_recall":   {Arguments: map[string]any{"task": "fix the staging queue"}, RunTool: run("notes", "recall", map[string]any{"task": "fix the staging queue"})},
		"notes_search":   {Arguments: map[string]any{"query": "staging queue"}, RunTool: run("notes", "search", map[string]any{"query": "staging queue"})},
		"notes_read":     {Arguments: map[string]any{"id": "The staging queue drops messages larger than 256 KB."}, RunTool: run("notes", "read", map[string]any{"id": "The staging queue drops messages larger than 256 KB."})},
		"notes_facts":    {Arguments: map[string]any{}, RunTool: run("notes", "facts", map[string]any{})},
	}
	published := readPublishedChat(t)
	var want []string
	var list []surfaceCall
	// remember first, so recall, search and read find the memory.
	order := []string{"notes_remember"}
	for _, p := range published.Tools {
		want = append(want, p.Name)
		if p.Name != "notes_remember" {
			order = append(order, p.Name)
		}
	}
	for _, name := range order {
		c, ok := calls[name]
		if !ok {
			t.Fatalf("no call for published tool %s: add one to this test", name)
		}
		c.Tool = name
		list = append(list, c)
	}
	callsFile := filepath.Join(t.TempDir(), "calls.json")
	must(t, os.WriteFile(callsFile, mustJSON(t, list), 0o644))
	// Each server gets its own notes brain, so both remember the same
	// memory into the same empty brain.
	e.vars = append(e.vars,
		`SURFACE_ENV_CURATED={"NOTES_BRAIN":"`+brain+`-curated"}`,
		`SURFACE_ENV_GENERIC={"NOTES_BRAIN":"`+brain+`-generic"}`)
	out := runNode(t, e, node, filepath.Join("clients", "ts-surface-client.mjs"), hostBin, callsFile)
	var got struct {
		Server string `json:"server"`
		Tools  []struct {
			Name            string `json:"name"`
			ReadOnlyHint    *bool  `json:"readOnlyHint"`
			DestructiveHint *bool  `json:"destructiveHint"`
		} `json:"tools"`
		Results []struct {
			Tool    string `json:"tool"`
			Curated answer `json:"curated"`
			Generic answer `json:"generic"`
		} `json:"results"`
	}
	if err := json.Unmarshal(lastLine(out), &got); err != nil {
		t.Fatalf("client output: %v\n%s", err, out)
	}
	var names []string
	for _, tool := range got.Tools {
		names = append(names, tool.Name)
		if tool.DestructiveHint == nil || *tool.DestructiveHint {
			t.Errorf("%s: destructiveHint %v, want false (the surface publishes reversible actions only)", tool.Name, tool.DestructiveHint)
		}
	}
	if !slices.Equal(names, want) {
		t.Fatalf("tools/list on --surface chat: got %v, want exactly %v", names, want)
	}
	if got.Server != "toolhost-chat" {
		t.Errorf("serverInfo.name: got %q, want toolhost-chat", got.Server)
	}
	for _, r := range got.Results {
		if r.Curated.IsError != r.Generic.IsError {
			t.Errorf("%s: isError %v, run_tool %v\ncurated: %s\ngeneric: %s", r.Tool, r.Curated.IsError, r.Generic.IsError, r.Curated.Text, r.Generic.Text)
			continue
		}
		// Each server has its own brain; the answers name its folder.
		c := strings.ReplaceAll(string(mustJSON(t, scrub(r.Curated.StructuredContent))), brain+"-curated", "<brain>")
		g := strings.ReplaceAll(string(mustJSON(t, scrub(r.Generic.StructuredContent))), brain+"-generic", "<brain>")
		if c != g {
			t.Errorf("%s answers differently from run_tool:\ncurated: %s\ngeneric: %s", r.Tool, c, g)
		}
		if r.Curated.StructuredContent == nil {
			t.Errorf("%s: no structuredContent", r.Tool)
		}
	}
}

type answer struct {
	IsError           bool   `json:"isError"`
	StructuredContent any    `json:"structuredContent"`
	Text              string `json:"text"`
}

// surfaceHost runs `host ARGS` with the real plugins (after edit, when
// given, applied to their copies) and the repository's surfaces folder.
func surfaceHost(t *testing.T, edit func(plugins string), args ...string) (int, string) {
	t.Helper()
	plugins := t.TempDir()
	for _, name := range realPluginNames {
		raw, err := os.ReadFile(filepath.Join(realPlugins, name, "tool.yaml"))
		must(t, err)
		must(t, os.MkdirAll(filepath.Join(plugins, name), 0o755))
		must(t, os.WriteFile(filepath.Join(plugins, name, "tool.yaml"), raw, 0o644))
	}
	if edit != nil {
		edit(plugins)
	}
	cmd := exec.Command(hostBin, args...)
	cmd.Env = append(filteredEnviron(), "HOST_PLUGIN_PATH="+plugins, "HOST_SKILL_PATH="+t.TempDir(),
		"HOST_SURFACE_DIR="+filepath.Join(repoRoot, "surfaces"), "XDG_DATA_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir())
	cmd.Stdin = strings.NewReader("")
	out, _ := cmd.CombinedOutput()
	return cmd.ProcessState.ExitCode(), string(out)
}

func editManifest(t *testing.T, plugins, tool, old, new string) {
	t.Helper()
	p := filepath.Join(plugins, tool, "tool.yaml")
	raw, err := os.ReadFile(p)
	must(t, err)
	if !strings.Contains(string(raw), old) {
		t.Fatalf("%s has no %q", p, old)
	}
	must(t, os.WriteFile(p, []byte(strings.Replace(string(raw), old, new, 1)), 0o644))
}

// TestSurfaceCheckFailsOnDrift: `host surface check` passes on the shipped
// manifests and fails, naming the published tool, when an action is
// renamed or gains a required arg; `host serve --surface chat` refuses to
// start when a published action became irreversible.
func TestSurfaceCheckFailsOnDrift(t *testing.T) {
	if !slices.Contains(realPluginNames, "xlsx") || !slices.Contains(realPluginNames, "notes") {
		t.Fatal("plugins xlsx and notes must build")
	}
	// The e2e host is built with another version than the release, so
	// server.json (version = the release) is not compared here: the check
	// in `make test` runs the release build.
	ignoreServerJSON := func(out string) string {
		var keep []string
		for _, l := range strings.Split(out, "\n") {
			if !strings.Contains(l, "chat.server.json is not what the declaration generates") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	tests := []struct {
		name string
		edit func(plugins string)
		want string // "" means no problem
	}{
		{name: "shipped manifests"},
		{name: "action renamed", edit: func(p string) { editManifest(t, p, "xlsx", "name: read-range", "name: read-cells") },
			want: `FAIL published tool xlsx_read_range: xlsx has no action "read-range" (renamed or removed?)`},
		{name: "required arg added", edit: func(p string) {
			editManifest(t, p, "notes", "- {name: scope, type: string, description: \"project:<name> (with the global notes) or global (only global)\"}",
				"- {name: scope, type: string, required: true, description: \"project:<name> (with the global notes) or global (only global)\"}")
		}, want: `FAIL published tool notes_search: notes search requires arg "scope", which the published tool neither requires nor fixes`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out := surfaceHost(t, tt.edit, "surface", "check")
			out = ignoreServerJSON(out)
			if tt.want == "" {
				if strings.Contains(out, "FAIL") {
					t.Fatalf("host surface check on the shipped manifests:\n%s", out)
				}
				return
			}
			if code != 1 || !strings.Contains(out, tt.want) {
				t.Fatalf("exit %d, output:\n%s\nwant exit 1 and %q", code, out, tt.want)
			}
		})
	}

	t.Run("irreversible action fails to load", func(t *testing.T) {
		code, out := surfaceHost(t, func(p string) {
			editManifest(t, p, "xlsx", "  - name: search\n", "  - name: search\n    reversible: false\n")
			editManifest(t, p, "xlsx", "    read_only: true\n    reversible: true\n    args:\n      - {name: path, type: string, required: true, description: \"Local workbook: .xlsx, .xlsm, .xlsb, .xls or .ods\"}\n      - {name: query",
				"    args:\n      - {name: path, type: string, required: true, description: \"Local workbook: .xlsx, .xlsm, .xlsb, .xls or .ods\"}\n      - {name: query")
		}, "serve", "--surface", "chat")
		if code == 0 || !strings.Contains(out, "published tool xlsx_search: xlsx search is irreversible") {
			t.Fatalf("exit %d, output:\n%s\nwant a load error naming xlsx_search", code, out)
		}
	})
}
