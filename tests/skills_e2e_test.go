package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// skillCall is one machine-readable call a skill shows: a ```toolhost-call
// block holding {tool, action, args}. tool is one of the host's own MCP
// tools (capabilities, get_skill: no action) or a tool or agent to run.
type skillCall struct {
	Tool   string         `json:"tool"`
	Action string         `json:"action"`
	Args   map[string]any `json:"args"`
	line   int
}

// skillCalls extracts the toolhost-call blocks of a SKILL.md, in order;
// blocks may be indented (inside a list item).
func skillCalls(t *testing.T, path string) []skillCall {
	t.Helper()
	f, err := os.Open(path)
	must(t, err)
	defer f.Close()
	var calls []skillCall
	var block []string
	in, start := false, 0
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case !in && line == "```toolhost-call":
			in, start, block = true, n, nil
		case in && line == "```":
			in = false
			dec := json.NewDecoder(strings.NewReader(strings.Join(block, "\n")))
			dec.DisallowUnknownFields()
			var c skillCall
			if err := dec.Decode(&c); err != nil || c.Tool == "" {
				t.Fatalf("%s:%d: a toolhost-call block is not {tool, action, args}: %v", path, start, err)
			}
			c.line = start
			calls = append(calls, c)
		case in:
			block = append(block, line)
		}
	}
	if in {
		t.Fatalf("%s:%d: unclosed toolhost-call block", path, start)
	}
	return calls
}

var placeholderRE = regexp.MustCompile(`\{\{([a-z_]+)\}\}`)

// fill replaces {{key}} in string args with the value an earlier call
// returned under key (as a person following the skill would).
func fill(t *testing.T, v any, seen map[string]string) any {
	t.Helper()
	switch x := v.(type) {
	case string:
		return placeholderRE.ReplaceAllStringFunc(x, func(m string) string {
			key := placeholderRE.FindStringSubmatch(m)[1]
			val, ok := seen[key]
			if !ok {
				t.Fatalf("%s: no earlier call returned %s", m, key)
			}
			return val
		})
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = fill(t, e, seen)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = fill(t, e, seen)
		}
		return out
	}
	return v
}

// TestSkillsFollowedLiterally: every shipped skill (skills/*/SKILL.md) is
// served by get_skill, and every call it shows, run in order exactly as
// written through MCP against the real plugins (a corpus workbook as
// book.xlsx, generated usage logs, a fresh notes brain), succeeds.
func TestSkillsFollowedLiterally(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(repoRoot, "skills", "*", "SKILL.md"))
	must(t, err)
	if len(files) < 4 {
		t.Fatalf("want at least four skills, got %v", files)
	}
	for _, want := range []string{"xlsx", "usage", "notes", "spend-review", "workbook-brief"} {
		if !slices.Contains(realPluginNames, want) {
			t.Fatalf("plugin %s did not build", want)
		}
	}
	e, _, _ := realEnv(t)
	work := t.TempDir()
	// excelize's test/Book1.xlsx (BSD-3, plugins/xlsx/testdata/corpus/SOURCES.tsv).
	copyFile(t, filepath.Join(repoRoot, "plugins", "xlsx", "testdata", "corpus", "files", "excelize__Book1.xlsx"), filepath.Join(work, "book.xlsx"))
	e.vars = append(e.vars, "HOST_SKILL_PATH="+filepath.Join(repoRoot, "skills"), "XLSX_ROOTS="+work)
	cmd := e.serveCmd()
	cmd.Dir = work // the skills name book.xlsx relative to the working directory
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "skills-e2e", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	must(t, err)
	t.Cleanup(func() { cs.Close() })

	for _, file := range files {
		name := filepath.Base(filepath.Dir(file))
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(file)
			must(t, err)
			sc, isErr := callTool(t, cs, "get_skill", map[string]any{"name": name})
			if isErr || sc["markdown"] != string(body) {
				t.Fatalf("get_skill %s: got %v, want the file's Markdown", name, sc)
			}
			calls := skillCalls(t, file)
			if len(calls) == 0 {
				t.Fatalf("%s shows no toolhost-call block", file)
			}
			seen := map[string]string{}
			for _, c := range calls {
				args := fill(t, map[string]any(c.Args), seen).(map[string]any)
				var mcpTool string
				var in map[string]any
				switch c.Tool {
				case "capabilities", "get_skill":
					mcpTool, in = c.Tool, args
				case "spend-review", "workbook-brief":
					mcpTool, in = "run_agent", map[string]any{"agent": c.Tool, "action": c.Action, "args": args}
				default:
					mcpTool, in = "run_tool", map[string]any{"tool": c.Tool, "action": c.Action, "args": args}
				}
				res, isErr := callTool(t, cs, mcpTool, in)
				if isErr {
					t.Fatalf("%s:%d: %s %s failed: %v", file, c.line, c.Tool, c.Action, res)
				}
				for k, v := range res {
					if s, ok := v.(string); ok {
						seen[k] = s
					}
				}
			}
		})
	}

	// A missing skill answers its own code, with the name it was likely meant to be.
	sc, isErr := callTool(t, cs, "get_skill", map[string]any{"name": "reading-spreadsheet"})
	if e, _ := sc["error"].(map[string]any); !isErr || e["code"] != "unknown_skill" || !slices.Contains(toStrings(e["did_you_mean"]), "reading-spreadsheets") {
		t.Fatalf("get_skill on a misspelt name: got %v, want unknown_skill with did_you_mean reading-spreadsheets", sc)
	}
}

func toStrings(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
