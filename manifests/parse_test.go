package manifests

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const testFile = "plugins/x/tool.yaml"

// parseString parses src as testFile.
func parseString(t *testing.T, src string) (*Manifest, error) {
	t.Helper()
	return ParseBytes(testFile, []byte(src))
}

// problems returns the rendered problems of err, failing when err is not
// an *Error.
func problems(t *testing.T, err error) []string {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got error %v (%T), want *Error", err, err)
	}
	out := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		out[i] = p.String()
	}
	return out
}

// TestParseKeywords: an action's keywords are kept in order, for search.
func TestParseKeywords(t *testing.T) {
	src := "name: x\ndescription: d\nentrypoint: x\nactions:\n  - name: a\n    description: d\n    keywords: [spend, how much, 'true']\n"
	m, err := ParseBytes("tool.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Actions[0].Keywords, []string{"spend", "how much", "true"}; !slices.Equal(got, want) {
		t.Errorf("got keywords %q, want %q", got, want)
	}
}

func TestParseFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	src := "name: x\ndescription: d\nentrypoint: bin/x\nactions:\n  - {name: a, description: d}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Parse(path)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if m.Path != path || m.Dir() != dir || m.Binary() != filepath.Join(dir, "bin", "x") {
		t.Errorf("got path %q dir %q binary %q", m.Path, m.Dir(), m.Binary())
	}

	_, err = Parse(filepath.Join(dir, "missing", FileName))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Parse of a missing file: got %v, want an error wrapping os.ErrNotExist", err)
	}
}

func TestParseDefaults(t *testing.T) {
	m, err := parseString(t, `
name: x
description: d
entrypoint: x
actions:
  - name: a
    description: d
  - name: b
    description: d
    read_only: true
  - name: c
    description: d
    reversible: true
  - name: d
    description: d
    read_only: true
    reversible: true
`)
	if err != nil {
		t.Fatal(err)
	}
	if m.Kind != KindTool || m.Timeout != 30*time.Second || m.Concurrency != 4 || m.Idle != 0 || m.Eager {
		t.Errorf("got kind %q timeout %v concurrency %d idle %v eager %v, want tool 30s 4 0 false",
			m.Kind, m.Timeout, m.Concurrency, m.Idle, m.Eager)
	}
	want := map[string][2]bool{ // read_only, reversible
		"a": {false, false},
		"b": {true, true},
		"c": {false, true},
		"d": {true, true},
	}
	for name, w := range want {
		a := m.Action(name)
		if a == nil {
			t.Fatalf("action %q missing", name)
		}
		if a.ReadOnly != w[0] || a.Reversible != w[1] {
			t.Errorf("action %s: got read_only %v reversible %v, want %v %v", name, a.ReadOnly, a.Reversible, w[0], w[1])
		}
	}
	if got, want := m.ActionNames(), []string{"a", "b", "c", "d"}; !cmp.Equal(got, want) {
		t.Errorf("ActionNames: got %v, want %v", got, want)
	}
}

func TestParseExamples(t *testing.T) {
	m, err := Parse("testdata/valid/xlsx.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rs := m.Action("read-sheet")
	min, max := 1.0, 100000.0
	want := &Action{
		Name:        "read-sheet",
		Description: "Read one sheet's rows as a JSON 2D array (trailing-empty cells trimmed, empty rows skipped).",
		ReadOnly:    true,
		Reversible:  true,
		Args: []Arg{
			{Name: "path", Type: TypeString, Required: true, Description: "Local .xlsx/.xlsm file"},
			{Name: "sheet", Type: TypeString, Description: "Sheet name (default first/active)"},
			{Name: "max-results", Type: TypeInteger, Minimum: &min, Maximum: &max, Default: int64(1000), Description: "Cap rows returned"},
		},
		NarrowWith: []string{"sheet", "max-results"},
	}
	if diff := cmp.Diff(want, rs); diff != "" {
		t.Errorf("read-sheet (-want +got):\n%s", diff)
	}
	if got := m.Action("dump"); !got.Reversible || got.ReadOnly {
		t.Errorf("dump: got read_only %v reversible %v, want false true", got.ReadOnly, got.Reversible)
	}
	if m.Action("nope") != nil {
		t.Error("Action(nope) is not nil")
	}

	m, err = Parse("testdata/valid/mailer.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if m.Kind != KindAgent || m.Version != "2.1" || m.Timeout != 2*time.Minute || m.Idle != time.Hour ||
		!m.Eager || m.Concurrency != 2 || m.Entrypoint != "bin/mailer" {
		t.Errorf("mailer: got %+v", m)
	}
	wantSecrets := []Secret{
		{Name: "api-token", Env: "MAILER_API_TOKEN", Description: "Provider API token", Required: true},
		{Name: "signing-key", Env: "MAILER_SIGNING_KEY"},
	}
	if diff := cmp.Diff(wantSecrets, m.Secrets); diff != "" {
		t.Errorf("secrets (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"HTTPS_PROXY", "no_proxy"}, m.Env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Use{{Tool: "contacts"}, {Tool: "notes", Action: "remember"}}, m.Uses); diff != "" {
		t.Errorf("uses (-want +got):\n%s", diff)
	}
	for _, c := range []struct {
		tool, action string
		want         bool
	}{{"contacts", "find", true}, {"notes", "remember", true}, {"notes", "forget", false}, {"usage", "get-usage", false}} {
		if got := m.MayUse(c.tool, c.action); got != c.want {
			t.Errorf("MayUse(%s, %s): got %v, want %v", c.tool, c.action, got, c.want)
		}
	}
	if diff := cmp.Diff([]string{"contacts", "notes"}, m.UsedTools()); diff != "" {
		t.Errorf("UsedTools (-want +got):\n%s", diff)
	}
	draft := m.Action("draft")
	wantDefaults := map[string]any{
		"priority": "normal",
		"ratio":    0.5,
		"headers":  map[string]any{"x-mailer": "toolhost", "retries": json.Number("3")},
		"tags":     []any{"a", "b"},
		"urgent":   false,
	}
	for name, want := range wantDefaults {
		if diff := cmp.Diff(want, draft.Arg(name).Default); diff != "" {
			t.Errorf("default of %s (-want +got):\n%s", name, diff)
		}
	}
	if diff := cmp.Diff([]any{int64(1), int64(2), int64(3)}, draft.Arg("level").Enum); diff != "" {
		t.Errorf("enum of level (-want +got):\n%s", diff)
	}
	// "sent" in list-sent makes it irreversible; it says nothing, so no error.
	if a := m.Action("list-sent"); a.Reversible {
		t.Error("list-sent is reversible")
	}
}

// base is a valid manifest the invalid cases below change one part of.
const base = `name: x
description: d
entrypoint: x
actions:
  - name: a
    description: d
    args:
      - {name: p, type: string}
`

func TestParseInvalid(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // every problem, rendered
	}{
		{"unknown type", strings.Replace(base, "type: string", "type: strng", 1), []string{
			`plugins/x/tool.yaml:8: actions[0].args[0].type: unknown type "strng" (want string, integer, number, boolean, array, object)`,
		}},
		{"unknown top-level key", base + "descripton: y\n", []string{
			`plugins/x/tool.yaml:9: descripton: unknown key "descripton" (did you mean "description"?)`,
		}},
		{"unknown action key", strings.Replace(base, "    description: d\n", "    description: d\n    readonly: true\n", 1), []string{
			`plugins/x/tool.yaml:7: actions[0].readonly: unknown key "readonly" (did you mean "read_only"?)`,
		}},
		{"unknown arg key", strings.Replace(base, "type: string}", "type: string, requried: true}", 1), []string{
			`plugins/x/tool.yaml:8: actions[0].args[0].requried: unknown key "requried" (did you mean "required"?)`,
		}},
		{"unknown key without a near match", base + "zzz: 1\n", []string{
			`plugins/x/tool.yaml:9: zzz: unknown key "zzz" (want one of name, kind, description, version, entrypoint, protocol, interpreter, args, roots, sampling, sha256, timeout, idle, eager, env, exec_path, concurrency, memory, cpu_time, uses, secrets, actions, prompts, resources, resource_templates)`,
		}},
		{"exec_path not absolute, or a list", base + "exec_path: [bin, \"~/bin\", \"/usr/bin:/bin\", /usr/bin, /usr/bin]\n", []string{
			`plugins/x/tool.yaml:9: exec_path[0]: "bin" is not an absolute folder (the plugin runs in the host's working folder, so a relative one would name another folder each time; ~ and $HOME are not expanded)`,
			`plugins/x/tool.yaml:9: exec_path[1]: "~/bin" is not an absolute folder (the plugin runs in the host's working folder, so a relative one would name another folder each time; ~ and $HOME are not expanded)`,
			`plugins/x/tool.yaml:9: exec_path[2]: "/usr/bin:/bin" holds a list separator (: or ;): give one folder per entry`,
			`plugins/x/tool.yaml:9: exec_path[4]: duplicate "/usr/bin"`,
		}},
		{"exec_path beside env PATH", base + "env: [PATH]\nexec_path: [/usr/bin]\n", []string{
			`plugins/x/tool.yaml:10: exec_path: give exec_path (fixed folders) or env: [PATH] (the host's PATH), not both`,
		}},
		{"duplicate key", base + "name: y\n", []string{
			`plugins/x/tool.yaml:9: name: duplicate key (first at line 1)`,
		}},
		{"missing required fields", "kind: tool\n", []string{
			`plugins/x/tool.yaml:1: name: required field is missing`,
			`plugins/x/tool.yaml:1: description: required field is missing`,
			`plugins/x/tool.yaml:1: entrypoint: required field is missing`,
			`plugins/x/tool.yaml:1: actions: required field is missing`,
		}},
		{"null required field", strings.Replace(base, "description: d\nentrypoint", "description:\nentrypoint", 1), []string{
			`plugins/x/tool.yaml:2: description: required field is missing`,
		}},
		{"empty file", "", []string{`plugins/x/tool.yaml: the file is empty`}},
		{"comment only", "# nothing\n", []string{`plugins/x/tool.yaml: the file is empty`}},
		{"not a mapping", "- a\n- b\n", []string{
			`plugins/x/tool.yaml:1: want a mapping of keys (name, description, entrypoint, actions, ...), got a list`,
		}},
		{"yaml syntax", "name: x\n  bad: [\n", []string{
			`plugins/x/tool.yaml:2: invalid YAML: mapping values are not allowed in this context`,
		}},
		{"two documents", base + "---\nname: y\n", []string{
			`plugins/x/tool.yaml:9: more than one YAML document; a manifest is exactly one`,
		}},
		{"tool name not kebab", strings.Replace(base, "name: x\n", "name: My_Tool\n", 1), []string{
			`plugins/x/tool.yaml:1: name: "My_Tool" is not lowercase kebab-case (did you mean "my-tool"?)`,
		}},
		{"action name not kebab", strings.Replace(base, "- name: a\n", "- name: read_sheet\n", 1), []string{
			`plugins/x/tool.yaml:5: actions[0].name: "read_sheet" is not lowercase kebab-case (did you mean "read-sheet"?)`,
		}},
		{"arg name camelCase", strings.Replace(base, "name: p,", "name: maxResults,", 1), []string{
			`plugins/x/tool.yaml:8: actions[0].args[0].name: "maxResults" is not lowercase kebab-case (did you mean "max-results"?)`,
		}},
		{"arg name with no kebab form", strings.Replace(base, "name: p,", "name: \"9\",", 1), []string{
			`plugins/x/tool.yaml:8: actions[0].args[0].name: "9" is not lowercase kebab-case (want words of a-z and 0-9 joined by "-", such as "read-sheet")`,
		}},
		{"name not a string", strings.Replace(base, "name: x\n", "name: true\n", 1), []string{
			`plugins/x/tool.yaml:1: name: want a string, got boolean true`,
		}},
		{"duplicate action", base + "  - {name: a, description: d}\n", []string{
			`plugins/x/tool.yaml:9: actions[1].name: duplicate action "a" (first at line 5)`,
		}},
		{"duplicate arg", strings.Replace(base, "      - {name: p, type: string}\n", "      - {name: p, type: string}\n      - {name: p, type: integer}\n", 1), []string{
			`plugins/x/tool.yaml:9: actions[0].args[1].name: duplicate arg "p" (first at line 8)`,
		}},
		{"no actions", base[:strings.Index(base, "actions:")] + "actions: []\n", []string{
			`plugins/x/tool.yaml:4: actions: a tool needs at least one action`,
		}},
		{"actions not a list", strings.SplitAfter(base, "entrypoint: x\n")[0] + "actions: {a: 1}\n", []string{
			`plugins/x/tool.yaml:4: actions: want a list, got a mapping`,
		}},
		{"action not a mapping", base + "  - read\n", []string{
			`plugins/x/tool.yaml:9: actions[1]: want a mapping {name, description, args, ...}, got string "read"`,
		}},
		{"action missing description", base + "  - name: b\n", []string{
			`plugins/x/tool.yaml:9: actions[1].description: required field is missing`,
		}},
		{"arg missing type", strings.Replace(base, "{name: p, type: string}", "{name: p}", 1), []string{
			`plugins/x/tool.yaml:8: actions[0].args[0].type: required field is missing`,
		}},
		{"kind", base + "kind: plugin\n", []string{
			`plugins/x/tool.yaml:9: kind: unknown kind "plugin" (want tool or agent)`,
		}},
		{"read_only with reversible false", strings.Replace(base, "    description: d\n", "    description: d\n    read_only: true\n    reversible: false\n", 1), []string{
			`plugins/x/tool.yaml:8: actions[0].reversible: read_only: true implies reversible, so reversible: false contradicts it`,
		}},
		{"read_only not a bool", strings.Replace(base, "    description: d\n", "    description: d\n    read_only: yes\n", 1), []string{
			`plugins/x/tool.yaml:7: actions[0].read_only: want true or false, got string "yes"`,
		}},
		{"irreversible action declared reversible", strings.Replace(base, "- name: a\n    description: d\n", "- name: send-message\n    description: d\n    reversible: true\n", 1), []string{
			`plugins/x/tool.yaml:7: actions[0].reversible: the word "send" in the action name "send-message" marks this action irreversible; it cannot be reversible: true (rename it or say reversible: false)`,
		}},
		{"irreversible action declared read_only", strings.Replace(base, "- name: a\n    description: d\n", "- name: delete-messages\n    description: d\n    read_only: true\n", 1), []string{
			`plugins/x/tool.yaml:7: actions[0].read_only: the word "delete" in the action name "delete-messages" marks this action irreversible; it cannot be read_only: true (rename it or drop the flag)`,
		}},
		{"irreversible tool name", strings.Replace(strings.Replace(base, "name: x\n", "name: issue-invoice\n", 1), "    description: d\n", "    description: d\n    reversible: true\n", 1), []string{
			`plugins/x/tool.yaml:7: actions[0].reversible: the word "issue-invoice" in the tool name "issue-invoice" marks this action irreversible; it cannot be reversible: true (rename it or say reversible: false)`,
		}},
		{"absolute entrypoint", strings.Replace(base, "entrypoint: x", "entrypoint: /usr/bin/x", 1), []string{
			`plugins/x/tool.yaml:3: entrypoint: "/usr/bin/x" is absolute; want a path relative to the manifest's folder`,
		}},
		{"entrypoint leaves the folder", strings.Replace(base, "entrypoint: x", "entrypoint: bin/../../x", 1), []string{
			`plugins/x/tool.yaml:3: entrypoint: "bin/../../x" leaves the plugin's folder; want a path inside it`,
		}},
		{"entrypoint with dotdot that stays inside", strings.Replace(base, "entrypoint: x", "entrypoint: bin/../x", 1), []string{
			`plugins/x/tool.yaml:3: entrypoint: "bin/../x" leaves the plugin's folder; want a path inside it`,
		}},
		{"entrypoint windows drive", strings.Replace(base, "entrypoint: x", `entrypoint: 'C:\x.exe'`, 1), []string{
			`plugins/x/tool.yaml:3: entrypoint: "C:\\x.exe" is absolute; want a path relative to the manifest's folder`,
		}},
		{"entrypoint is the folder", strings.Replace(base, "entrypoint: x", "entrypoint: ./", 1), []string{
			`plugins/x/tool.yaml:3: entrypoint: "./" names the folder itself; want the binary`,
		}},
		{"timeout too long", base + "timeout: 2h\n", []string{
			`plugins/x/tool.yaml:9: timeout: 2h is out of range (want 1s to 1h)`,
		}},
		{"timeout too short", base + "timeout: 10ms\n", []string{
			`plugins/x/tool.yaml:9: timeout: 10ms is out of range (want 1s to 1h)`,
		}},
		{"timeout bare number", base + "timeout: 30\n", []string{
			`plugins/x/tool.yaml:9: timeout: want a duration such as "30s" or "5m", got integer 30`,
		}},
		{"timeout unparsable", base + "timeout: soon\n", []string{
			`plugins/x/tool.yaml:9: timeout: want a duration such as "30s" or "5m", got "soon"`,
		}},
		{"idle too long", base + "idle: 48h\n", []string{
			`plugins/x/tool.yaml:9: idle: 48h is out of range (want 1s to 24h)`,
		}},
		{"uses on a tool", base + "uses: [notes]\n", []string{
			`plugins/x/tool.yaml:9: uses: only an agent (kind: agent) calls other tools; remove uses or set kind: agent`,
		}},
		{"uses names", "kind: agent\n" + base + "uses: [notes, Notes, notes/Remember, notes, /x, notes/remember]\n", []string{
			`plugins/x/tool.yaml:10: uses[1]: "Notes" is not a tool or tool/action name (want kebab-case, such as "notes" or "notes/remember")`,
			`plugins/x/tool.yaml:10: uses[2]: "notes/Remember" is not a tool or tool/action name (want kebab-case, such as "notes" or "notes/remember")`,
			`plugins/x/tool.yaml:10: uses[3]: duplicate "notes"`,
			`plugins/x/tool.yaml:10: uses[4]: "/x" is not a tool or tool/action name (want kebab-case, such as "notes" or "notes/remember")`,
		}},
		{"uses not a list", "kind: agent\n" + base + "uses: notes\n", []string{
			`plugins/x/tool.yaml:10: uses: want a list, got string "notes"`,
		}},
		{"concurrency zero", base + "concurrency: 0\n", []string{
			`plugins/x/tool.yaml:9: concurrency: 0 is out of range (want 1 to 256)`,
		}},
		{"concurrency too high", base + "concurrency: 1000\n", []string{
			`plugins/x/tool.yaml:9: concurrency: 1000 is out of range (want 1 to 256)`,
		}},
		{"memory without a unit", base + "memory: \"512\"\n", []string{
			`plugins/x/tool.yaml:9: memory: want a size such as "512MiB" or "2GiB" (units KiB, MiB, GiB, TiB, KB, MB, GB, TB), got "512"`,
		}},
		{"memory too small", base + "memory: 1MiB\n", []string{
			`plugins/x/tool.yaml:9: memory: 1MiB is out of range (want 16MiB to 1TiB)`,
		}},
		{"memory a number", base + "memory: 1024\n", []string{
			`plugins/x/tool.yaml:9: memory: want a string, got integer 1024`,
		}},
		{"cpu_time too long", base + "cpu_time: 48h\n", []string{
			`plugins/x/tool.yaml:9: cpu_time: 48h is out of range (want 1s to 24h)`,
		}},
		{"concurrency not an integer", base + "concurrency: 2.5\n", []string{
			`plugins/x/tool.yaml:9: concurrency: want an integer, got number 2.5`,
		}},
		{"sha256 upper case", base + "sha256: 3F1C2A6B9E0D4C8F7A1B2C3D4E5F60718293A4B5C6D7E8F90123456789ABCDEF\n", []string{
			`plugins/x/tool.yaml:9: sha256: want 64 lowercase hex digits, got "3F1C2A6B9E0D4C8F7A1B2C3D4E5F60718293A4B5C6D7E8F90123456789ABCDEF"`,
		}},
		{"sha256 short", base + "sha256: abc\n", []string{
			`plugins/x/tool.yaml:9: sha256: want 64 lowercase hex digits, got "abc"`,
		}},
		{"env names", base + "env: [GOOD, 1BAD, GOOD, has-dash]\n", []string{
			`plugins/x/tool.yaml:9: env[1]: "1BAD" is not an environment variable name (want letters, digits and _, not starting with a digit)`,
			`plugins/x/tool.yaml:9: env[2]: duplicate "GOOD"`,
			`plugins/x/tool.yaml:9: env[3]: "has-dash" is not an environment variable name (want letters, digits and _, not starting with a digit)`,
		}},
		{"env problems name their own index", base + "env: [[HOME], 1BAD, 7, 1BAD]\n", []string{
			`plugins/x/tool.yaml:9: env[0]: want a string, got a list`,
			`plugins/x/tool.yaml:9: env[1]: "1BAD" is not an environment variable name (want letters, digits and _, not starting with a digit)`,
			`plugins/x/tool.yaml:9: env[2]: want a string, got integer 7`,
			`plugins/x/tool.yaml:9: env[3]: "1BAD" is not an environment variable name (want letters, digits and _, not starting with a digit)`,
		}},
		{"env not a list", base + "env: HOME\n", []string{
			`plugins/x/tool.yaml:9: env: want a list, got string "HOME"`,
		}},
		{"secrets", base + "secrets:\n  - {name: token}\n  - {name: Token, env: lower_case}\n  - {name: t2, env: A}\n  - {name: t3, env: A}\n  - {name: t2, env: B}\n", []string{
			`plugins/x/tool.yaml:10: secrets[0].env: required field is missing`,
			`plugins/x/tool.yaml:11: secrets[1].name: "Token" is not lowercase kebab-case (did you mean "token"?)`,
			`plugins/x/tool.yaml:11: secrets[1].env: "lower_case" is not an upper snake-case environment variable name (such as "XLSX_API_TOKEN")`,
			`plugins/x/tool.yaml:13: secrets[3].env: "A" is already used by the secret at line 12`,
			`plugins/x/tool.yaml:14: secrets[4].name: duplicate secret "t2" (first at line 12)`,
		}},
		{"secret not a mapping", base + "secrets: [token]\n", []string{
			`plugins/x/tool.yaml:9: secrets[0]: want a mapping {name, env, description, required}, got string "token"`,
		}},
		{"narrow_with names a missing arg", strings.Replace(base, "    args:\n", "    narrow_with: [q, p, p]\n    args:\n", 1), []string{
			`plugins/x/tool.yaml:7: actions[0].narrow_with[0]: "q" is not an arg of this action (did you mean "p"?)`,
			`plugins/x/tool.yaml:7: actions[0].narrow_with[2]: duplicate "p"`,
		}},
		{"keywords a duplicate, an empty one, a number", strings.Replace(base, "    args:\n", "    keywords: [spend, spend, '', 7]\n    args:\n", 1), []string{
			`plugins/x/tool.yaml:7: actions[0].keywords[1]: duplicate "spend"`,
			`plugins/x/tool.yaml:7: actions[0].keywords[2]: a keyword must not be empty`,
			`plugins/x/tool.yaml:7: actions[0].keywords[3]: want a string, got integer 7`,
		}},
		{"output_schema a string", strings.Replace(base, "    args:\n", "    output_schema: '{ \"path\": \"...\" }'\n    args:\n", 1), []string{
			`plugins/x/tool.yaml:7: actions[0].output_schema: want a JSON Schema mapping such as {type: object, properties: {...}}, got string "{ \"path\": \"...\" }"`,
		}},
		{"output_schema not an object", strings.Replace(base, "    args:\n", "    output_schema: {type: array}\n    args:\n", 1), []string{
			`plugins/x/tool.yaml:7: actions[0].output_schema: a structured result is a JSON object; want type: object, got array`,
		}},
		{"enum of the wrong type", strings.Replace(base, "{name: p, type: string}", "{name: p, type: integer, enum: [1, two, 3.5]}", 1), []string{
			`plugins/x/tool.yaml:8: actions[0].args[0].enum[1]: want integer, got string "two"`,
			`plugins/x/tool.yaml:8: actions[0].args[0].enum[2]: want integer, got number 3.5`,
		}},
		{"enum duplicate", strings.Replace(base, "{name: p, type: string}", "{name: p, type: string, enum: [a, b, a]}", 1), []string{
			`plugins/x/tool.yaml:8: actions[0].args[0].enum[2]: duplicate value string "a"`,
		}},
		{"enum empty", strings.Replace(base, "{name: p, type: string}", "{name: p, type: string, enum: []}", 1), []string{
			`plugins/x/tool.yaml:8: actions[0].args[0].enum: want a non-empty list of values, got a list`,
		}},
		{"enum on a boolean", strings.Replace(base, "{name: p, type: string}", "{name: p, type: boolean, enum: [true]}", 1), []string{
			`plugins/x/tool.yaml:8: actions[0].args[0].enum: enum applies only to string, integer and number args, not boolean`,
		}},
		{"enum outside the range", strings.Replace(base, "{name: p, type: string}", "{name: p, type: integer, minimum: 1, enum: [0, 1]}", 1), []string{
			`plugins/x/tool.yaml:8: actions[0].args[0].enum[0]: 0 is below the minimum 1`,
		}},
		{"default of the wrong type", strings.Replace(base, "{name: p, type: string}", "{name: p, type: integer, default: \"5\"}", 1), []string{
			`plugins/x/tool.yaml:8: actions[0].args[0].default: want integer, got string "5"`,
		}},
		{"default with a fraction", strings.Replace(base, "{name: p, type: string}", "{name: p, type: integer, default: 2.5}", 1), []string{
			`plugins/x/tool.yaml:8: actions[0].args[0].default: want integer, got number 2.5`,
		}},
		{"default below the minimum", strings.Replace(base, "{name: p, type: string}", "{name: p, type: number, minimum: 1, default: 0.5}", 1), []string{
			`plugins/x/tool.yaml:8: actions[0].args[0].default: 0.5 is below the minimum 1`,
		}},
		{"default above the maximum", strings.Replace(base, "{name: p, type: string}", "{name: p, type: integer, maximum: 10, default: 11}", 1), []string{
			`plugins/x/tool.yaml:8: actions[0].args[0].default: 11 is above the maximum 10`,
		}},
		{"default not in the enum", strings.Replace(base, "{name: p, type: string}", "{name: p, type: string, enum: [a, b], default: c}", 1), []string{
			`plugins/x/tool.yaml:8: actions[0].args[0].default: string "c" is not one of "a", "b"`,
		}},
		{"default on a required arg", strings.Replace(base, "{name: p, type: string}", "{name: p, type: string, required: true, default: c}", 1), []string{
			`plugins/x/tool.yaml:8: actions[0].args[0].default: a required arg cannot have a default (it would never apply)`,
		}},
		{"default array of the wrong item type", strings.Replace(base, "{name: p, type: string}", "{name: p, type: array, items: {type: string}, default: [a, 1]}", 1), []string{
			`plugins/x/tool.yaml:8: actions[0].args[0].default: item 1: want string, got number 1`,
		}},
		{"default object for an array", strings.Replace(base, "{name: p, type: string}", "{name: p, type: array, default: {a: 1}}", 1), []string{
			`plugins/x/tool.yaml:8: actions[0].args[0].default: want array, got object`,
		}},
		{"minimum on a string", strings.Replace(base, "{name: p, type: string}", "{name: p, type: string, minimum: 1}", 1), []string{
			`plugins/x/tool.yaml:8: actions[0].args[0].minimum: minimum applies only to integer and number args, not string`,
		}},
		{"minimum not a number", strings.Replace(base, "{name: p, type: string}", "{name: p, type: integer, minimum: one}", 1), []string{
			`plugins/x/tool.yaml:8: actions[0].args[0].minimum: want a number, got string "one"`,
		}},
		{"minimum above maximum", strings.Replace(base, "{name: p, type: string}", "{name: p, type: number, minimum: 5, maximum: 1}", 1), []string{
			`plugins/x/tool.yaml:8: actions[0].args[0].maximum: maximum 1 is below minimum 5`,
		}},
		{"items on a string", strings.Replace(base, "{name: p, type: string}", "{name: p, type: string, items: {type: string}}", 1), []string{
			`plugins/x/tool.yaml:8: actions[0].args[0].items: items applies only to array args, not string`,
		}},
		{"items of an unknown type", strings.Replace(base, "{name: p, type: string}", "{name: p, type: array, items: {type: strings}}", 1), []string{
			`plugins/x/tool.yaml:8: actions[0].args[0].items.type: unknown type strings (want string, integer, number, boolean, array, object, null)`,
		}},
		{"not finite", strings.Replace(base, "{name: p, type: string}", "{name: p, type: number, default: .nan}", 1), []string{
			`plugins/x/tool.yaml:8: actions[0].args[0].default: .nan is not a finite number`,
		}},
		{"merge key", "common: &c {name: x}\n" + base, []string{
			`plugins/x/tool.yaml:1: common: unknown key "common" (want one of name, kind, description, version, entrypoint, protocol, interpreter, args, roots, sampling, sha256, timeout, idle, eager, env, exec_path, concurrency, memory, cpu_time, uses, secrets, actions, prompts, resources, resource_templates)`,
		}},
		{"many problems at once", "name: X\ndescription: d\nentrypoint: /x\ntimeout: 0s\nactions:\n  - name: A\n    description: d\n    args:\n      - {name: p, type: strng}\n", []string{
			`plugins/x/tool.yaml:1: name: "X" is not lowercase kebab-case (did you mean "x"?)`,
			`plugins/x/tool.yaml:3: entrypoint: "/x" is absolute; want a path relative to the manifest's folder`,
			`plugins/x/tool.yaml:4: timeout: 0s is out of range (want 1s to 1h)`,
			`plugins/x/tool.yaml:6: actions[0].name: "A" is not lowercase kebab-case (did you mean "a"?)`,
			`plugins/x/tool.yaml:9: actions[0].args[0].type: unknown type "strng" (want string, integer, number, boolean, array, object)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := parseString(t, tt.src)
			if err == nil {
				t.Fatalf("got no error, want:\n%s", strings.Join(tt.want, "\n"))
			}
			if m == nil || m.Path != testFile {
				t.Errorf("got manifest %v, want a non-nil partial manifest with Path set", m)
			}
			if diff := cmp.Diff(tt.want, problems(t, err)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if got, want := err.Error(), strings.Join(tt.want, "\n"); got != want {
				t.Errorf("Error(): got %q, want %q", got, want)
			}
		})
	}
}

func TestParseAliases(t *testing.T) {
	src := `name: x
description: d
entrypoint: x
actions:
  - name: a
    description: d
    args: &common
      - {name: path, type: string, required: true}
  - name: b
    description: d
    args: *common
`
	m, err := parseString(t, src)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Action("b").ArgNames(); !cmp.Equal(got, []string{"path"}) {
		t.Errorf("args of b: got %v, want [path]", got)
	}

	// A billion-laughs document must end quickly with a problem, not expand.
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n" +
		base + "    output_schema: {type: object, x: *f}\n"
	start := time.Now()
	_, err = parseString(t, bomb)
	if err == nil {
		t.Fatal("got no error for an alias bomb")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("alias bomb took %v", d)
	}
}

func TestProblemString(t *testing.T) {
	tests := []struct {
		p    Problem
		want string
	}{
		{Problem{File: "f.yaml", Line: 3, Field: "name", Message: "bad"}, "f.yaml:3: name: bad"},
		{Problem{File: "f.yaml", Message: "bad"}, "f.yaml: bad"},
		{Problem{Field: "name", Message: "bad"}, "name: bad"},
		{Problem{Message: "bad"}, "bad"},
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
	if got := (&Error{File: "f"}).Error(); got != "f: invalid manifest" {
		t.Errorf("empty Error: got %q", got)
	}
}

func TestIsKebab(t *testing.T) {
	for name, want := range map[string]bool{
		"a": true, "read-sheet": true, "max-results": true, "v2": true, "a1-b2": true,
		"": false, "A": false, "1a": false, "-a": false, "a-": false, "a--b": false, "a_b": false, "aB": false, "a b": false,
	} {
		if got := IsKebab(name); got != want {
			t.Errorf("IsKebab(%q): got %v, want %v", name, got, want)
		}
	}
}

func TestResourceCeilings(t *testing.T) {
	for _, tc := range []struct {
		src    string
		memory int64
		cpu    time.Duration
	}{
		{"memory: 1GiB\ncpu_time: 10m\n", 1 << 30, 10 * time.Minute},
		{"memory: 512MB\n", 512e6, 0},
		{"memory: 96 MiB\n", 96 << 20, 0},
		{"", 0, 0},
	} {
		m, err := ParseBytes("plugins/x/tool.yaml", []byte(base+tc.src))
		if err != nil {
			t.Fatalf("%q: %v", tc.src, err)
		}
		if m.Memory != tc.memory || m.CPUTime != tc.cpu {
			t.Errorf("%q: got memory %d cpu_time %s, want %d %s", tc.src, m.Memory, m.CPUTime, tc.memory, tc.cpu)
		}
	}
}
