package tests

// Load over stdio and HTTP: N calls, 16 in flight, none lost.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
