package brain

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// TestLocalControlFilesNeedConfirmation: the local and override variants of
// agent instruction files steer agents as AGENTS.md does.
func TestLocalControlFilesNeedConfirmation(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	for _, p := range []string{"CLAUDE.local.md", "AGENTS.override.md", "projects/x/CLAUDE.local.md"} {
		t.Run(p, func(t *testing.T) {
			head := e.head()
			m := e.ok("write-page", map[string]any{"path": p, "content": "Always answer in French.", "frontmatter": map[string]any{}})
			if str(m, "status") != "confirmation_required" {
				t.Fatalf("write-page %s: got %v, want confirmation_required", p, m)
			}
			if e.head() != head || e.exists(p) {
				t.Fatalf("%s written without confirmation", p)
			}
		})
	}
}

// TestRecallLeavesControlFilesOut: AGENTS.md matches a task about the
// brain, but it is not a memory.
func TestRecallLeavesControlFilesOut(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	e.ok("remember", map[string]any{"type": "decision", "content": "The brain's notes tool commits every write with trailers"})
	m := e.ok("recall", map[string]any{"task": "how is this brain organised: notes, trailers, commits, agents"})
	mems := list(m, "memories")
	if len(mems) == 0 {
		t.Fatalf("recall found no memory: %v", m)
	}
	for _, it := range mems {
		v := it.(map[string]any)
		if str(v, "path") == AgentsFile || str(v, "id") == "" || str(v, "type") == "" {
			t.Errorf("recall returned %s (id %q, type %q) as a memory", str(v, "path"), str(v, "id"), str(v, "type"))
		}
	}
}

// TestLintLinesAreFileLines: a finding's line is the line of the file, past
// the frontmatter, and an unlinked mention names the line that mentions.
func TestLintLinesAreFileLines(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	e.ok("write-page", map[string]any{"path": "wiki/concepts/Queue Design.md", "content": "# Queue Design\n\nHow the queue works.\n", "frontmatter": map[string]any{"type": "concept"}})
	e.ok("write-page", map[string]any{"path": "wiki/concepts/Notes.md", "content": "# Notes\n\nFirst line.\n\nSee [[Nowhere At All]] here.\n\nThe queue design matters.\n", "frontmatter": map[string]any{"type": "concept"}})
	lines := strings.Split(e.file("wiki/concepts/Notes.md"), "\n")
	lineOf := func(sub string) int {
		for i, l := range lines {
			if strings.Contains(l, sub) {
				return i + 1
			}
		}
		t.Fatalf("%q not in the file", sub)
		return 0
	}
	m := e.ok("lint", map[string]any{"rules": []string{"broken_link", "unlinked_mention"}})
	want := map[string]int{"broken_link": lineOf("[[Nowhere At All]]"), "unlinked_mention": lineOf("queue design matters")}
	got := map[string]int{}
	for _, it := range list(m, "findings") {
		f := it.(map[string]any)
		if str(f, "path") == "wiki/concepts/Notes.md" {
			got[str(f, "rule")] = int(f["line"].(float64))
		}
	}
	for rule, line := range want {
		if got[rule] != line {
			t.Errorf("%s on line %d, want %d (the file's line)", rule, got[rule], line)
		}
	}
}

// TestBrokenConfigIsInvalidConfig: a .brain.json that is not JSON is the
// brain's config broken, not a folder that is not a brain.
func TestBrokenConfigIsInvalidConfig(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	e.ok("status", nil)
	e.s.Close()
	if err := os.WriteFile(filepath.Join(e.root, ConfigFile), []byte("{ not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.s = &Service{Root: e.root}
	e.fails(CodeInvalidConfig, "status", nil)
}

// TestSearchBudgetKeepsOneHit: a budget smaller than the best hit still
// answers with that hit, shortened.
func TestSearchBudgetKeepsOneHit(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	e.ok("write-page", map[string]any{"path": "wiki/concepts/Kafka.md", "content": "# Kafka\n\n" + strings.Repeat("The kafka consumer group rebalances when a partition moves. ", 40), "frontmatter": map[string]any{"type": "concept"}})
	m := e.ok("search", map[string]any{"query": "kafka rebalances", "budget-tokens": 60})
	hits := list(m, "hits")
	if len(hits) != 1 || m["truncated"] != true {
		t.Fatalf("got %d hits (truncated %v), want the best one, shortened", len(hits), m["truncated"])
	}
}

// TestDefaultTitleCutsAtAWord: a long first line becomes a title cut at a
// word, marked with an ellipsis.
func TestDefaultTitleCutsAtAWord(t *testing.T) {
	line := "Deploys of the billing service need the payments feature flag switched off before the migration runs on every shard"
	got := defaultTitle(line)
	if !strings.HasSuffix(got, "…") || utf8.RuneCountInString(got) > 80 {
		t.Fatalf("title %q: want at most 80 runes ending in …", got)
	}
	if !strings.HasPrefix(line, strings.TrimSuffix(got, "…")+" ") {
		t.Fatalf("title %q is not cut at a word of %q", got, line)
	}
	if got := defaultTitle("Short line"); got != "Short line" {
		t.Fatalf("short title changed: %q", got)
	}
}

// TestBrainCreatedSurvivesWarmUp: the host's warm-up creates the brain; the
// agent's first call still hears that it was created, once.
func TestBrainCreatedSurvivesWarmUp(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	e.s.Warm(context.Background())
	if !e.exists(ConfigFile) {
		t.Fatal("warm-up did not create the brain")
	}
	if obj(e.ok("status", nil), "brain_created") == nil {
		t.Fatal("first call after warm-up: no brain_created")
	}
	if obj(e.ok("status", nil), "brain_created") != nil {
		t.Fatal("second call: brain_created again")
	}
}

// TestSessionUndoAfterUndoInside: a session that undid one of its own ops
// can still be undone as a whole; what the inner undo removed stays removed.
func TestSessionUndoAfterUndoInside(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	sess := str(e.ok("recall", map[string]any{"task": "anything"}), "session_handle")
	a := e.ok("remember", map[string]any{"type": "gotcha", "content": "The cache warms in ninety seconds after a deploy", "session-handle": sess})
	b := e.ok("remember", map[string]any{"type": "preference", "content": "Prefer squash merges for feature branches", "session-handle": sess})
	e.ok("undo", map[string]any{"op": str(b, "op"), "session-handle": sess})
	e.ok("undo", map[string]any{"session": sess})
	if e.exists(str(a, "path")) || e.exists(str(b, "path")) {
		t.Fatalf("after the session undo: %s exists %v, %s exists %v; want neither", str(a, "path"), e.exists(str(a, "path")), str(b, "path"), e.exists(str(b, "path")))
	}
	e.clean()
}

// TestParallelRememberInOneProcess: 20 goroutines through one service (as
// one host sends them) write four memories: each once, no error.
func TestParallelRememberInOneProcess(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	e.ok("status", nil)
	contents := []string{
		"The staging database refuses connections from the office VPN after midnight",
		"Deploys of the billing service need the payments flag switched off first",
		"Grafana dashboards for checkout live in the observability folder",
		"The nightly consumer lags when the partition count exceeds forty eight",
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	created := map[string]int{}
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := e.call("remember", map[string]any{"type": "gotcha", "content": contents[i%len(contents)]})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Errorf("remember %d: %v", i, err)
				return
			}
			if str(m, "decision") == "created" {
				created[contents[i%len(contents)]]++
			}
		}()
	}
	wg.Wait()
	for _, c := range contents {
		if created[c] != 1 {
			t.Errorf("%q created %d times, want once", c, created[c])
		}
	}
	e.clean()
}
