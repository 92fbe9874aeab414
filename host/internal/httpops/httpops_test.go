package httpops

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestLimiterTokenBucket(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	l := NewLimiter(2, 3, clk.now) // 2 a second, bursts of 3
	steps := []struct {
		advance  time.Duration
		key      string
		want     bool
		wantWait time.Duration
	}{
		{0, "a", true, 0},
		{0, "a", true, 0},
		{0, "a", true, 0},
		{0, "a", false, 500 * time.Millisecond}, // the burst is spent: one token every 500ms
		{0, "b", true, 0},                       // another client has its own bucket
		{250 * time.Millisecond, "a", false, 250 * time.Millisecond},
		{250 * time.Millisecond, "a", true, 0},
		{0, "a", false, 500 * time.Millisecond},
		{10 * time.Second, "a", true, 0}, // full again, never beyond the burst
		{0, "a", true, 0},
		{0, "a", true, 0},
		{0, "a", false, 500 * time.Millisecond},
	}
	for i, s := range steps {
		clk.add(s.advance)
		ok, wait := l.Allow(s.key)
		if ok != s.want || wait != s.wantWait {
			t.Fatalf("step %d (%s after %s): got %v wait %s, want %v wait %s", i, s.key, s.advance, ok, wait, s.want, s.wantWait)
		}
	}
	clk.add(2 * time.Minute)
	l.Allow("c")
	if got := l.Clients(); got != 1 {
		t.Errorf("after two idle minutes the full buckets are forgotten: %d clients remembered, want 1 (c)", got)
	}
}

func TestClientAddr(t *testing.T) {
	proxies, err := ParseProxies([]string{"10.0.0.0/8", "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, peer, xff, want string
		proxies               *Proxies
	}{
		{"no proxy configured: the peer, whatever the header says", "10.1.2.3:5000", "203.0.113.9", "10.1.2.3", nil},
		{"untrusted peer: the peer", "198.51.100.7:5000", "203.0.113.9", "198.51.100.7", proxies},
		{"trusted peer: the client it names", "127.0.0.1:5000", "203.0.113.9", "203.0.113.9", proxies},
		{"two trusted hops: the first untrusted from the right", "10.0.0.2:5000", "203.0.113.9, 10.0.0.1", "203.0.113.9", proxies},
		{"a forged left part is ignored", "127.0.0.1:5000", "1.1.1.1, 203.0.113.9", "203.0.113.9", proxies},
		{"a garbled hop stops the walk", "127.0.0.1:5000", "203.0.113.9, garbage", "127.0.0.1", proxies},
		{"trusted peer, no header: the peer", "127.0.0.1:5000", "", "127.0.0.1", proxies},
		{"IPv6 peer", "[2001:db8::1]:5000", "203.0.113.9", "2001:db8::1", proxies},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			r.RemoteAddr = tt.peer
			if tt.xff != "" {
				r.Header.Set("X-Forwarded-For", tt.xff)
			}
			if got := tt.proxies.ClientAddr(r); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
	if _, err := ParseProxies([]string{"10.0.0.0/33"}); err == nil || !strings.Contains(err.Error(), "10.0.0.0/33") {
		t.Errorf("a bad prefix: got %v, want an error naming it", err)
	}
}

// okHandler stands in for the MCP endpoint.
var okHandler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("mcp")) })

func TestHandlerRateLimit(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	proxies, _ := ParseProxies([]string{"127.0.0.1"})
	var statuses []int
	h := Handler(okHandler, Options{Limiter: NewLimiter(0.5, 1, clk.now), Proxies: proxies,
		Observe: func(s int) { statuses = append(statuses, s) }})
	do := func(path, peer, xff string) *httptest.ResponseRecorder {
		method := http.MethodPost
		if path == "/healthz" {
			method = http.MethodGet
		}
		r := httptest.NewRequest(method, path, strings.NewReader(`{}`))
		r.RemoteAddr = peer
		r.Header.Set("X-Forwarded-For", xff)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	if w := do("/mcp", "127.0.0.1:1", "203.0.113.1"); w.Code != 200 {
		t.Fatalf("first request: %d", w.Code)
	}
	w := do("/mcp", "127.0.0.1:2", "203.0.113.1")
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "2" {
		t.Fatalf("second request of the same client behind the proxy: got %d Retry-After %q, want 429 and 2", w.Code, w.Header().Get("Retry-After"))
	}
	if w := do("/mcp", "127.0.0.1:3", "203.0.113.2"); w.Code != 200 {
		t.Errorf("another client behind the same proxy: got %d, want 200", w.Code)
	}
	if w := do("/healthz", "127.0.0.1:4", "203.0.113.1"); w.Code != 200 {
		t.Errorf("probes are not limited: got %d", w.Code)
	}
	clk.add(2 * time.Second)
	if w := do("/mcp", "127.0.0.1:5", "203.0.113.1"); w.Code != 200 {
		t.Errorf("after Retry-After: got %d, want 200", w.Code)
	}
	if want := []int{200, 429, 200, 200, 200}; !equal(statuses, want) {
		t.Errorf("observed statuses %v, want %v", statuses, want)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestProbes: /readyz answers ready or not ready and nothing more — no
// tools, no reason — since it needs no credentials; the reason goes to the
// log when it changes.
func TestProbes(t *testing.T) {
	var readyErr error
	var logged bytes.Buffer
	h := Handler(okHandler, Options{Ready: func() (any, error) {
		return map[string]any{"tools_ready": 3, "not_ready": map[string]string{"secret-tool": "changed files: ~tool.yaml"}}, readyErr
	}, Logger: hclog.New(&hclog.LoggerOptions{Output: &logged})})
	get := func(path string) (int, string) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		return w.Code, strings.TrimSpace(w.Body.String())
	}
	if code, body := get("/healthz"); code != 200 || body != `{"status":"alive"}` {
		t.Errorf("/healthz: %d %s", code, body)
	}
	if code, body := get("/readyz"); code != 200 || body != `{"status":"ready"}` {
		t.Errorf("/readyz ready: %d %s, want 200 and only the status", code, body)
	}
	readyErr = errors.New("plugins cannot be launched: their run copies go under /home/ann/.cache")
	if code, body := get("/readyz"); code != 503 || body != `{"status":"not ready"}` {
		t.Errorf("/readyz not ready: %d %s, want 503 and only the status", code, body)
	}
	if !strings.Contains(logged.String(), "/home/ann/.cache") {
		t.Errorf("the reason for not ready is not logged: %q", logged.String())
	}
	if code, _ := get("/healthz"); code != 200 {
		t.Errorf("/healthz while not ready: %d, want 200 (alive, just not ready)", code)
	}
}

func TestAccessLog(t *testing.T) {
	var buf bytes.Buffer
	log := hclog.New(&hclog.LoggerOptions{Name: "access", Output: &buf, JSONFormat: true})
	h := Handler(okHandler, Options{AccessLog: log})
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{}`))
	r.RemoteAddr = "192.0.2.4:999"
	r.Header.Set("Mcp-Method", "tools/call")
	h.ServeHTTP(httptest.NewRecorder(), r)
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("the access log line is not JSON: %q", buf.String())
	}
	for k, want := range map[string]any{"method": "POST", "path": "/mcp", "status": float64(200), "bytes": float64(3),
		"client": "192.0.2.4", "rpc": "tools/call", "@module": "access"} {
		if line[k] != want {
			t.Errorf("%s: got %v, want %v (line %v)", k, line[k], want, line)
		}
	}
	if _, ok := line["duration_ms"].(float64); !ok {
		t.Errorf("no duration_ms in %v", line)
	}
}

// countingBody counts the bytes read from it.
type countingBody struct {
	r    io.Reader
	read *atomic.Int64
}

func (c countingBody) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read.Add(int64(n))
	return n, err
}
func (c countingBody) Close() error { return nil }

// TestBodyBoundedAndReadAfterAuthentication: a body declared over the
// limit is refused before a byte of it is read; one that grows past the
// limit is cut off there; a request authentication refuses is answered
// with its body unread.
func TestBodyBoundedAndReadAfterAuthentication(t *testing.T) {
	var reached atomic.Int64
	readAll := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		if _, err := io.ReadAll(r.Body); err != nil {
			var mbe *http.MaxBytesError
			if !errors.As(err, &mbe) {
				t.Errorf("reading past the limit: %v, want *http.MaxBytesError", err)
			}
			http.Error(w, "over the limit", http.StatusRequestEntityTooLarge)
		}
	})
	deny := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer ok" {
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	h := Handler(readAll, Options{MaxBodyBytes: 1 << 20, Authenticate: deny})
	tests := []struct {
		name     string
		size     int64
		declared bool
		auth     string
		want     int
		maxRead  int64
	}{
		{"declared over the limit", 4 << 20, true, "Bearer ok", 413, 0},
		{"declared over the limit, no token", 4 << 20, true, "", 413, 0},
		{"chunked over the limit", 4 << 20, false, "Bearer ok", 413, 1<<20 + 1},
		{"within the limit", 1 << 20, true, "Bearer ok", 200, 1 << 20},
		{"no token", 1 << 20, true, "", 401, 0},
		{"no token, chunked", 1 << 20, false, "", 401, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var read atomic.Int64
			r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			r.Body = countingBody{r: io.LimitReader(zeros{}, tt.size), read: &read}
			r.ContentLength = -1
			if tt.declared {
				r.ContentLength = tt.size
			}
			if tt.auth != "" {
				r.Header.Set("Authorization", tt.auth)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.want {
				t.Errorf("got %d %s, want %d", w.Code, w.Body, tt.want)
			}
			if got := read.Load(); got > tt.maxRead {
				t.Errorf("%d bytes of the body were read, want at most %d", got, tt.maxRead)
			}
			if tt.want == 413 && !strings.Contains(w.Body.String(), "limit") {
				t.Errorf("a 413 that does not name the limit: %s", w.Body)
			}
		})
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestOnlyMCPPathServesMCP: the MCP handler answers its own path only;
// any other path is 404, whatever the method.
func TestOnlyMCPPathServesMCP(t *testing.T) {
	h := Handler(okHandler, Options{})
	for _, tt := range []struct {
		method, path string
		want         int
	}{
		{http.MethodPost, "/mcp", 200},
		{http.MethodPost, "/anything/else", 404},
		{http.MethodPost, "/", 404},
		{http.MethodPost, "/mcp/", 404},
		{http.MethodPost, "/mcp/x", 404},
		{http.MethodPost, "/MCP", 404},
		{http.MethodGet, "/x", 404},
		{http.MethodPost, "/healthz", 405},
	} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(tt.method, tt.path, strings.NewReader(`{}`)))
		if w.Code != tt.want {
			t.Errorf("%s %s: got %d, want %d", tt.method, tt.path, w.Code, tt.want)
		}
	}
}

// TestServerTimeouts: every listener's server closes a connection that
// does not finish its headers, and one kept alive with nothing to do.
func TestServerTimeouts(t *testing.T) {
	if s := NewServer(okHandler, DefaultTimeouts); s.ReadHeaderTimeout <= 0 || s.IdleTimeout <= 0 {
		t.Fatalf("default server: read-header timeout %s, idle timeout %s, want both set", s.ReadHeaderTimeout, s.IdleTimeout)
	}
	srv := NewServer(okHandler, Timeouts{ReadHeader: 200 * time.Millisecond, Idle: 200 * time.Millisecond})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	closedWithin := func(c net.Conn) bool {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second)) // a hang guard
		_, err := io.Copy(io.Discard, c)
		return err == nil // EOF: the server closed it; a timeout is an error
	}
	slow, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	_, _ = slow.Write([]byte("POST /mcp HTTP/1.1\r\nHost: x\r\n"))
	if !closedWithin(slow) {
		t.Error("a connection that never finished its headers was not closed")
	}
	idle, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	_, _ = idle.Write([]byte("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"))
	if !closedWithin(idle) {
		t.Error("a kept-alive connection with nothing to do was not closed")
	}
}

// TestAccessLogNeverHasToken: the access log names the request, never
// its credentials.
func TestAccessLogNeverHasToken(t *testing.T) {
	var buf bytes.Buffer
	h := Handler(okHandler, Options{AccessLog: hclog.New(&hclog.LoggerOptions{Output: &buf, JSONFormat: true})})
	r := httptest.NewRequest(http.MethodPost, "/mcp?access_token=q-secret-token", strings.NewReader(`{}`))
	r.Header.Set("Authorization", "Bearer h-secret-token")
	r.Header.Set("Cookie", "session=c-secret-token")
	h.ServeHTTP(httptest.NewRecorder(), r)
	if strings.Contains(buf.String(), "secret-token") {
		t.Errorf("a credential is in the access log: %s", buf.String())
	}
}
