package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// rawPost POSTs body as it is to url with the headers an MCP client sends
// (legacy era) and extra, and returns the status, headers and body.
func rawPost(t *testing.T, url, body string, extra map[string]string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	must(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// TestOAuthScopeOnParsedCall: the scope check judges the call the SDK
// parsed and the dispatcher runs, so keys that differ only in case from
// the ones the SDK reads ("Name" in params, a top-level "Method") cannot
// dress a run_tool up as something a token with no tool scope may call.
func TestOAuthScopeOnParsedCall(t *testing.T) {
	is := startIssuer(t)
	const aud = "http://127.0.0.1/mcp"
	h := startHost(t, newEnv(t), "--oauth-issuer", is.url, "--oauth-audience", aud)
	hour := time.Now().Add(time.Hour)
	openid := "Bearer " + is.sign("mallory", "openid", aud, hour)
	allowed := "Bearer " + is.sign("ann", "tools:testtool", aud, hour)
	run := `"arguments":{"tool":"testtool","action":"echo","args":{"text":"smuggled-%d"}}`
	tests := []struct {
		name, body, auth string
		want             int
	}{
		{"Name smuggled in params", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_tool_confirmed",` + run + `,"Name":"get_skill"}}`, openid, 403},
		{"top-level Method", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_tool",` + run + `},"Method":"ping"}`, openid, 403},
		{"both", `{"jsonrpc":"2.0","id":3,"Method":"ping","method":"tools/call","params":{"Name":"capabilities","name":"run_tool",` + run + `},"Method":"ping"}`, openid, 403},
		{"Tool smuggled in arguments", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"run_tool","arguments":{"Tool":"get_skill","tool":"testtool","action":"echo","args":{"text":"smuggled-%d"}}}}`, openid, 0},
		{"a token allowed the tool", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"run_tool_confirmed",` + run + `,"Name":"get_skill"}}`, allowed, 200},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := fmt.Sprintf(tt.body, i)
			code, hdr, got := rawPost(t, h.url, body, map[string]string{"Authorization": tt.auth})
			ran := strings.Contains(got, fmt.Sprintf("smuggled-%d", i))
			if tt.want == 0 { // refused one way or another, never run
				if ran {
					t.Fatalf("the tool ran for a token holding only openid: %d %s", code, got)
				}
				return
			}
			if code != tt.want {
				t.Fatalf("got %d %s, want %d", code, got, tt.want)
			}
			if tt.want == 403 {
				if ran {
					t.Fatalf("the tool ran for a token holding only openid: %s", got)
				}
				if c := hdr.Get("WWW-Authenticate"); !strings.Contains(c, `error="insufficient_scope"`) || !strings.Contains(c, `scope="tools:testtool"`) {
					t.Errorf("WWW-Authenticate: got %q, want insufficient_scope naming tools:testtool", c)
				}
			} else if !ran {
				t.Errorf("the allowed call did not run: %s", got)
			}
		})
	}
}

// TestAuditRecordsTokenSubject: a confirmed call over OAuth is audited
// with the token's subject, and the client's own name beside it.
func TestAuditRecordsTokenSubject(t *testing.T) {
	is := startIssuer(t)
	const aud = "http://127.0.0.1/mcp"
	state := t.TempDir()
	h := startHost(t, newEnv(t, "XDG_STATE_HOME="+state), "--oauth-issuer", is.url, "--oauth-audience", aud)
	call := echoCall(true, 1, "audited")
	call.params["name"] = "run_tool_confirmed"
	call.header = map[string]string{"Authorization": "Bearer " + is.sign("ann@example.com", "tools:testtool", aud, time.Now().Add(time.Hour))}
	resp, m, err := call.post(t, http.DefaultClient, h.url)
	must(t, err)
	if resp.StatusCode != 200 || echoed(m, "audited") != nil {
		t.Fatalf("the confirmed call: %d %v", resp.StatusCode, m)
	}
	raw, err := os.ReadFile(filepath.Join(state, "toolhost", "audit.jsonl"))
	must(t, err)
	var e struct {
		Subject, Client, Tool string
	}
	must(t, json.Unmarshal(bytes.TrimSpace(raw), &e))
	if e.Subject != "ann@example.com" || e.Client != "ops-test" || e.Tool != "testtool" {
		t.Errorf("audit entry %s: want subject ann@example.com (the token's sub) and client ops-test (what the client says)", raw)
	}
}

// rssBytes is the resident set of process pid, from /proc.
func rssBytes(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "statm"))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	f := strings.Fields(string(b))
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// TestHTTPBurstMemoryReturns: twelve concurrent 16 MiB POSTs, with the
// token and without it, leave the host's resident memory near where it
// started: bodies are bounded before they are read, read only after the
// token is checked, and not copied for nothing.
func TestHTTPBurstMemoryReturns(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 384 MiB")
	}
	e := newEnv(t, "HOST_HTTP_TOKEN=s3cret-token")
	h := startHost(t, e)
	pid := h.cmd.Process.Pid
	tok := map[string]string{"Authorization": "Bearer s3cret-token"}
	warm := echoCall(false, 1, "warm")
	warm.header = tok
	if _, m, err := warm.post(t, http.DefaultClient, h.url); err != nil || echoed(m, "warm") != nil {
		t.Fatalf("warm-up call: %v %v", err, m)
	}
	base := rssBytes(t, pid)
	big := bytes.Repeat([]byte("x"), 16<<20-200)
	body := append(append([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"testtool","action":"echo","args":{"text":"`), big...), `"}}}}`...)
	var peak int64
	for _, auth := range []string{"Bearer s3cret-token", ""} {
		var wg sync.WaitGroup
		for range 12 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				req, _ := http.NewRequest(http.MethodPost, h.url, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if auth != "" {
					req.Header.Set("Authorization", auth)
				}
				resp, err := http.DefaultClient.Do(req)
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}()
		}
		wg.Wait()
		peak = max(peak, rssBytes(t, pid))
	}
	// The runtime gives freed pages back in the background: allow it a
	// few seconds.
	limit := base + 48<<20
	var after int64
	for range 20 {
		if after = rssBytes(t, pid); after <= limit {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Logf("host RSS: %d MiB before, %d MiB just after the bursts, %d MiB after", base>>20, peak>>20, after>>20)
	if after > limit {
		t.Errorf("host RSS after two bursts of 12 concurrent 16 MiB POSTs: %d MiB, want at most %d MiB (%d MiB before)", after>>20, limit>>20, base>>20)
	}
	after2 := echoCall(false, 2, "after")
	after2.header = tok
	if _, m, err := after2.post(t, http.DefaultClient, h.url); err == nil {
		if err := echoed(m, "after"); err != nil {
			t.Errorf("the host after the bursts: %v", err)
		}
	}
}

// TestHTTPOnlyMCPPathServesMCP: with the token, a POST to any path other
// than /mcp is 404; /mcp answers.
func TestHTTPOnlyMCPPathServesMCP(t *testing.T) {
	e := newEnv(t, "HOST_HTTP_TOKEN=s3cret-token")
	h := startHost(t, e)
	auth := map[string]string{"Authorization": "Bearer s3cret-token"}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"testtool","action":"echo","args":{"text":"path"}}}}`
	for _, p := range []string{"/anything/else", "/", "/mcp/", "/MCP", "/healthz/x"} {
		if code, _, got := rawPost(t, h.base+p, body, auth); code != http.StatusNotFound {
			t.Errorf("POST %s: got %d %s, want 404", p, code, got)
		}
	}
	if code, _, got := rawPost(t, h.url, body, auth); code != 200 || !strings.Contains(got, "path") {
		t.Errorf("POST /mcp: got %d %s, want 200 with the echo", code, got)
	}
}

// TestHTTPReadyzWithoutCredentials: /readyz without credentials says only
// ready or not; with the token it may say more.
func TestHTTPReadyzWithoutCredentials(t *testing.T) {
	e := newEnv(t, "HOST_HTTP_TOKEN=s3cret-token")
	h := startHost(t, e)
	code, body := getText(t, http.DefaultClient, h.base+"/readyz")
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil || code != 200 || m["status"] != "ready" {
		t.Fatalf("/readyz: %d %s, want 200 ready", code, body)
	}
	if len(m) != 1 || strings.Contains(body, "testtool") {
		t.Errorf("/readyz without credentials says more than ready: %s", body)
	}
}

// TestHTTPHeld is what an attack review found holding at the HTTP edge in
// token mode: only the exact bearer token passes, a foreign Origin or
// Host is refused, and the token never reaches the host's logs.
func TestHTTPHeld(t *testing.T) {
	const token = "held-token-0123456789abcdef"
	h := startHost(t, newEnv(t, "HOST_HTTP_TOKEN="+token))
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"testtool","action":"echo","args":{"text":"held"}}}}`
	tests := []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"the token", map[string]string{"Authorization": "Bearer " + token}, 200},
		{"no token", nil, 401},
		{"a wrong token of the same length", map[string]string{"Authorization": "Bearer " + strings.Repeat("x", len(token))}, 401},
		{"a prefix of the token", map[string]string{"Authorization": "Bearer " + token[:len(token)-1]}, 401},
		{"the token and more", map[string]string{"Authorization": "Bearer " + token + "x"}, 401},
		{"the token as Basic", map[string]string{"Authorization": "Basic " + token}, 401},
		{"the token in the query's place", map[string]string{"X-Token": token}, 401},
		{"a foreign Origin", map[string]string{"Authorization": "Bearer " + token, "Origin": "https://evil.example"}, 403},
		{"a foreign Host", map[string]string{"Authorization": "Bearer " + token, "Host": "evil.example"}, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, h.url, strings.NewReader(body))
			must(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			if host, ok := tt.header["Host"]; ok {
				req.Host = host
			}
			resp, err := http.DefaultClient.Do(req)
			must(t, err)
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Fatalf("got %d %s, want %d", resp.StatusCode, got, tt.want)
			}
		})
	}
	if strings.Contains(h.log.String(), token) || strings.Contains(h.log.String(), token[:12]) {
		t.Errorf("the bearer token is in the host's log:\n%s", h.log.String())
	}
}
