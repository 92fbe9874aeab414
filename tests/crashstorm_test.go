package tests

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// stormCalls is the crash storm's size: 1,000 in `make test`, more with
// STORM_CALLS (make soak).
func stormCalls() int {
	if n, err := strconv.Atoi(os.Getenv("STORM_CALLS")); err == nil && n > 0 {
		return n
	}
	return 1000
}

// TestCrashStorm drives `host serve` over stdio with a plugin that panics,
// exits, hangs or answers garbage on a random 20% of its calls, while
// another plugin serves beside it, 16 calls in flight (issue 9, build 5).
// Every call must be answered, the healthy plugin must see no error, the
// crashing tool must be usable again once it stops crashing, and the
// host's descriptors must come back to where they were; `host list` says
// why the tool was disabled and until when. It prints its figures.
func TestCrashStorm(t *testing.T) {
	state := t.TempDir()
	e := newEnv(t, "HOST_MAX_CRASHES=20", "HOST_DISABLE_FOR=200ms", "HOST_DISABLE_MAX=2s", "XDG_STATE_HOME="+state, "HOST_LOG_LEVEL=warn")
	// The healthy plugin: testtool with room for the whole flood.
	manifest := filepath.Join(e.plugins, "testtool", "tool.yaml")
	must(t, os.WriteFile(manifest, []byte(strings.Replace(testplugin.Manifest, "concurrency: 2", "concurrency: 8", 1)), 0o644))
	// The crashing plugin: the same binary as stormtool, hangs cut at 1s.
	storm := filepath.Join(e.plugins, "stormtool")
	must(t, os.MkdirAll(storm, 0o755))
	m := strings.Replace(testplugin.Manifest, "name: testtool", "name: stormtool", 1)
	m = strings.Replace(strings.Replace(m, "timeout: 5s", "timeout: 1s", 1), "concurrency: 2", "concurrency: 8", 1)
	must(t, os.WriteFile(filepath.Join(storm, "tool.yaml"), []byte(m), 0o644))
	testplugin.CopyBinary(t, filepath.Join(e.plugins, "testtool", "testtool"), filepath.Join(storm, "testtool"))

	w := e.startWire(t)
	w.initialize()
	hostPid := w.cmd.Process.Pid
	// Warm both plugins, then take the baseline.
	for i, tool := range []string{"testtool", "stormtool"} {
		args := `{"text":"warm"}`
		action := "echo"
		if tool == "stormtool" {
			action, args = "storm", `{"n":0,"percent":0}`
		}
		if sc, isErr := structured(t, w.Call(runToolLine(1000000+i, tool, action, args))); isErr {
			t.Fatalf("warm-up %s: %v", tool, sc)
		}
	}
	baseFDs := countFDs(t, hostPid)

	n := stormCalls()
	rng := rand.New(rand.NewPCG(9, 9))
	type sent struct {
		healthy bool
		n       int
	}
	calls := map[int]sent{}
	outcomes := map[string]int{}
	healthyErrors, healthyCalls := 0, 0
	inflight, next, answered := 0, 0, 0
	start := time.Now()
	for answered < n {
		for inflight < 16 && next < n {
			id := next + 1
			c := sent{healthy: rng.IntN(4) == 0, n: next}
			if c.healthy {
				w.Send(runToolLine(id, "testtool", "echo", fmt.Sprintf(`{"text":"h%d"}`, next)))
				healthyCalls++
			} else {
				w.Send(runToolLine(id, "stormtool", "storm", fmt.Sprintf(`{"n":%d,"percent":20}`, next)))
			}
			calls[id] = c
			next++
			inflight++
		}
		var resp struct {
			ID     int             `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		line := w.NextLine()
		if json.Unmarshal([]byte(line), &resp) != nil || resp.Method != "" {
			continue // a notification
		}
		c, ok := calls[resp.ID]
		if !ok {
			t.Fatalf("an answer to a call never made, or twice: %s", line)
		}
		delete(calls, resp.ID)
		inflight--
		answered++
		if resp.Error != nil {
			t.Fatalf("call %d got a JSON-RPC error, not a tool result: %s", resp.ID, line)
		}
		var r struct {
			StructuredContent map[string]any `json:"structuredContent"`
			IsError           bool           `json:"isError"`
		}
		must(t, json.Unmarshal(resp.Result, &r))
		code := "ok"
		if r.IsError {
			code = errorCode(r.StructuredContent)
		}
		switch {
		case c.healthy && (r.IsError || r.StructuredContent["text"] != fmt.Sprintf("h%d", c.n)):
			healthyErrors++
			t.Errorf("healthy plugin call %d: %s", c.n, resp.Result)
		case c.healthy:
			outcomes["healthy ok"]++
		case !r.IsError && r.StructuredContent["n"] != float64(c.n):
			t.Errorf("storm call %d answered someone else's result: %s", c.n, resp.Result)
		default:
			outcomes["storm "+code]++
		}
	}
	elapsed := time.Since(start)

	// host list tells why the storm tool was disabled and until when, as
	// long as a disable holds.
	disabledSeen := outcomes["storm disabled"] > 0
	list := listDisabled(t, e)

	// Once it stops crashing, the tool is usable again: each refusal names
	// the time it ends, and the call after that time is let through.
	recovered := false
	for attempt := 0; attempt < 50 && !recovered; attempt++ {
		sc, isErr := structured(t, w.Call(runToolLine(2000000+attempt, "stormtool", "storm", `{"n":7,"percent":0}`)))
		switch {
		case !isErr && sc["n"] == float64(7):
			recovered = true
		case errorCode(sc) == "disabled":
			until, _ := time.Parse(time.RFC3339, fmt.Sprint(sc["error"].(map[string]any)["details"].(map[string]any)["until"]))
			<-time.After(time.Until(until) + 50*time.Millisecond) // the host said when
		case errorCode(sc) == "timeout" || errorCode(sc) == "plugin_crashed":
			// a relaunch racing a loaded machine; try again
		default:
			t.Fatalf("after the storm: %v", sc)
		}
	}
	if !recovered {
		t.Fatal("the storm tool never became usable again after it stopped crashing")
	}

	// The host's descriptors come back to the baseline once the dead
	// plugins' connections are closed (a liveness bound, not a speed one).
	fds := countFDs(t, hostPid)
	for deadline := time.Now().Add(30 * time.Second); fds > baseFDs && time.Now().Before(deadline); fds = countFDs(t, hostPid) {
		<-time.After(100 * time.Millisecond)
	}
	kids := childProcesses(hostPid)

	var keys []string
	for k := range outcomes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%d", k, outcomes[k])
	}
	t.Logf("crash storm: %d calls (%d to the healthy plugin) answered %d in %s (%.0f calls/s), 16 in flight;%s; healthy errors %d; host fds %d before, %d after; host children after %d; disabled seen %v, host list: %s",
		n, healthyCalls, answered, elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds(), b.String(), healthyErrors, baseFDs, fds, len(kids), disabledSeen, list)

	if healthyErrors > 0 {
		t.Errorf("the healthy plugin had %d errors during the storm", healthyErrors)
	}
	if fds > baseFDs {
		t.Errorf("host file descriptors %d after the storm, %d before", fds, baseFDs)
	}
	if len(kids) > 2 {
		t.Errorf("host has %d child processes after the storm, want at most the two plugins' reapers: %v", len(kids), kids)
	}
	if outcomes["storm plugin_crashed"] == 0 {
		t.Errorf("the storm crashed nothing: %v", outcomes)
	}
	if err := w.closeAndWait(); err != nil {
		t.Errorf("host exit: %v", err)
	}
}

// listDisabled runs `host list --json` in e and returns what it says of
// stormtool's disable, or "not disabled".
func listDisabled(t *testing.T, e *env) string {
	t.Helper()
	cmd := exec.Command(hostBin, "list", "--json")
	cmd.Env = e.vars
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("host list --json: %v", err)
	}
	var l struct {
		Tools []struct {
			Name     string         `json:"name"`
			Disabled map[string]any `json:"disabled"`
		} `json:"tools"`
	}
	must(t, json.Unmarshal(out, &l))
	for _, tool := range l.Tools {
		if tool.Name == "stormtool" && tool.Disabled != nil {
			if tool.Disabled["reason"] == "" || tool.Disabled["until"] == "" {
				t.Errorf("host list says disabled without why or until when: %v", tool.Disabled)
			}
			return fmt.Sprintf("disabled until %v: %v", tool.Disabled["until"], tool.Disabled["reason"])
		}
	}
	return "not disabled"
}

// countFDs counts the open file descriptors of pid.
func countFDs(t *testing.T, pid int) int {
	t.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatalf("count fds: %v", err)
	}
	return len(fds)
}

// childProcesses lists the live children of pid.
func childProcesses(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var kids []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		if len(f) > 1 && f[0] != "Z" && f[1] == strconv.Itoa(pid) {
			kids = append(kids, child)
		}
	}
	return kids
}
