package tests

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// notesMachine is one machine of the walkthrough: its own home, host
// state and brain, the real plugins.
type notesMachine struct {
	t     *testing.T
	e     *env
	brain string
}

func newNotesMachine(t *testing.T, name string) *notesMachine {
	t.Helper()
	if !slices.Contains(realPluginNames, "notes") {
		t.Fatal("plugin notes did not build")
	}
	home := t.TempDir()
	brain := filepath.Join(home, "brain")
	e := &env{plugins: realPlugins, vars: append(filteredEnviron(),
		"HOST_PLUGIN_PATH="+realPlugins, "HOST_SKILL_PATH="+t.TempDir(),
		"XDG_CACHE_HOME="+filepath.Join(home, "cache"), "XDG_DATA_HOME="+filepath.Join(home, "data"), "HOME="+home,
		"NOTES_BRAIN="+brain, "NOTES_MACHINE="+name)}
	return &notesMachine{t: t, e: e, brain: brain}
}

// call runs `host call notes ACTION --args JSON --json` as a person at the
// terminal and returns the JSON result; a tool error fails the test.
func (m *notesMachine) call(action string, args map[string]any, extra ...string) map[string]any {
	m.t.Helper()
	raw, err := json.Marshal(args)
	must(m.t, err)
	cmd := exec.Command(hostBin, append([]string{"call", "notes", action, "--args", string(raw), "--json"}, extra...)...)
	cmd.Env = m.e.vars
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		m.t.Fatalf("host call notes %s: %v\nstdout: %s\nstderr: %s", action, err, out, stderr.String())
	}
	var res map[string]any
	if err := json.Unmarshal(out, &res); err != nil {
		m.t.Fatalf("host call notes %s: not JSON: %s", action, out)
	}
	return res
}

func (m *notesMachine) sync(t *testing.T) map[string]any {
	t.Helper()
	r := m.call("sync", map[string]any{}, "--confirm")
	if r["status"] != "ok" {
		t.Fatalf("sync: %v", r)
	}
	return r
}

func (m *notesMachine) git(args ...string) string {
	m.t.Helper()
	out, err := exec.Command("git", append([]string{"-C", m.brain}, args...)...).CombinedOutput()
	if err != nil {
		m.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (m *notesMachine) finds(t *testing.T, query, want string) {
	t.Helper()
	r := m.call("search", map[string]any{"query": query})
	b, _ := json.Marshal(r["hits"])
	if !strings.Contains(string(b), want) {
		t.Fatalf("search %q on %s does not find %q: %s", query, m.brain, want, b)
	}
}

// The README's walkthrough, as a new user on two machines sharing one
// bare remote: each machine's brain starts on its own, both sync, both see
// each other's notes, and a note both changed keeps both versions.
func TestNotesTwoMachinesShareOneRemote(t *testing.T) {
	remote := filepath.Join(t.TempDir(), "notes.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", "-b", "main", remote).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v\n%s", err, out)
	}
	laptop, desktop := newNotesMachine(t, "laptop"), newNotesMachine(t, "desktop")
	// Each machine's brain starts on its own (the first call creates it),
	// then the person gives both the same remote.
	laptop.call("remember", map[string]any{"type": "gotcha", "content": "The laptop's VPN drops SSH sessions after an hour."})
	desktop.call("remember", map[string]any{"type": "gotcha", "content": "The desktop's disk fills up with Docker images."})
	for _, m := range []*notesMachine{laptop, desktop} {
		m.git("remote", "add", "origin", remote)
	}
	// Both write the same note before they ever synced.
	laptop.call("write-page", map[string]any{"path": "wiki/concepts/Queues.md", "content": "Laptop: SQS retries for 4 days.",
		"frontmatter": map[string]any{"type": "concept"}})
	desktop.call("write-page", map[string]any{"path": "wiki/concepts/Queues.md", "content": "Desktop: RabbitMQ needs a dead-letter exchange.",
		"frontmatter": map[string]any{"type": "concept"}})
	laptop.sync(t)
	// The desktop's first sync merges the two histories.
	r := desktop.sync(t)
	cf, _ := r["conflicts"].([]any)
	if len(cf) != 1 {
		t.Fatalf("want one conflict: %v", r)
	}
	cp, _ := cf[0].(map[string]any)["copy"].(string)
	if !strings.HasPrefix(cp, "wiki/concepts/Queues.conflict-desktop-") {
		t.Fatalf("copy %q", cp)
	}
	laptop.sync(t)
	for _, m := range []*notesMachine{laptop, desktop} {
		note, err := os.ReadFile(filepath.Join(m.brain, "wiki/concepts/Queues.md"))
		must(t, err)
		copied, err := os.ReadFile(filepath.Join(m.brain, filepath.FromSlash(cp)))
		must(t, err)
		if !strings.Contains(string(note), "Laptop: SQS") || !strings.Contains(string(copied), "Desktop: RabbitMQ") {
			t.Fatalf("%s lost a version:\nnote: %s\ncopy: %s", m.brain, note, copied)
		}
		lint := m.call("lint", map[string]any{"rules": []string{"conflict_copy"}})
		b, _ := json.Marshal(lint["findings"])
		if !strings.Contains(string(b), cp) {
			t.Fatalf("lint on %s does not list the copy: %s", m.brain, b)
		}
		if st := m.git("status", "--porcelain"); st != "" {
			t.Fatalf("%s has uncommitted files after sync:\n%s", m.brain, st)
		}
	}
	laptop.finds(t, "Docker images disk", "Docker images")
	desktop.finds(t, "VPN SSH sessions", "VPN drops SSH")
	if a, b := laptop.git("rev-parse", "HEAD"), desktop.git("rev-parse", "HEAD"); a != b {
		t.Fatalf("the machines did not converge: %s vs %s", a, b)
	}
}

// An MCP client that calls itself host-cli is still an agent: ingest of a
// file outside the brain is refused and nothing is read; the same file
// named by a person at the terminal (host call) is ingested.
func TestNotesIngestOutsideFileOnlyFromTheTerminal(t *testing.T) {
	m := newNotesMachine(t, "laptop")
	outside := filepath.Join(t.TempDir(), "minutes.html")
	must(t, os.WriteFile(outside, []byte("<html><head><title>Board minutes</title></head><body><h1>Board minutes</h1><p>We chose <b>Postgres</b>.</p></body></html>"), 0o644))

	client := mcp.NewClient(&mcp.Implementation{Name: "host-cli", Version: "0.0.0-e2e"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: m.e.serveCmd()}, nil)
	must(t, err)
	defer cs.Close()
	sc, isErr := callTool(t, cs, "run_tool", map[string]any{"tool": "notes", "action": "ingest", "args": map[string]any{"path": outside}})
	if !isErr || errorCode(sc) != "unsafe_path" {
		t.Fatalf("an MCP client named host-cli ingested an outside file: %v", sc)
	}
	if b, _ := json.Marshal(sc); strings.Contains(string(b), "Postgres") {
		t.Fatal("the outside file was read")
	}
	if raws, _ := filepath.Glob(filepath.Join(m.brain, "raw", "articles", "*")); len(raws) != 0 {
		t.Fatalf("something was registered: %v", raws)
	}

	r := m.call("ingest", map[string]any{"path": outside})
	src, _ := r["source"].(map[string]any)
	path, _ := src["path"].(string)
	body, err := os.ReadFile(filepath.Join(m.brain, filepath.FromSlash(path)))
	must(t, err)
	if src["format"] != "html" || !strings.Contains(string(body), "We chose **Postgres**.") || !strings.Contains(string(body), "trust: low") {
		t.Fatalf("terminal ingest: %v\n%s", r, body)
	}
}
