package tests

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/toolhost/toolhost/internal/testplugin"
)

var (
	// Both log formats: text (addr=URL) and JSON ("addr":"URL").
	serveAddrLine   = regexp.MustCompile(`serving MCP over Streamable HTTP.*addr"?[=:]"?(https?://[^\s"]+/mcp)`)
	metricsAddrLine = regexp.MustCompile(`serving Prometheus metrics.*addr"?[=:]"?(http://[^\s"]+/metrics)`)
)

// httpHost is a running `host serve --http`.
type httpHost struct {
	cmd     *exec.Cmd
	url     string // its /mcp
	base    string // scheme://host:port
	metrics string // its /metrics, when --metrics was given
	log     *testplugin.LockedBuffer
	exited  chan struct{}
}

// startHost runs `host serve --http 127.0.0.1:0 args...` in e, waits until
// it says where it listens (and where its metrics are), and stops it at the
// end of the test.
func startHost(t *testing.T, e *env, args ...string) *httpHost {
	t.Helper()
	cmd := e.serveCmd(append([]string{"--http", "127.0.0.1:0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	must(t, err)
	must(t, cmd.Start())
	h := &httpHost{cmd: cmd, log: &testplugin.LockedBuffer{}, exited: make(chan struct{})}
	found := make(chan struct{})
	wantMetrics := false
	for _, a := range args {
		wantMetrics = wantMetrics || a == "--metrics"
	}
	go func() {
		defer close(h.exited)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		closed := false
		for sc.Scan() {
			line := sc.Text()
			_, _ = h.log.Write([]byte(line + "\n"))
			if m := serveAddrLine.FindStringSubmatch(line); m != nil && h.url == "" {
				h.url = m[1]
			}
			if m := metricsAddrLine.FindStringSubmatch(line); m != nil && h.metrics == "" {
				h.metrics = m[1]
			}
			if !closed && h.url != "" && (!wantMetrics || h.metrics != "") {
				closed = true
				close(found)
			}
		}
		_ = cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		<-h.exited
	})
	select {
	case <-found:
	case <-h.exited:
		t.Fatalf("host serve exited before serving:\n%s", h.log.String())
	case <-time.After(60 * time.Second): // a hang guard
		t.Fatalf("host serve did not say where it listens:\n%s", h.log.String())
	}
	h.base = strings.TrimSuffix(h.url, "/mcp")
	return h
}

// rpcCall is one JSON-RPC request in either protocol era.
type rpcCall struct {
	modern bool
	id     any
	method string
	params map[string]any
	header map[string]string
}

// modernVersion is the stateless protocol revision.
const modernVersion = "2026-07-28"

// post sends c to url with client and returns the HTTP answer and its
// JSON-RPC message (the last data line of an SSE answer).
func (c rpcCall) post(t testing.TB, client *http.Client, url string) (*http.Response, map[string]any, error) {
	params := map[string]any{}
	for k, v := range c.params {
		params[k] = v
	}
	hdr := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	if c.modern {
		params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": modernVersion,
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "ops-test", "version": "1"}}
		hdr["Mcp-Protocol-Version"] = modernVersion
		hdr["Mcp-Method"] = c.method
		if name, ok := params["name"].(string); ok {
			hdr["Mcp-Name"] = name
		}
	} else {
		hdr["Mcp-Protocol-Version"] = "2025-11-25"
	}
	for k, v := range c.header {
		hdr[k] = v
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": c.method, "params": params})
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp, nil, err
	}
	text := string(raw)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, l := range strings.Split(text, "\n") {
			if d, ok := strings.CutPrefix(l, "data: "); ok && strings.Contains(d, `"id"`) {
				text = d
			}
		}
	}
	var m map[string]any
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal([]byte(text), &m); err != nil {
			return resp, nil, fmt.Errorf("answer is not JSON: %q", raw)
		}
	}
	return resp, m, nil
}

// echoCall is run_tool testtool echo of text.
func echoCall(modern bool, id any, text string) rpcCall {
	return rpcCall{modern: modern, id: id, method: "tools/call", params: map[string]any{"name": "run_tool",
		"arguments": map[string]any{"tool": "testtool", "action": "echo", "args": map[string]any{"text": text}}}}
}

// echoed checks an answer to echoCall(text): a result, not an error, that
// carries text.
func echoed(m map[string]any, text string) error {
	res, ok := m["result"].(map[string]any)
	if !ok {
		return fmt.Errorf("no result: %v", m)
	}
	if res["isError"] == true {
		return fmt.Errorf("a tool error: %v", res)
	}
	raw, _ := json.Marshal(res["structuredContent"])
	if !strings.Contains(string(raw), text) {
		return fmt.Errorf("the result does not carry %q: %s", text, raw)
	}
	return nil
}

// getText GETs url and returns the status and body.
func getText(t *testing.T, client *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := client.Get(url)
	must(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestHTTPOpsProbesMetricsAccessLog: the probes answer without a token, a
// call shows in /metrics (calls by tool/action/code, latency, launches,
// crashes) served on its own listener, and every request gets a JSON access
// log line on stderr.
func TestHTTPOpsProbesMetricsAccessLog(t *testing.T) {
	e := newEnv(t, "HOST_LOG_FORMAT=json")
	h := startHost(t, e, "--metrics", "127.0.0.1:0")
	c := http.DefaultClient
	if code, body := getText(t, c, h.base+"/healthz"); code != 200 || !strings.Contains(body, "alive") {
		t.Errorf("/healthz: %d %s", code, body)
	}
	if code, body := getText(t, c, h.base+"/readyz"); code != 200 || strings.TrimSpace(body) != `{"status":"ready"}` {
		t.Errorf("/readyz: %d %s, want 200 and only the status", code, body)
	}
	for i, modern := range []bool{false, true} {
		_, m, err := echoCall(modern, i+1, "metered").post(t, c, h.url)
		if err == nil {
			err = echoed(m, "metered")
		}
		if err != nil {
			t.Fatalf("run_tool (modern %v): %v", modern, err)
		}
	}
	_, m, err := rpcCall{id: 9, method: "tools/call", params: map[string]any{"name": "run_tool",
		"arguments": map[string]any{"tool": "testtool", "action": "crash"}}}.post(t, c, h.url)
	if err != nil || m["result"] == nil {
		t.Fatalf("crash call: %v %v", err, m)
	}
	if code, _ := getText(t, c, h.base+"/metrics"); code == 200 {
		t.Errorf("/metrics is served on the MCP listener; it belongs on --metrics only")
	}
	_, metrics := getText(t, c, h.metrics)
	for _, want := range []string{
		`toolhost_calls_total{action="echo",code="ok",tool="testtool"} 2`,
		`toolhost_calls_total{action="crash",code="plugin_crashed",tool="testtool"} 1`,
		`toolhost_call_duration_seconds_count{action="echo",tool="testtool"} 2`,
		`toolhost_calls_in_flight 0`,
		`toolhost_plugin_crashes_total{tool="testtool"} 1`,
	} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if !regexp.MustCompile(`toolhost_plugin_launches_total\{tool="testtool"\} [1-9]`).MatchString(metrics) {
		t.Errorf("/metrics counts no launch of testtool")
	}
	var access []map[string]any
	for _, l := range strings.Split(h.log.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["@module"] == "host.access" {
			access = append(access, m)
		}
	}
	if len(access) < 5 {
		t.Fatalf("%d access log lines, want one per request (5):\n%s", len(access), h.log.String())
	}
	if a := access[2]; a["method"] != "POST" || a["path"] != "/mcp" || a["status"] != float64(200) || a["client"] != "127.0.0.1" {
		t.Errorf("access line of the first call: %v", a)
	}
	if a := access[3]; a["rpc"] != "tools/call" {
		t.Errorf("access line of the modern call names no rpc method: %v", a)
	}
}

// TestHTTPReadyzWithoutPlugins: a replica that can run no plugin is alive
// but not ready; /readyz says only that, the host's log says why.
func TestHTTPReadyzWithoutPlugins(t *testing.T) {
	e := newEnv(t)
	e.vars = append(e.vars, "HOST_PLUGIN_PATH="+t.TempDir())
	h := startHost(t, e)
	if code, _ := getText(t, http.DefaultClient, h.base+"/healthz"); code != 200 {
		t.Errorf("/healthz: %d, want 200", code)
	}
	if code, body := getText(t, http.DefaultClient, h.base+"/readyz"); code != 503 || strings.TrimSpace(body) != `{"status":"not ready"}` {
		t.Errorf("/readyz: %d %s, want 503 and only the status", code, body)
	}
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(h.log.String(), "no plugin can run"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) { // the log arrives through a pipe: a hang guard
			t.Fatalf("the host's log does not say why it is not ready:\n%s", h.log.String())
		}
	}
}

// TestHTTPRateLimit: a client over its bucket gets 429 with Retry-After;
// behind a trusted proxy each forwarded client has its own bucket, and a
// client that is not a trusted proxy cannot pick one by sending
// X-Forwarded-For. The rate (one a thousand seconds) refills nothing while
// the test runs, so no timing is assumed.
func TestHTTPRateLimit(t *testing.T) {
	h := startHost(t, newEnv(t), "--rate-limit", "0.001", "--rate-burst", "2", "--trusted-proxy", "127.0.0.2")
	c := http.DefaultClient
	send := func(xff string) *http.Response {
		call := echoCall(false, 1, "limited")
		call.header = map[string]string{"X-Forwarded-For": xff}
		resp, _, err := call.post(t, c, h.url)
		must(t, err)
		return resp
	}
	for i := range 2 {
		if r := send("203.0.113.1"); r.StatusCode != 200 {
			t.Fatalf("request %d within the burst: %d", i, r.StatusCode)
		}
	}
	r := send("203.0.113.99") // 127.0.0.1 is not a trusted proxy: its header is ignored
	if r.StatusCode != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" {
		t.Fatalf("third request: %d Retry-After %q, want 429 with Retry-After", r.StatusCode, r.Header.Get("Retry-After"))
	}
	if code, _ := getText(t, c, h.base+"/healthz"); code != 200 {
		t.Errorf("/healthz of a limited client: %d, want 200 (probes are not limited)", code)
	}
	// Through the trusted proxy (dialled from 127.0.0.2), the client named
	// in X-Forwarded-For has a bucket of its own.
	proxied := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}).DialContext}}
	call := echoCall(false, 2, "proxied")
	call.header = map[string]string{"X-Forwarded-For": "198.51.100.5"}
	for i := range 3 {
		resp, _, err := call.post(t, proxied, h.url)
		must(t, err)
		if want := map[bool]int{true: 200, false: 429}[i < 2]; resp.StatusCode != want {
			t.Fatalf("proxied request %d for 198.51.100.5: %d, want %d", i, resp.StatusCode, want)
		}
	}
}

// TestHTTPTLS: with --tls-cert/--tls-key the host serves HTTPS only.
func TestHTTPTLS(t *testing.T) {
	dir := t.TempDir()
	certPEM, keyPEM := selfSigned(t)
	must(t, os.WriteFile(filepath.Join(dir, "cert.pem"), certPEM, 0o600))
	must(t, os.WriteFile(filepath.Join(dir, "key.pem"), keyPEM, 0o600))
	h := startHost(t, newEnv(t), "--tls-cert", filepath.Join(dir, "cert.pem"), "--tls-key", filepath.Join(dir, "key.pem"))
	if !strings.HasPrefix(h.url, "https://") {
		t.Fatalf("the host says it serves %s, want https", h.url)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	_, m, err := echoCall(true, 1, "over tls").post(t, c, h.url)
	if err == nil {
		err = echoed(m, "over tls")
	}
	if err != nil {
		t.Fatalf("run_tool over HTTPS: %v", err)
	}
	if _, _, err := echoCall(true, 2, "plain").post(t, http.DefaultClient, strings.Replace(h.url, "https://", "http://", 1)); err == nil {
		// Go's server answers plain HTTP on a TLS port with a 400; either way no call runs.
		resp, m, _ := echoCall(true, 2, "plain").post(t, http.DefaultClient, strings.Replace(h.url, "https://", "http://", 1))
		if resp != nil && resp.StatusCode == 200 {
			t.Errorf("plain HTTP was served on the TLS listener: %v", m)
		}
	}
}

// selfSigned makes a certificate for 127.0.0.1 and its key, PEM-encoded.
func selfSigned(t *testing.T) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "toolhost test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	must(t, err)
	kder, err := x509.MarshalECPrivateKey(key)
	must(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

// localIssuer is an OAuth authorization server on loopback: metadata and a
// JWKS with one ES256 key; sign issues access tokens.
type localIssuer struct {
	url  string
	sign func(sub, scope, aud string, exp time.Time) string
}

func startIssuer(t *testing.T) *localIssuer {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", "test-key"))
	must(t, err)
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": srv.URL, "jwks_uri": srv.URL + "/jwks"})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "test-key", Algorithm: "ES256", Use: "sig"}}})
	})
	return &localIssuer{url: srv.URL, sign: func(sub, scope, aud string, exp time.Time) string {
		tok, err := jwt.Signed(signer).Claims(jwt.Claims{Issuer: srv.URL, Subject: sub, Audience: jwt.Audience{aud},
			Expiry: jwt.NewNumericDate(exp), IssuedAt: jwt.NewNumericDate(time.Now())}).Claims(map[string]any{"scope": scope}).Serialize()
		must(t, err)
		return tok
	}}
}

// TestHTTPOAuth: in resource-server mode the host takes JWT access tokens
// from the configured issuer (a local one the test runs), maps their scopes
// to tools, and points clients at its protected-resource metadata.
func TestHTTPOAuth(t *testing.T) {
	is := startIssuer(t)
	const aud = "http://127.0.0.1/mcp"
	h := startHost(t, newEnv(t), "--oauth-issuer", is.url, "--oauth-audience", aud)
	c := http.DefaultClient
	hour := time.Now().Add(time.Hour)
	tests := []struct {
		name, token string
		tool        string
		want        int
		challenge   string
	}{
		{"no token", "", "testtool", 401, `resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"`},
		{"expired", is.sign("ann", "tools:*", aud, time.Now().Add(-time.Hour)), "testtool", 401, `error="invalid_token"`},
		{"another audience", is.sign("ann", "tools:*", "https://elsewhere.example/mcp", hour), "testtool", 401, `error="invalid_token"`},
		{"scope allows the tool", is.sign("ann", "tools:testtool", aud, hour), "testtool", 200, ""},
		{"scope allows another tool", is.sign("ann", "tools:notes", aud, hour), "testtool", 403, `error="insufficient_scope", scope="tools:testtool"`},
		{"tools:*", is.sign("ann", "tools:*", aud, hour), "testtool", 200, ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			call := echoCall(true, i, "authorized")
			if tt.token != "" {
				call.header = map[string]string{"Authorization": "Bearer " + tt.token}
			}
			resp, m, err := call.post(t, c, h.url)
			must(t, err)
			if resp.StatusCode != tt.want {
				t.Fatalf("got %d, want %d", resp.StatusCode, tt.want)
			}
			if tt.want == 200 {
				if err := echoed(m, "authorized"); err != nil {
					t.Fatal(err)
				}
			}
			if got := resp.Header.Get("WWW-Authenticate"); !strings.Contains(got, tt.challenge) {
				t.Errorf("WWW-Authenticate: got %q, want %q in it", got, tt.challenge)
			}
		})
	}
	code, body := getText(t, c, h.base+"/.well-known/oauth-protected-resource")
	var meta struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	if err := json.Unmarshal([]byte(body), &meta); code != 200 || err != nil || meta.Resource != aud ||
		len(meta.AuthorizationServers) != 1 || meta.AuthorizationServers[0] != is.url {
		t.Errorf("protected-resource metadata: %d %s", code, body)
	}
	if code, _ := getText(t, c, h.base+"/healthz"); code != 200 {
		t.Errorf("/healthz needs no token: got %d", code)
	}
}

// TestHTTPOAuthScopesSearch: over OAuth, capabilities answers only the
// tools the token's scopes let it run — a search, the list and a name
// lookup leave the others out, as tools/call refuses them.
func TestHTTPOAuthScopesSearch(t *testing.T) {
	is := startIssuer(t)
	const aud = "http://127.0.0.1/mcp"
	h := startHost(t, newEnv(t), "--oauth-issuer", is.url, "--oauth-audience", aud)
	hour := time.Now().Add(time.Hour)
	capabilities := func(t *testing.T, scope string, args map[string]any) string {
		t.Helper()
		call := rpcCall{modern: true, id: 1, method: "tools/call", params: map[string]any{"name": "capabilities", "arguments": args},
			header: map[string]string{"Authorization": "Bearer " + is.sign("ann", scope, aud, hour)}}
		resp, m, err := call.post(t, http.DefaultClient, h.url)
		must(t, err)
		if resp.StatusCode != 200 {
			t.Fatalf("got %d, want 200", resp.StatusCode)
		}
		raw, _ := json.Marshal(m["result"].(map[string]any)["structuredContent"])
		return string(raw)
	}
	for _, tt := range []struct {
		scope  string
		args   map[string]any
		has    string
		hasNot string
	}{
		{"tools:*", map[string]any{"search": "echo text"}, `"name":"testtool"`, ""},
		{"tools:sheets", map[string]any{"search": "echo text"}, "", `"name":"testtool"`},
		{"tools:sheets", map[string]any{"search": "sheet rows"}, `"name":"sheets"`, `"name":"testtool"`},
		{"tools:sheets", map[string]any{}, `"name":"sheets"`, `"name":"testtool"`},
		{"tools:sheets", map[string]any{"name": "testtool"}, `"unknown_tool"`, `"actions"`},
	} {
		got := capabilities(t, tt.scope, tt.args)
		if tt.has != "" && !strings.Contains(got, tt.has) {
			t.Errorf("%s %v: answer lacks %s: %.400s", tt.scope, tt.args, tt.has, got)
		}
		if tt.hasNot != "" && strings.Contains(got, tt.hasNot) {
			t.Errorf("%s %v: answer has %s, which the scope does not allow: %.400s", tt.scope, tt.args, tt.hasNot, got)
		}
	}
}

// TestHTTPOAuthOffLoopback: OAuth stands in for HOST_HTTP_TOKEN off
// loopback; without either the host refuses to start.
func TestHTTPOAuthOffLoopback(t *testing.T) {
	e := newEnv(t)
	out, err := e.serveCmd("--http", "0.0.0.0:0", "--oauth-issuer", "https://auth.example.com").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--oauth-audience") {
		t.Fatalf("OAuth without an audience: err %v, output:\n%s", err, out)
	}
}

// TestHTTPSizeLimits: a body over 16 MiB gets 413 naming the limit, headers
// over 64 KiB get 431, and the host goes on serving.
func TestHTTPSizeLimits(t *testing.T) {
	h := startHost(t, newEnv(t))
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"testtool","action":"echo","args":{"text":"` +
		strings.Repeat("x", 17<<20) + `"}}}}`
	req, _ := http.NewRequest(http.MethodPost, h.url, strings.NewReader(big))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "16777216 bytes") {
		t.Errorf("a 17 MiB body: %d %s, want 413 naming the limit", resp.StatusCode, body)
	}
	call := echoCall(true, 2, "small")
	call.header = map[string]string{"X-Padding": strings.Repeat("p", 70<<10)}
	resp, _, err = call.post(t, http.DefaultClient, h.url)
	must(t, err)
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("70 KiB of headers: %d, want 431", resp.StatusCode)
	}
	_, m, err := echoCall(true, 3, "after").post(t, http.DefaultClient, h.url)
	if err == nil {
		err = echoed(m, "after")
	}
	if err != nil {
		t.Errorf("the host after the refusals: %v", err)
	}
}
