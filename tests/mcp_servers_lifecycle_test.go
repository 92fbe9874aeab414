package tests

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pidsWith returns the processes whose command line holds every one of
// words (Linux's /proc).
func pidsWith(words ...string) []int { return pidsWhere(false, words...) }

// pidsWhere returns the processes whose command line (and, with environ,
// environment) hold every one of words.
func pidsWhere(environ bool, words ...string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, d := range entries {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if environ {
			env, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
			raw = append(append(raw, 0), env...)
		}
		cmd := strings.ReplaceAll(string(raw), "\x00", " ")
		if !slices.ContainsFunc(words, func(w string) bool { return !strings.Contains(cmd, w) }) {
			out = append(out, pid)
		}
	}
	return out
}

// waitGone waits until no process's command line (and, with environ,
// environment) holds words.
func waitGone(t *testing.T, what string, environ bool, words ...string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(pidsWhere(environ, words...)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%s is still running: %v", what, pidsWhere(environ, words...))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// crashAndIdle: the memory server killed under the host is started again
// on the next call; stopped after HOST_PLUGIN_IDLE without calls (with
// everything in its process group), it starts again on the next call.
func crashAndIdle(t *testing.T, e *env) {
	if runtime.GOOS != "linux" {
		t.Skip("finds the server's process in /proc")
	}
	cache := ""
	for _, kv := range e.vars {
		if v, ok := strings.CutPrefix(kv, "XDG_CACHE_HOME="); ok {
			cache = v
		}
	}
	server := []string{cache, "server-memory/dist/index.js"}
	var cs *mcp.ClientSession
	read := func(when string) int {
		t.Helper()
		if sc, _, isErr := runToolResult(t, cs, "memory", "read_graph", map[string]any{}); isErr {
			t.Fatalf("memory read_graph %s: %v", when, sc)
		}
		pids := pidsWith(server...)
		if len(pids) != 1 {
			t.Fatalf("memory's server processes %s: %v, want one", when, pids)
		}
		return pids[0]
	}

	// A crash: the server dies; its bridge follows it (the host's idle
	// stop, 10 minutes by default, does not), and the next call starts
	// both again.
	cs = goClient(t, e, "", nil)
	first := read("at first")
	proc, err := os.FindProcess(first)
	must(t, err)
	must(t, proc.Kill())
	// The bridge's environment holds its configuration, naming this
	// test's cache folder.
	waitGone(t, "the crashed server's bridge", true, "--toolhost-mcp-bridge", cache)
	second := read("after the crash")
	if second == first {
		t.Fatal("the crashed server was not started again")
	}
	cs.Close()

	// Idle: after a second without calls the plugin is stopped, server and
	// all; the next call starts it again.
	idle := *e
	idle.vars = append(slices.Clone(e.vars), "HOST_PLUGIN_IDLE=1s")
	cs = goClient(t, &idle, "", nil)
	third := read("in a host that stops idle plugins")
	waitGone(t, "the idle memory server", false, server...)
	if fourth := read("after the idle stop"); fourth == third {
		t.Fatal("the idle server was not started again")
	}
}
