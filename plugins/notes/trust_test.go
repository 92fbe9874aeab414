package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// cli runs the built notes binary in CLI mode over one brain.
type cli struct {
	t     *testing.T
	bin   string
	home  string
	brain string
}

func newCLI(t *testing.T) *cli {
	t.Helper()
	home := t.TempDir()
	return &cli{t: t, bin: filepath.Join(binaries(t), "plugins", "notes", "notes"), home: home, brain: filepath.Join(t.TempDir(), "brain")}
}

// cmd is the notes process for action with args as JSON; extra is added to
// its environment.
func (c *cli) cmd(action string, args map[string]any, extra ...string) *exec.Cmd {
	raw, err := json.Marshal(args)
	if err != nil {
		c.t.Fatal(err)
	}
	return c.command([]string{action, "--json", string(raw)}, extra...)
}

// command is the notes process with the command line argv, over the
// test's brain and home; extra is added to its environment.
func (c *cli) command(argv []string, extra ...string) *exec.Cmd {
	cmd := exec.Command(c.bin, argv...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + c.home, "XDG_DATA_HOME=" + filepath.Join(c.home, "data"),
		"NOTES_BRAIN=" + c.brain, "NOTES_LOCK_TIMEOUT=5m"}, extra...)
	return cmd
}

// run runs action to completion and returns its JSON result and exit code.
func (c *cli) run(action string, args map[string]any, extra ...string) (map[string]any, int) {
	c.t.Helper()
	return c.result(c.cmd(action, args, extra...))
}

// result runs cmd to completion and returns the JSON object it printed and
// its exit code.
func (c *cli) result(cmd *exec.Cmd) (map[string]any, int) {
	c.t.Helper()
	stdout, stderr, code := testplugin.Run(c.t, cmd)
	var m map[string]any
	if err := json.Unmarshal(stdout, &m); err != nil {
		c.t.Fatalf("%v: stdout is not one JSON object: %v\n%s\nstderr: %s", cmd.Args[1:], err, stdout, stderr)
	}
	return m, code
}

// ok runs action and fails the test unless it exits 0.
func (c *cli) ok(action string, args map[string]any) map[string]any {
	c.t.Helper()
	m, code := c.run(action, args)
	if code != 0 {
		c.t.Fatalf("%s %v: exit %d: %v", action, args, code, m)
	}
	return m
}

func (c *cli) git(args ...string) string {
	c.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", c.brain}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=/nonexistent"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		c.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestParallelRememberProcesses starts 20 notes processes at once, four for
// each of five different memories: each memory ends up in the brain exactly
// once, and every process succeeds (created once, skipped otherwise).
func TestParallelRememberProcesses(t *testing.T) {
	c := newCLI(t)
	c.ok("status", nil) // create the brain first: this test is about writes
	contents := []string{
		"The staging database refuses connections from the office VPN after midnight UTC",
		"Deploys of the billing service need the feature flag payments_v2 switched off first",
		"Prefer table-driven tests with t.Run and t.TempDir in every Go package of this repository",
		"The nightly Kafka consumer lags when the partition count exceeds forty eight",
		"Grafana dashboards for checkout live in the observability folder owned by the SRE team",
	}
	const procs = 20
	type outcome struct {
		decision, path, err string
		code                int
	}
	results := make([]outcome, procs)
	cmds := make([]*exec.Cmd, procs)
	outs := make([]*bytes.Buffer, procs)
	for i := range procs {
		cmds[i] = c.cmd("remember", map[string]any{"type": "gotcha", "content": contents[i%len(contents)]})
		outs[i] = &bytes.Buffer{}
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
	}
	// Start them all before waiting on any.
	for i := range procs {
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for i := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := cmds[i].Wait()
			var m map[string]any
			if jerr := json.Unmarshal(outs[i].Bytes(), &m); jerr != nil {
				results[i] = outcome{err: fmt.Sprintf("%v: %s", err, outs[i].String()), code: -1}
				return
			}
			results[i] = outcome{decision: fmt.Sprint(m["decision"]), path: fmt.Sprint(m["path"]), code: cmds[i].ProcessState.ExitCode()}
			if results[i].code != 0 {
				results[i].err = outs[i].String()
			}
		}()
	}
	wg.Wait()
	created := map[string][]string{}
	errs := 0
	for i, r := range results {
		if r.code != 0 {
			errs++
			t.Errorf("process %d: exit %d: %s", i, r.code, r.err)
			continue
		}
		switch r.decision {
		case "created":
			created[contents[i%len(contents)]] = append(created[contents[i%len(contents)]], r.path)
		case "skipped":
		default:
			t.Errorf("process %d: decision %q, want created or skipped", i, r.decision)
		}
	}
	for _, want := range contents {
		if got := created[want]; len(got) != 1 {
			t.Errorf("%q created %d times (%v), want once", want, len(got), got)
		}
	}
	files := strings.Fields(c.git("ls-files", "memory/gotchas/*.md"))
	if len(files) != len(contents) {
		t.Errorf("memory/gotchas holds %d notes %v, want %d", len(files), files, len(contents))
	}
	if st := c.git("status", "--porcelain"); st != "" {
		t.Errorf("the brain has uncommitted changes after the writers:\n%s", st)
	}
	t.Logf("%d parallel processes, %d distinct memories: %d notes, %d errors", procs, len(contents), len(files), errs)
}

// crashCase is one write the recovery test interrupts.
type crashCase struct {
	name   string
	points []string // where NOTES_CRASH_AT may stop it
}

// TestKillRecovery kills a writer with SIGKILL at every step of every write
// once, in a random order, and in make check on to 100 kills at random
// steps of random writes (seeded; NOTES_CRASH_SEED replays a run); after each
// kill checks with status that the brain is healthy: the interrupted write
// either fully happened or left no trace, no journal or git lock is left,
// and the note a person wrote by hand (never committed) is untouched.
func TestKillRecovery(t *testing.T) {
	c := newCLI(t)
	c.ok("status", nil)
	hand := filepath.Join(c.brain, "wiki", "concepts", "hand-written.md")
	handText := "---\ntype: concept\n---\n# Hand written\n\nWritten by a person and never committed; no agent write may touch it.\n"
	if err := os.WriteFile(hand, []byte(handText), 0o644); err != nil {
		t.Fatal(err)
	}
	base := c.ok("write-page", map[string]any{"path": "wiki/concepts/crash-base.md", "content": "# Crash base\n\nline zero\n", "frontmatter": map[string]any{"type": "concept"}})
	basePath := base["path"].(string)
	// So that undo (of the newest op, or of that undo) never removes the
	// page patch-page edits.
	c.ok("remember", map[string]any{"type": "gotcha", "content": "The crash test's brain has one memory before the kills start"})

	seed := uint64(20261201)
	if v := os.Getenv("NOTES_CRASH_SEED"); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		seed = s
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	writePoints := []string{"journal", "file", "git-update-index", "git-mktree", "git-commit-tree", "git-update-ref", "commit", "index"}
	cases := []crashCase{
		{"remember", writePoints},
		{"write-page", writePoints},
		{"patch-page", writePoints},
		{"undo", []string{"journal", "git-revert", "revert", "git-commit", "commit", "index"}},
	}
	// Every action at every kill point once, in a random order; make check
	// then goes on to 100 kills at random.
	type kill struct {
		cs    crashCase
		point string
	}
	var every []kill
	for _, cs := range cases {
		for _, p := range cs.points {
			every = append(every, kill{cs, p})
		}
	}
	rng.Shuffle(len(every), func(i, j int) { every[i], every[j] = every[j], every[i] })
	rounds := testplugin.Size(len(every), 100)
	counts := map[string]int{}
	results := map[string]int{}
	start := time.Now()
	for i := range rounds {
		var k kill
		if i < len(every) {
			k = every[i]
		} else {
			cs := cases[rng.IntN(len(cases))]
			k = kill{cs, cs.points[rng.IntN(len(cs.points))]}
		}
		cs, point := k.cs, k.point
		word := fmt.Sprintf("crashword%03dx", i)
		var action string
		var args map[string]any
		switch cs.name {
		case "remember":
			action, args = "remember", map[string]any{"type": "gotcha", "content": "Round " + word + " remembers that the queue " + word + " drains slowly", "resolution": "create"}
		case "write-page":
			action, args = "write-page", map[string]any{"path": "wiki/concepts/" + word + ".md", "content": "# " + word + "\n\nA page about " + word + ".\n", "frontmatter": map[string]any{"type": "concept"}}
		case "patch-page":
			action, args = "patch-page", map[string]any{"path": basePath, "old": "line zero", "new": "line zero " + word}
		case "undo":
			// Undo the newest operation; a person's op needs the token.
			last := strings.TrimSpace(c.git("log", "-1", "--format=%(trailers:key=Notes-Op,valueonly)"))
			args = map[string]any{"op": last}
			first := c.ok("undo", args)
			tok, _ := first["confirm_token"].(string)
			if tok == "" {
				t.Fatalf("round %d: undo asked no confirmation: %v", i, first)
			}
			action, args = "undo", map[string]any{"op": last, "confirm-token": tok}
		}
		headBefore := strings.TrimSpace(c.git("rev-parse", "HEAD"))
		m, code := c.runKilled(action, args, point)
		counts[cs.name+"@"+point]++
		if code != -int(syscall.SIGKILL) {
			t.Fatalf("round %d: %s stopped at %s exited %d, want killed: %v", i, action, point, code, m)
		}
		st := c.ok("status", nil)
		if st["healthy"] != true {
			t.Fatalf("round %d (%s at %s): status unhealthy: %v", i, cs.name, point, st["problems"])
		}
		rec, _ := st["recovered"].([]any)
		if len(rec) != 1 {
			t.Fatalf("round %d (%s at %s): recovered %v, want one operation", i, cs.name, point, rec)
		}
		result := rec[0].(map[string]any)["result"].(string)
		results[result]++
		headAfter := strings.TrimSpace(c.git("rev-parse", "HEAD"))
		if (result == "completed") != (headAfter != headBefore) {
			t.Fatalf("round %d (%s at %s): recovery %s but HEAD %s → %s", i, cs.name, point, result, headBefore, headAfter)
		}
		got, err := os.ReadFile(hand)
		if err != nil || string(got) != handText {
			t.Fatalf("round %d (%s at %s): the hand-written note changed: %q, %v", i, cs.name, point, got, err)
		}
		if porcelain := c.git("status", "--porcelain", "--untracked-files=all"); porcelain != "?? wiki/concepts/hand-written.md\n" {
			t.Fatalf("round %d (%s at %s): git status after recovery:\n%s", i, cs.name, point, porcelain)
		}
		for _, left := range []string{".notes/journal/*", ".git/*.lock", ".git/refs/heads/*.lock", "*/*/.tmp-notes-*"} {
			if m, _ := filepath.Glob(filepath.Join(c.brain, left)); len(m) > 0 {
				t.Fatalf("round %d (%s at %s): left behind %v", i, cs.name, point, m)
			}
		}
		// What search sees matches what git holds: a rolled-back write
		// leaves nothing to find.
		if cs.name != "undo" {
			hits := c.ok("search", map[string]any{"query": word})["hits"].([]any)
			if want := map[string]int{"completed": 1, "rolled_back": 0}[result]; len(hits) != want {
				t.Fatalf("round %d (%s at %s, %s): search %s found %d hits, want %d", i, cs.name, point, result, word, len(hits), want)
			}
		}
	}
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		fmt.Fprintf(&b, " %s=%d", k, counts[k])
	}
	t.Logf("seed %d: %d kills in %s; recovered: %d completed, %d rolled back; hand-written note intact; kill points:%s",
		seed, rounds, time.Since(start).Round(time.Millisecond), results["completed"], results["rolled_back"], b.String())
}

// runKilled runs a write that NOTES_CRASH_AT stops at point; the exit code
// is minus the signal when a signal ended it.
func (c *cli) runKilled(action string, args map[string]any, point string) (string, int) {
	c.t.Helper()
	cmd := c.cmd(action, args, "NOTES_CRASH_AT="+point)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return out.String(), -int(ws.Signal())
		}
		return out.String(), ee.ExitCode()
	}
	if err != nil {
		c.t.Fatalf("run %s: %v", action, err)
	}
	return out.String(), 0
}
