package tests

// Issue 9, part A, build 5: load over stdio and HTTP (N calls, 16 in
// flight, 0 lost), and SIGTERM / SIGKILL with calls in flight.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// loadCalls is how many calls each load test makes: HOST_LOAD_CALLS, 1,000
// in `make test`, 10,000 in `make soak`.
func loadCalls(t *testing.T) int {
	if v := os.Getenv("HOST_LOAD_CALLS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("HOST_LOAD_CALLS=%q: want a positive number", v)
		}
		return n
	}
	return 1000
}

// loadInFlight is how many calls the load keeps in flight.
const loadInFlight = 16

// installLoadtool installs the test plugin as loadtool, with room for
// loadInFlight calls at once (testtool's concurrency is 2).
func installLoadtool(t *testing.T, e *env) {
	t.Helper()
	dir := filepath.Join(e.plugins, "loadtool")
	must(t, os.MkdirAll(dir, 0o755))
	m := strings.Replace(testplugin.Manifest, "name: testtool", "name: loadtool", 1)
	m = strings.Replace(m, "concurrency: 2", fmt.Sprintf("concurrency: %d", loadInFlight), 1)
	must(t, os.WriteFile(filepath.Join(dir, "tool.yaml"), []byte(m), 0o644))
	testplugin.CopyBinary(t, testplugin.Build(t, "1"), filepath.Join(dir, "testtool"))
	testplugin.Approve(t, e.plugins, stateHome) // the e2e hosts run with the approval lock on
}

func loadLine(id int) string {
	return runToolLine(id, "loadtool", "echo", fmt.Sprintf(`{"text":"call-%d"}`, id))
}

// checkLoadAnswer checks one answer is the echo of its own call.
func checkLoadAnswer(raw []byte) (int, error) {
	var m struct {
		ID     int `json:"id"`
		Result struct {
			IsError           bool           `json:"isError"`
			StructuredContent map[string]any `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return 0, fmt.Errorf("answer %q: %w", raw, err)
	}
	if m.Result.IsError || m.Result.StructuredContent["text"] != fmt.Sprintf("call-%d", m.ID) {
		return m.ID, fmt.Errorf("call %d answered %s", m.ID, raw)
	}
	return m.ID, nil
}

func TestHardeningLoadStdio(t *testing.T) {
	n := loadCalls(t)
	e := newEnv(t)
	installLoadtool(t, e)
	e.vars = append(e.vars, "HOST_LOG_LEVEL=warn")
	w := e.startWire(t)
	w.initialize()
	slots := make(chan struct{}, loadInFlight)
	start := time.Now()
	go func() {
		for id := 1; id <= n; id++ {
			slots <- struct{}{}
			if _, err := fmt.Fprintln(w.stdin, loadLine(id)); err != nil {
				return
			}
		}
		w.stdin.Close()
	}()
	seen := make([]bool, n+1)
	answered, failed := 0, 0
	for line := range w.lines {
		id, err := checkLoadAnswer([]byte(line))
		if id < 1 || id > n || seen[id] {
			t.Fatalf("an answer for no pending call: %s", line)
		}
		seen[id] = true
		answered++
		if err != nil {
			failed++
			if failed <= 3 {
				t.Error(err)
			}
		}
		<-slots
	}
	elapsed := time.Since(start)
	<-w.exited
	if w.err != nil {
		t.Errorf("host exit: %v", w.err)
	}
	t.Logf("stdio load: %d calls, %d in flight, %d answered, %d lost, %d failed, %.0f calls/s (machine shared)",
		n, loadInFlight, answered, n-answered, failed, float64(n)/elapsed.Seconds())
	if answered != n || failed != 0 {
		t.Errorf("%d of %d calls answered, %d failed; want all, 0 failed", answered, n, failed)
	}
}

func TestHardeningLoadHTTP(t *testing.T) {
	n := loadCalls(t)
	e := newEnv(t)
	installLoadtool(t, e)
	url, _ := startHTTPProc(t, e)
	var answered, failed atomic.Int64
	var errMu sync.Mutex
	var firstErr error
	elapsed := spread(n, loadInFlight, func(i int) {
		id := i + 1
		status, raw := postRPC(t, url, loadLine(id))
		got, err := checkLoadAnswer(raw)
		if err == nil && (status != http.StatusOK || got != id) {
			err = fmt.Errorf("call %d: status %d, answer for id %d", id, status, got)
		}
		if raw != nil {
			answered.Add(1)
		}
		if err != nil {
			failed.Add(1)
			errMu.Lock()
			if firstErr == nil {
				firstErr = err
			}
			errMu.Unlock()
		}
	})
	t.Logf("HTTP load: %d calls, %d in flight, %d answered, %d lost, %d failed, %.0f calls/s (machine shared)",
		n, loadInFlight, answered.Load(), int64(n)-answered.Load(), failed.Load(), float64(n)/elapsed.Seconds())
	if answered.Load() != int64(n) || failed.Load() != 0 {
		t.Errorf("%d of %d calls answered, %d failed (first: %v)", answered.Load(), n, failed.Load(), firstErr)
	}
}

// slowCall is a slow testtool call with a progress token, so its first
// progress notification says it is running.
func slowCall(id int, ms int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"_meta":{"progressToken":"p%d"},"name":"run_tool","arguments":{"tool":"testtool","action":"slow","args":{"ms":%d}}}}`, id, id, ms)
}

// TestHardeningSIGTERMStdio: SIGTERM with calls in flight (running and
// queued) answers every one of them, then exits 0 (defect 7: exit 0 with
// the calls never answered).
func TestHardeningSIGTERMStdio(t *testing.T) {
	w := newEnv(t).startWire(t)
	w.initialize()
	const calls = 4 // testtool runs 2 at once: 2 running, 2 queued
	for id := 1; id <= calls; id++ {
		w.Send(slowCall(id, 400))
	}
	results := map[float64]map[string]any{}
	started := 0
	for started == 0 { // one progress notification: the calls are running
		var m map[string]any
		must(t, json.Unmarshal([]byte(w.NextLine()), &m))
		if m["method"] == "notifications/progress" {
			started++
		} else if id, ok := m["id"].(float64); ok {
			results[id] = m
		}
	}
	must(t, w.cmd.Process.Signal(syscall.SIGTERM))
	for line := range w.lines {
		var m map[string]any
		must(t, json.Unmarshal([]byte(line), &m))
		if id, ok := m["id"].(float64); ok && m["method"] == nil {
			results[id] = m
		}
	}
	<-w.exited
	if w.err != nil {
		t.Errorf("after SIGTERM the host exited with %v, want 0", w.err)
	}
	if len(results) != calls {
		t.Fatalf("%d of %d calls in flight answered after SIGTERM: %v", len(results), calls, results)
	}
	for id, m := range results {
		if sc, isErr := structured(t, m); isErr || sc["slept_ms"] != float64(400) {
			t.Errorf("call %v after SIGTERM: %v, want it finished", id, sc)
		}
	}
}

// TestHardeningSIGTERMHTTP: the same over HTTP — the server stops
// accepting, the requests in flight are answered, then it exits 0.
func TestHardeningSIGTERMHTTP(t *testing.T) {
	url, cmd := startHTTPProc(t, newEnv(t))
	const calls = 4
	type answer struct {
		id  int
		raw []byte
		err error
	}
	answers := make(chan answer, calls)
	running := make(chan struct{}, calls)
	for id := 1; id <= calls; id++ {
		go func() {
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(slowCall(id, 400)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				answers <- answer{id: id, err: err}
				running <- struct{}{}
				return
			}
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			signalled := false
			var last []byte
			for sc.Scan() {
				d, ok := strings.CutPrefix(sc.Text(), "data: ")
				if !ok {
					continue
				}
				if !signalled {
					running <- struct{}{} // the stream is open: the call is in flight
					signalled = true
				}
				if strings.Contains(d, `"result"`) {
					last = []byte(d)
				}
			}
			if !signalled {
				running <- struct{}{}
			}
			answers <- answer{id: id, raw: last, err: sc.Err()}
		}()
	}
	<-running // at least one call is streaming progress
	must(t, cmd.Process.Signal(syscall.SIGTERM))
	for range calls - 1 {
		<-running
	}
	for range calls {
		a := <-answers
		if a.err != nil || a.raw == nil {
			t.Errorf("call %d after SIGTERM: no answer (%v)", a.id, a.err)
			continue
		}
		var m map[string]any
		must(t, json.Unmarshal(a.raw, &m))
		if sc, isErr := structured(t, m); isErr || sc["slept_ms"] != float64(400) {
			t.Errorf("call %d after SIGTERM: %v", a.id, sc)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("after SIGTERM the host exited with %v, want 0", err)
	}
}

// TestHardeningSIGKILLStdio: a host killed outright with calls in flight
// leaves no plugin running.
func TestHardeningSIGKILLStdio(t *testing.T) {
	w := newEnv(t).startWire(t)
	w.initialize()
	sc, isErr := structured(t, w.Call(runToolLine(1, "testtool", "env", `{}`)))
	pid, _ := sc["pid"].(float64)
	if isErr || pid == 0 {
		t.Fatalf("env: %v", sc)
	}
	w.Send(slowCall(2, 3000))
	w.Send(slowCall(3, 3000))
	for {
		var m map[string]any
		must(t, json.Unmarshal([]byte(w.NextLine()), &m))
		if m["method"] == "notifications/progress" {
			break
		}
	}
	must(t, w.cmd.Process.Kill())
	<-w.exited
	// Liveness bound, not a speed assertion: the kernel delivers the
	// plugin's parent-death signal at once.
	deadline := time.Now().Add(20 * time.Second)
	for processAlive(int(pid)) {
		if time.Now().After(deadline) {
			t.Fatalf("plugin pid %d still runs after the host was killed", int(pid))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// processAlive reports whether pid runs (a zombie does not count).
func processAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// spread calls call(i) for each i in [0, n), inFlight at a time, and
// returns how long all of them took.
func spread(n, inFlight int, call func(i int)) time.Duration {
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range inFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				call(i)
			}
		}()
	}
	wg.Wait()
	return time.Since(start)
}
