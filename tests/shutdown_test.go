package tests

// SIGTERM drains the calls in flight over stdio and HTTP; SIGKILL leaves
// no plugin behind.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

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
