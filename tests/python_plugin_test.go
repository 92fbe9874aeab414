package tests

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// udhrArticle1 is Article 1 of the Universal Declaration of Human Rights in
// English and Portuguese (United Nations, 1948; the UN publishes its
// translations for free use).
const (
	udhrArticle1EN = "All human beings are born free and equal in dignity and rights. They are endowed with reason and conscience and should act towards one another in a spirit of brotherhood."
	udhrArticle1PT = "Todos os seres humanos nascem livres e iguais em dignidade e em direitos. Dotados de razão e de consciência, devem agir uns para com os outros em espírito de fraternidade."
)

// textEnv is a host installation holding the real plugins, the Python text
// plugin among them.
func textEnv(t *testing.T) *env {
	t.Helper()
	if !slices.Contains(realPluginNames, "text") {
		t.Fatal("the text plugin (plugins/text) was not installed")
	}
	home := t.TempDir()
	return &env{plugins: realPlugins, t: t, vars: append(filteredEnviron(),
		"HOST_PLUGIN_PATH="+realPlugins, "HOST_SKILL_PATH="+t.TempDir(),
		"XDG_CACHE_HOME="+home+"/cache", "XDG_DATA_HOME="+home+"/data", "XDG_STATE_HOME="+stateHome)}
}

// TestPythonPluginThroughHostCall runs the Python plugin over go-plugin
// (AutoMTLS on, as the host always runs plugins) through `host call`.
func TestPythonPluginThroughHostCall(t *testing.T) {
	e := textEnv(t)
	tests := []struct {
		name string
		args []string
		want map[string]any
	}{
		{"stats", []string{"stats", "--arg", "text=The cat sat on the mat."},
			map[string]any{"words": 6.0, "sentences": 1.0, "syllables": 6.0, "flesch_reading_ease": 116.15}},
		{"language en", []string{"language", "--arg", "text=" + udhrArticle1EN}, map[string]any{"language": "en"}},
		{"language pt", []string{"language", "--arg", "text=" + udhrArticle1PT}, map[string]any{"language": "pt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(hostBin, append(append([]string{"call", "text"}, tt.args...), "--json")...)
			cmd.Env = e.vars
			out, err := cmd.Output()
			if err != nil {
				var stderr string
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = string(ee.Stderr)
				}
				t.Fatalf("host call text %s: %v\n%s\n%s", tt.args[0], err, out, stderr)
			}
			var got map[string]any
			must(t, json.Unmarshal(out, &got))
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s: got %v, want %v (all: %s)", k, got[k], v, out)
				}
			}
		})
	}
	// A usage error is the host's (the checker runs before the plugin).
	cmd := exec.Command(hostBin, "call", "text", "stats", "--arg", "txt=hello")
	cmd.Env = e.vars
	out, _ := cmd.Output()
	if !strings.Contains(string(out), `"did_you_mean"`) || !strings.Contains(string(out), `"text"`) {
		t.Errorf("a misspelt arg: got %s, want invalid_args with did_you_mean text", out)
	}
}

// TestPythonPluginThroughMCP calls the Python plugin with run_tool from the
// Go SDK's MCP client: Markdown in content, the JSON in structuredContent,
// and the plugin's own error envelope for a bad call.
func TestPythonPluginThroughMCP(t *testing.T) {
	e := textEnv(t)
	cs := goClient(t, e, "2025-11-25", nil)
	var got struct {
		Language string `json:"language"`
		Top      []struct {
			Word  string `json:"word"`
			Count int    `json:"count"`
		} `json:"top"`
		Truncated bool `json:"truncated"`
	}
	text, b := runTool(t, cs, "text", "top-words", map[string]any{"text": udhrArticle1EN + " " + udhrArticle1EN, "max-results": 3}, &got)
	if !strings.Contains(text, "| word | count |") {
		t.Errorf("content is not the Markdown table: %s", text)
	}
	if got.Language != "en" || len(got.Top) != 3 || got.Top[0].Count != 2 || !got.Truncated {
		t.Errorf("got %s, want language en, 3 words counted twice each, truncated", b)
	}
	for _, w := range got.Top {
		if w.Word == "and" || w.Word == "in" {
			t.Errorf("function word %q among the top words: %s", w.Word, b)
		}
	}
	sc, isErr := callTool(t, cs, "run_tool", map[string]any{"tool": "text", "action": "stats", "args": map[string]any{}})
	b, _ = json.Marshal(sc)
	if !isErr || !strings.Contains(string(b), `"invalid_args"`) || !strings.Contains(string(b), "exactly one of text or path") {
		t.Errorf("stats without text: got isError=%v %s, want the plugin's invalid_args", isErr, b)
	}
}
