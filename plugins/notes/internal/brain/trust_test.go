package brain

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/toolhost/toolhost/plugins/notes/internal/journal"
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
	m := e.ok("search", map[string]any{"query": "kafka rebalances", "budget-tokens": 100}) // the manifest's minimum
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

// TestRecoveryLeavesLaterEditsAlone: a write dies after writing its file; a
// person then edits that file before anyone recovers. Recovery rolls the
// write back everywhere else but leaves the person's file as it is.
func TestRecoveryLeavesLaterEditsAlone(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	b := e.brain()
	ctx := context.Background()
	unlock, err := b.lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	changes := []change{{Path: "memory/gotchas/a.md", Data: []byte("agent A\n")}, {Path: "memory/gotchas/b.md", Data: []byte("agent B\n")}}
	j, err := b.beginJournal(newID(), "remember", e.head(), []string{"memory/gotchas/a.md", "memory/gotchas/b.md"}, changes)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range changes {
		if err := writeAtomic(filepath.Join(e.root, ch.Path), ch.Data); err != nil {
			t.Fatal(err)
		}
	}
	// The writer dies here (its lock goes); a person edits b.md.
	unlock()
	if err := os.WriteFile(filepath.Join(e.root, "memory/gotchas/b.md"), []byte("the person's own text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := e.ok("status", nil)
	rec := list(st, "recovered")
	if len(rec) != 1 || str(rec[0].(map[string]any), "op") != j.Op || str(rec[0].(map[string]any), "result") != "rolled_back" {
		t.Fatalf("recovered %v, want op %s rolled back", rec, j.Op)
	}
	if skipped := list(rec[0].(map[string]any), "skipped"); len(skipped) != 1 || skipped[0] != "memory/gotchas/b.md" {
		t.Fatalf("skipped %v, want the person's b.md", skipped)
	}
	if e.exists("memory/gotchas/a.md") {
		t.Fatal("a.md, written by the dead writer, is still there")
	}
	if got := e.file("memory/gotchas/b.md"); got != "the person's own text\n" {
		t.Fatalf("b.md = %q, want the person's text", got)
	}
}

// TestRecoveryFindsCommitBelowAPersonsCommit: a write dies after its commit;
// a person commits on top before anyone recovers. Recovery sees the op's
// commit in history and completes it instead of undoing it in the tree.
func TestRecoveryFindsCommitBelowAPersonsCommit(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	m := e.ok("remember", map[string]any{"type": "gotcha", "content": "The cache warms in ninety seconds after a deploy"})
	b := e.brain()
	// The journal the writer would have left had it died after the commit
	// (rewritten by hand: the write above removed its own).
	parent := strings.TrimSpace(e.git("rev-parse", "HEAD~1"))
	path := str(m, "path")
	j := journal.Journal{Op: str(m, "op"), Action: "remember", Started: "2026-01-01T00:00:00Z", OldHead: parent, Files: []journal.Entry{{Path: path, New: "x"}}}
	raw, _ := json.Marshal(j)
	if err := os.MkdirAll(filepath.Join(e.root, journalDir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b.Root, journalDir, j.Op+".json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	e.writeHuman("wiki/concepts/Later.md", "# Later\n\nA person's commit on top.\n")
	rec := list(e.ok("status", nil), "recovered")
	if len(rec) != 1 || str(rec[0].(map[string]any), "result") != "completed" {
		t.Fatalf("recovered %v, want the op completed", rec)
	}
	if !e.exists(path) {
		t.Fatalf("%s was rolled back although its commit is in history", path)
	}
	e.clean()
}

// TestParallelHandoffsGetTheirOwnPaths: handoffs with the same title on the
// same day, saved at once, each get a path of their own; none conflicts.
func TestParallelHandoffsGetTheirOwnPaths(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	e.ok("status", nil)
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := map[string]bool{}
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := e.call("handoff-save", map[string]any{"session-handle": "01M8RTESTSESSION000000000" + string(rune('A'+i)), "title": "Queue work", "done": []string{"step " + string(rune('a'+i))}, "next": []string{"continue"}})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Errorf("handoff-save %d: %v", i, err)
				return
			}
			got[str(obj(m, "handoff"), "path")] = true
		}()
	}
	wg.Wait()
	if len(got) != 8 {
		t.Fatalf("%d distinct handoff paths, want 8: %v", len(got), got)
	}
	e.clean()
}
