package tests

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// notesContentEnv is an env serving the real notes plugin over a fresh
// brain, or a skip when notes does not build.
func notesContentEnv(t *testing.T) *env {
	t.Helper()
	if !slices.Contains(realPluginNames, "notes") {
		t.Skip("plugins/notes does not build")
	}
	e := newEnv(t, "NOTES_BRAIN="+filepath.Join(t.TempDir(), "brain"))
	e.vars = append(e.vars, "HOST_PLUGIN_PATH="+e.plugins+":"+realPlugins)
	return e
}

// TestTypeScriptClientsPromptsAndResources: the TypeScript SDK 1.32.2
// client and the 2.4.0 client (legacy and modern eras) see the host declare
// prompts and resources, list notes' three prompts, its two resources and
// its page template through `host serve` (the six tools unchanged), render
// the ingest prompt, and read the schema, the index and a page written
// through run_tool; a page that does not exist is an error. Over stdio,
// and over Streamable HTTP (`host serve --http`) the same.
func TestTypeScriptClientsPromptsAndResources(t *testing.T) {
	node, _ := npmClients(t)
	for _, run := range []struct{ mode, transport string }{
		{"sdk-legacy", "stdio"}, {"v2-legacy", "stdio"}, {"v2-auto", "stdio"},
		{"sdk-legacy", "http"}, {"v2-auto", "http"},
	} {
		mode := run.mode
		t.Run(mode+" "+run.transport, func(t *testing.T) {
			e := notesContentEnv(t)
			target := hostBin
			if run.transport == "http" {
				target = startHTTP(t, e, "127.0.0.1:0")
			}
			out := runNode(t, e, node, filepath.Join("clients", "ts-content.mjs"), mode, target)
			var got struct {
				Capabilities struct {
					Prompts   map[string]any `json:"prompts"`
					Resources map[string]any `json:"resources"`
				} `json:"capabilities"`
				Tools   []string `json:"tools"`
				Prompts []struct {
					Name      string   `json:"name"`
					Arguments []string `json:"arguments"`
				} `json:"prompts"`
				PromptText   string   `json:"promptText"`
				Resources    []string `json:"resources"`
				Templates    []string `json:"templates"`
				WriteIsError bool     `json:"writeIsError"`
				Schema       struct{ URI, MimeType, Text string }
				Index        struct{ URI, MimeType, Text string }
				Page         struct{ URI, MimeType, Text string }
				Missing      *struct{ Message string }
			}
			if err := json.Unmarshal(lastLine(out), &got); err != nil {
				t.Fatalf("client output: %v\n%s", err, out)
			}
			if got.Capabilities.Prompts["listChanged"] != true || got.Capabilities.Resources["listChanged"] != true {
				t.Errorf("capabilities: got %+v, want prompts and resources with listChanged", got.Capabilities)
			}
			if !slices.Equal(got.Tools, sixTools) {
				t.Errorf("tools: got %v, want the six", got.Tools)
			}
			var prompts []string
			for _, p := range got.Prompts {
				if strings.HasPrefix(p.Name, "notes/") {
					prompts = append(prompts, p.Name+"("+strings.Join(p.Arguments, ",")+")")
				}
			}
			slices.Sort(prompts)
			if want := []string{"notes/consolidate(scope)", "notes/ingest(source)", "notes/review(scope)"}; !slices.Equal(prompts, want) {
				t.Errorf("notes prompts: got %v, want %v", prompts, want)
			}
			if !strings.Contains(got.PromptText, `the source "queues.md"`) || !strings.Contains(got.PromptText, `"action":"ingest"`) {
				t.Errorf("notes/ingest rendered: %q", got.PromptText)
			}
			if !slices.Contains(got.Resources, "notes://schema") || !slices.Contains(got.Resources, "notes://index") || !slices.Contains(got.Templates, "notes://page/{+path}") {
				t.Errorf("resources %v, templates %v: want notes://schema, notes://index and notes://page/{+path}", got.Resources, got.Templates)
			}
			if got.WriteIsError {
				t.Fatalf("write-page through run_tool failed: %s", out)
			}
			if !strings.HasPrefix(got.Schema.Text, "# How this brain is organised") || got.Schema.MimeType != "text/markdown" {
				t.Errorf("notes://schema: got %+v", got.Schema)
			}
			if !strings.HasPrefix(got.Index.Text, "# Index") {
				t.Errorf("notes://index: got %+v", got.Index)
			}
			var page struct {
				Note struct {
					Path    string `json:"path"`
					Content string `json:"content"`
				} `json:"note"`
			}
			if err := json.Unmarshal([]byte(got.Page.Text), &page); err != nil || page.Note.Path != "wiki/concepts/Queues.md" ||
				!strings.Contains(page.Note.Content, "Queues decouple producers from consumers ("+mode+")") || got.Page.MimeType != "application/json" {
				t.Errorf("notes://page/wiki/concepts/Queues.md: got %+v (%v)", got.Page, err)
			}
			if got.Missing == nil || !strings.Contains(got.Missing.Message, "not found") {
				t.Errorf("a page that does not exist: got %+v, want a not-found error", got.Missing)
			}
		})
	}
}

// TestInspectorCLIPromptsAndResources: MCP Inspector 2.12.0 --cli, in the
// legacy and modern eras, lists and reads notes' prompts and resources
// through `host serve`.
func TestInspectorCLIPromptsAndResources(t *testing.T) {
	node, modules := npmClients(t)
	inspector := filepath.Join(modules, "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			e := notesContentEnv(t)
			base := []string{inspector, "--cli", "--protocol-era", era, "--format", "json", "-q"}
			for _, kv := range e.vars {
				if strings.HasPrefix(kv, "HOST_") || strings.HasPrefix(kv, "XDG_") || strings.HasPrefix(kv, "NOTES_") {
					base = append(base, "-e", kv)
				}
			}
			run := func(args ...string) []byte {
				return runNode(t, e, node, append(append(slices.Clone(base), args...), hostBin, "serve")...)
			}
			// Three host starts per era (each is a full client session):
			// prompts in the legacy era, resources in the modern one.
			calls := []struct {
				args []string
				want []string
			}{
				{[]string{"--method", "prompts/list"}, []string{`"name":"notes/ingest"`, `"name":"notes/review"`, `"name":"notes/consolidate"`}},
				{[]string{"--prompt-args", "scope=project:atlas", "--method", "prompts/get", "--prompt-name", "notes/review"}, []string{`with scope \"project:atlas\"`, `\"action\":\"lint\"`}},
				{[]string{"--method", "resources/templates/list"}, []string{`"uriTemplate":"notes://page/{+path}"`}},
				{[]string{"--method", "resources/list"}, []string{`"uri":"notes://schema"`, `"uri":"notes://index"`}},
				{[]string{"--method", "resources/read", "--uri", "notes://schema"}, []string{`# How this brain is organised`}},
				{[]string{"--method", "resources/read", "--uri", "notes://page/AGENTS.md"}, []string{`"path\":\"AGENTS.md\"`}},
			}
			if era == "modern" {
				calls = calls[3:]
			} else {
				calls = calls[:3]
			}
			for _, c := range calls {
				out := run(c.args...)
				for _, w := range c.want {
					if !bytes.Contains(out, []byte(w)) {
						t.Errorf("%s: output lacks %s:\n%s", strings.Join(c.args, " "), w, out)
					}
				}
			}
		})
	}
}
