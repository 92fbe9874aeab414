package tests

// What a client sends (raw frames on stdio and HTTP) and what a plugin
// answers can neither kill nor wedge `host serve`, and every request gets
// an answer under the id it was sent with.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// hostileManifest declares tests/testdata/hostile, a plugin that returns
// malformed results past the SDK.
const hostileManifest = `name: hostile
kind: tool
description: Returns malformed results, for the host's tests.
version: 0.0.1
entrypoint: hostile
actions:
  - {name: not-json, description: A result cut short., read_only: true}
  - {name: array, description: A JSON array instead of an object., read_only: true}
  - {name: bad-utf8, description: A result with invalid UTF-8., read_only: true}
  - {name: two-value, description: Two JSON objects back to back., read_only: true}
  - {name: ok, description: A good result., read_only: true}
`

var hostileOnce struct {
	sync.Once
	bin string
	err error
}

// installHostile builds the hostile plugin once and installs it in e.
func installHostile(t *testing.T, e *env) {
	t.Helper()
	hostileOnce.Do(func() {
		hostileOnce.bin = filepath.Join(filepath.Dir(hostBin), "hostile-build", "hostile")
		if out, err := goBuild(hostileOnce.bin, "./tests/testdata/hostile"); err != nil {
			hostileOnce.err = fmt.Errorf("build hostile plugin: %v\n%s", err, out)
		}
	})
	must(t, hostileOnce.err)
	dir := filepath.Join(e.plugins, "hostile")
	must(t, os.MkdirAll(dir, 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "tool.yaml"), []byte(hostileManifest), 0o644))
	b, err := os.ReadFile(hostileOnce.bin)
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "hostile"), b, 0o755))
	testplugin.Approve(t, e.plugins, stateHome) // the e2e hosts run with the approval lock on
}

// rpcError returns an answer's JSON-RPC error code, or 0.
func rpcError(m map[string]any) int {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return int(c)
}

// TestHardeningNullParams: `params: null` and `_meta: null` (defect 1)
// killed the host with "assignment to entry in nil map", before and after
// initialize. Every such line is now answered and serving goes on.
func TestHardeningNullParams(t *testing.T) {
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":null}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":null,"name":"capabilities","arguments":null}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":null,"args":null},"_meta":{"progressToken":null}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":null}`,
		`{"jsonrpc":"2.0","id":6,"method":"initialize","params":null}`,
		`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"_meta":null}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":null},"name":"capabilities"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":null}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":null}`,
	}
	for _, initFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("initialized=%v", initFirst), func(t *testing.T) {
			w := newEnv(t).startWire(t)
			if initFirst {
				w.initialize()
			}
			for _, l := range lines {
				w.Exchange(l) // an answer under the request's id, or none for a notification
			}
			if r := w.Call(`{"jsonrpc":"2.0","id":"still-there","method":"ping"}`); r["result"] == nil {
				t.Errorf("ping after the null lines: %v", r)
			}
			if err := w.closeAndWait(); err != nil {
				t.Errorf("host exited with %v, want 0; stderr:\n%s", err, w.stderr.String())
			}
			if strings.Contains(w.stderr.String(), "panic") {
				t.Errorf("the host panicked:\n%s", w.stderr.String())
			}
		})
	}
}

// TestHardeningIDsRoundTrip: the SDK turns every number id into an int64
// (1.5 → 1, 1e30 → -2^63, 2^53+1 → 2^53); the answer must carry the id
// exactly as the client wrote it, on stdio and on HTTP.
func TestHardeningIDsRoundTrip(t *testing.T) {
	ids := []string{`1.5`, `1e30`, `9007199254740993`, `-0`, `1.0`, `12345678901234567890123`, `"1.5"`, `"é\"x"`, `7`}
	call := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"testtool","action":"echo","args":{"text":"id"}}}}`
	}
	t.Run("stdio", func(t *testing.T) {
		w := newEnv(t).startWire(t)
		w.initialize()
		for _, id := range ids {
			got := w.Exchange(call(id)) // exchange waits for this exact id
			var m map[string]any
			must(t, json.Unmarshal([]byte(got[len(got)-1]), &m))
			sc, isErr := structured(t, m)
			if isErr {
				t.Fatalf("id %s: %v", id, sc)
			}
			// The caller's request id is the one the client sent, too.
			caller, _ := sc["caller"].(map[string]any)
			var want string
			if json.Unmarshal([]byte(id), &want) != nil {
				want = id
			}
			if caller["request_id"] != want {
				t.Errorf("id %s: the plugin saw request id %v, want %q", id, caller["request_id"], want)
			}
		}
		must(t, w.closeAndWait())
	})
	t.Run("http", func(t *testing.T) {
		url, _ := startHTTPProc(t, newEnv(t))
		for _, id := range ids {
			_, raw := postRPC(t, url, call(id))
			if got := string(rawField(t, raw, "id")); got != id {
				t.Errorf("sent id %s, the answer carries %s", id, got)
			}
		}
	})
}

// TestHardeningDuplicateIDs: two calls in flight with the same id are both
// answered, under that id (the second was lost at end of input). Decision:
// JSON-RPC asks clients for unique ids, but the host answers both rather
// than lose or refuse one — the client may match the answers by order.
func TestHardeningDuplicateIDs(t *testing.T) {
	w := newEnv(t).startWire(t)
	w.initialize()
	w.Send(runToolLine(5, "testtool", "slow", `{"ms":300}`))
	w.Send(runToolLine(5, "testtool", "echo", `{"text":"second"}`))
	w.stdin.Close() // end of input with both in flight
	var answers []map[string]any
	for line := range w.lines {
		var m map[string]any
		must(t, json.Unmarshal([]byte(line), &m))
		if m["id"] == float64(5) {
			answers = append(answers, m)
		}
	}
	<-w.exited
	if len(answers) != 2 {
		t.Fatalf("got %d answers to the two calls with id 5, want 2: %v", len(answers), answers)
	}
	for _, a := range answers {
		if sc, isErr := structured(t, a); isErr {
			t.Errorf("a call with the duplicate id failed: %v", sc)
		}
	}
}

// TestHardeningProtocolErrors: a call before initialize gets a JSON-RPC
// code (it got 0), a batch is refused with -32600 on both transports (HTTP
// accepted one), and a 15 MB argument answers invalid_args naming the limit
// (it was internal_error "ResourceExhausted").
func TestHardeningProtocolErrors(t *testing.T) {
	big := `{"text":"` + strings.Repeat("x", 15<<20) + `"}`
	batch := `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`
	t.Run("stdio", func(t *testing.T) {
		w := newEnv(t).startWire(t)
		r := w.Call(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		if rpcError(r) != -32600 {
			t.Errorf("tools/list before initialize: got %v, want code -32600", r)
		}
		if r := w.Call(batch); rpcError(r) != -32600 {
			t.Errorf("batch: got %v, want -32600", r)
		}
		w.initialize()
		sc, isErr := structured(t, w.Call(runToolLine(2, "testtool", "echo", big)))
		if !isErr || errorCode(sc) != "invalid_args" || !strings.Contains(fmt.Sprint(sc), "over the host's limit") {
			t.Errorf("15 MB argument: got %v, want invalid_args naming the limit", sc)
		}
		must(t, w.closeAndWait())
	})
	t.Run("http", func(t *testing.T) {
		url, _ := startHTTPProc(t, newEnv(t))
		status, raw := postRPC(t, url, batch)
		if status != http.StatusBadRequest || !bytes.Contains(raw, []byte(`"code":-32600`)) {
			t.Errorf("batch over HTTP: %d %s, want 400 and -32600", status, raw)
		}
		_, raw = postRPC(t, url, runToolLine(3, "testtool", "echo", big))
		var m map[string]any
		must(t, json.Unmarshal(raw, &m))
		if sc, isErr := structured(t, m); !isErr || errorCode(sc) != "invalid_args" {
			t.Errorf("15 MB argument over HTTP: got %v, want invalid_args", sc)
		}
		for _, body := range []string{
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":null}`,
			`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"_meta":null,"name":"capabilities"}}`,
		} {
			status, raw := postRPC(t, url, body)
			if status == 0 || !json.Valid(raw) || len(raw) == 0 {
				t.Errorf("%s over HTTP: status %d, body %q; want a JSON-RPC answer", body, status, raw)
			}
		}
	})
}

// TestHardeningMalformedResults: a plugin's result that is not one JSON
// object in valid UTF-8 (defect 3) was dropped — and then the host never
// exited at end of input. Each is now internal_error naming the plugin.
func TestHardeningMalformedResults(t *testing.T) {
	e := newEnv(t)
	installHostile(t, e)
	w := e.startWire(t)
	w.initialize()
	for i, action := range []string{"not-json", "array", "bad-utf8", "two-value"} {
		sc, isErr := structured(t, w.Call(runToolLine(10+i, "hostile", action, `{}`)))
		msg := fmt.Sprint(sc["error"])
		if !isErr || errorCode(sc) != "internal_error" || !strings.Contains(msg, "plugin hostile returned a malformed result") {
			t.Errorf("%s: got %v, want internal_error naming the plugin", action, sc)
		}
	}
	if sc, isErr := structured(t, w.Call(runToolLine(20, "hostile", "ok", `{}`))); isErr || sc["ok"] != true {
		t.Errorf("a good result after the bad ones: %v", sc)
	}
	// A bad result in flight at end of input is answered, then the host exits.
	w.Send(runToolLine(21, "hostile", "not-json", `{}`))
	if err := w.closeAndWait(); err != nil {
		t.Errorf("host exit: %v", err)
	}
}

// startHTTPProc runs `host serve --http 127.0.0.1:0` in e and returns its
// /mcp URL and the process.
func startHTTPProc(t *testing.T, e *env) (string, *exec.Cmd) {
	t.Helper()
	return serveHTTP(t, e, "127.0.0.1:0", true)
}

// postRPC posts one JSON-RPC body and returns the status and the JSON of
// the answer (the data of an SSE stream's last message event).
func postRPC(t *testing.T, url, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	must(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %.80s: %v", body, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	must(t, err)
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp.StatusCode, bytes.TrimSpace(raw)
	}
	var last []byte
	for _, line := range strings.Split(string(raw), "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(d, `"id"`) {
			last = []byte(d)
		}
	}
	return resp.StatusCode, last
}

// rawField returns one top-level field of a JSON object, as raw JSON.
func rawField(t *testing.T, raw []byte, key string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not a JSON object: %q", raw)
	}
	return m[key]
}

var _ = syscall.SIGTERM
