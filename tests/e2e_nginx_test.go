//go:build unix

package tests

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// nginxConf is the load balancer in front of the replicas: round robin,
// keep-alive to the upstreams, no buffering (SSE answers stream through),
// X-Forwarded-For appended, and a request a replica refused to connect
// (one that is draining) tried on the next. Everything it writes stays in
// its own prefix.
const nginxConf = `daemon off;
worker_processes 1;
pid {{prefix}}/nginx.pid;
error_log {{prefix}}/error.log warn;
events { worker_connections 512; }
http {
	access_log {{prefix}}/access.log;
	client_body_temp_path {{prefix}}/body;
	proxy_temp_path {{prefix}}/proxy;
	fastcgi_temp_path {{prefix}}/fastcgi;
	uwsgi_temp_path {{prefix}}/uwsgi;
	scgi_temp_path {{prefix}}/scgi;
	client_body_buffer_size 1m;
	upstream toolhost {
{{servers}}
		keepalive 32;
	}
	server {
		listen 127.0.0.1:{{port}};
		location / {
			proxy_pass http://toolhost;
			proxy_http_version 1.1;
			proxy_set_header Connection "";
			proxy_set_header Host $host;
			proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
			proxy_buffering off;
			proxy_read_timeout 300s;
			proxy_next_upstream error;
		}
	}
}
`

// nobody is the unprivileged user nginx runs as when the test runs as root.
const nobody = 65534

// startNginx runs nginx (the Debian package scripts/debian-packages-test.txt
// installs) on a free loopback port in front of upstreams (host:port), as
// an unprivileged user, with its pid, logs and temp files in a folder of its
// own; it returns the base URL and stops nginx at the end of the test.
func startNginx(t testing.TB, upstreams ...string) string {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		bin = "/usr/sbin/nginx"
		if _, err := os.Stat(bin); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatal("nginx is not installed: run `make deps` (scripts/debian-packages-test.txt lists it)")
			}
			testplugin.Missing(t, "nginx", "run `make deps` (scripts/debian-packages-test.txt lists it)")
		}
	}
	// Not t.TempDir: its parents are private to root, and nginx runs as
	// nobody.
	prefix, err := os.MkdirTemp("", "toolhost-nginx-")
	must(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(prefix) })
	port := freePort(t)
	var servers strings.Builder
	for _, u := range upstreams {
		fmt.Fprintf(&servers, "\t\tserver %s max_fails=0;\n", u)
	}
	conf := strings.NewReplacer("{{prefix}}", prefix, "{{servers}}", servers.String(), "{{port}}", strconv.Itoa(port)).Replace(nginxConf)
	confPath := filepath.Join(prefix, "nginx.conf")
	must(t, os.WriteFile(confPath, []byte(conf), 0o644))
	cmd := exec.Command(bin, "-p", prefix, "-c", confPath, "-e", filepath.Join(prefix, "error.log"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if os.Geteuid() == 0 {
		must(t, os.Chown(prefix, nobody, nobody))
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: nobody, Gid: nobody}
	}
	out := &testplugin.LockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	must(t, cmd.Start())
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGQUIT) // graceful stop
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for deadline := time.Now().Add(60 * time.Second); ; { // waits for the listener; a hang guard, not a bound
		select {
		case <-exited:
			errLog, _ := os.ReadFile(filepath.Join(prefix, "error.log"))
			t.Fatalf("nginx exited: %s\n%s", out.String(), errLog)
		default:
		}
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			return base
		}
		if time.Now().After(deadline) {
			t.Fatalf("nginx did not listen on %d", port)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// freePort is a loopback port free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// hostPort is a URL's host:port.
func hostPort(u string) string {
	u = strings.TrimPrefix(strings.TrimPrefix(u, "http://"), "https://")
	return strings.SplitN(u, "/", 2)[0]
}

// mcpRequests counts the access log lines of requests to /mcp in a host's
// log.
func mcpRequests(h *httpHost) int {
	n := 0
	for _, l := range strings.Split(h.log.String(), "\n") {
		if strings.Contains(l, "host.access: request") && strings.Contains(l, "path=/mcp") {
			n++
		}
	}
	return n
}

// loadResult is what runLoad measured.
type loadResult struct {
	failed  []string
	elapsed time.Duration
}

// runLoad sends n run_tool echo calls to url, inFlight at a time,
// alternating the modern (2026-07-28) and legacy eras, and checks every
// answer: HTTP 200, the request's own id, the text it sent echoed.
func runLoad(t testing.TB, url string, n, inFlight int) loadResult {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: inFlight}}
	var mu sync.Mutex
	var res loadResult
	res.elapsed = spread(n, inFlight, func(i int) {
		text := fmt.Sprintf("call-%d", i)
		resp, m, err := echoCall(i%2 == 0, int64(i), text).post(t, client, url)
		switch {
		case err != nil:
		case resp.StatusCode != 200:
			err = fmt.Errorf("HTTP %d", resp.StatusCode)
		case m["id"] != float64(i):
			err = fmt.Errorf("answer carries id %v", m["id"])
		default:
			err = echoed(m, text)
		}
		if err != nil {
			mu.Lock()
			res.failed = append(res.failed, fmt.Sprintf("%s (modern %v): %v", text, i%2 == 0, err))
			mu.Unlock()
		}
	})
	return res
}

// TestNginxTwoReplicas: two `host serve --http` replicas behind nginx
// round-robin 1,000 calls, modern and legacy, 8 in flight, every answer
// checked; then SIGTERM to one replica while calls run on both: every call
// in flight is answered, the replica exits 0, and the calls after it go to
// the other.
func TestNginxTwoReplicas(t *testing.T) {
	e := newEnv(t, "HOST_LOG_LEVEL=info")
	a, b := startHost(t, e), startHost(t, e)
	lb := startNginx(t, hostPort(a.url), hostPort(b.url)) + "/mcp"

	calls := 1000
	if s := os.Getenv("HOST_LB_CALLS"); s != "" {
		calls, _ = strconv.Atoi(s)
	}
	r := runLoad(t, lb, calls, 8)
	if len(r.failed) > 0 {
		t.Fatalf("%d of %d calls through nginx failed; first: %s", len(r.failed), calls, r.failed[0])
	}
	// A replica logs a request once its answer is written, so the last
	// lines can reach the test after the client has every answer: wait
	// for them (a hang guard, not a speed bound).
	na, nb := mcpRequests(a), mcpRequests(b)
	for guard := time.Now().Add(30 * time.Second); na+nb < calls && time.Now().Before(guard); na, nb = mcpRequests(a), mcpRequests(b) {
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("%d calls through nginx, 8 in flight: 0 failed in %s (%.0f calls/s); replica A answered %d, B %d",
		calls, r.elapsed.Round(time.Millisecond), float64(calls)/r.elapsed.Seconds(), na, nb)
	if na+nb != calls || na < calls/4 || nb < calls/4 {
		t.Errorf("round robin: replica A answered %d, B %d of %d", na, nb, calls)
	}

	// Drain: slow calls streaming progress on both replicas; once each has
	// said it is working, SIGTERM replica A. Four, as testtool runs two at
	// a time per replica (concurrency: 2) and nginx alternates strictly: a
	// fifth would wait for a slot, and its wait counts in its timeout.
	const slow = 4
	type answer struct {
		i    int
		body string
		err  error
	}
	answers := make(chan answer, slow)
	working := make(chan int, slow)
	for i := range slow {
		go func() {
			body, err := streamSlowCall(lb, i, working)
			answers <- answer{i, body, err}
		}()
	}
	for range slow {
		select {
		case <-working:
		case a := <-answers:
			t.Fatalf("slow call %d answered before it said it was working: %v %s", a.i, a.err, a.body)
		case <-time.After(120 * time.Second): // a hang guard
			t.Fatal("the slow calls did not all start")
		}
	}
	onA := mcpRequests(a)
	must(t, a.cmd.Process.Signal(syscall.SIGTERM))
	for range slow {
		select {
		case ans := <-answers:
			if ans.err != nil || !strings.Contains(ans.body, `"slept_ms":3000`) {
				t.Errorf("slow call %d during the drain: %v %s", ans.i, ans.err, ans.body)
			}
		case <-time.After(120 * time.Second): // a hang guard
			t.Fatal("a call in flight was never answered after SIGTERM")
		}
	}
	select {
	case <-a.exited:
	case <-time.After(60 * time.Second): // a hang guard
		t.Fatal("replica A did not exit after draining")
	}
	if code := a.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("replica A exited %d after draining, want 0:\n%s", code, lastLines(a.log.String(), 20))
	}
	t.Logf("SIGTERM to replica A with %d slow calls in flight through nginx (%d of them on A): all answered", slow, mcpRequests(a)-onA)
	if r := runLoad(t, lb, 50, 8); len(r.failed) > 0 {
		t.Errorf("after replica A left, %d of 50 calls failed; first: %s", len(r.failed), r.failed[0])
	}
}

// streamSlowCall makes a legacy run_tool testtool slow (3s) call with a
// progress token, says on working when the first progress arrives, and
// returns the final answer's data line.
func streamSlowCall(url string, i int, working chan<- int) (string, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1000 + i, "method": "tools/call", "params": map[string]any{
		"_meta": map[string]any{"progressToken": fmt.Sprintf("p%d", i)}, "name": "run_tool",
		"arguments": map[string]any{"tool": "testtool", "action": "slow", "args": map[string]any{"ms": 3000}}}})
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	said := false
	for sc.Scan() {
		d, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if strings.Contains(d, "notifications/progress") {
			if !said {
				said = true
				working <- i
			}
			continue
		}
		if !said {
			working <- i // answered without progress: the caller reports it
		}
		return d, nil
	}
	return "", fmt.Errorf("the stream ended without an answer (HTTP %d): %v", resp.StatusCode, sc.Err())
}

// TestNginxThroughput (make bench-lb; HOST_BENCH_LB=1) reports calls a
// second through nginx to one replica and to two, and straight to one
// replica, 8 in flight, in one run. On one machine the replicas share its
// cores, so two replicas show what nginx and the extra process cost more
// than what scaling out gains; the ratio is the figure to watch.
func TestNginxThroughput(t *testing.T) {
	if os.Getenv("HOST_BENCH_LB") == "" {
		t.Skip("a benchmark: make bench-lb (HOST_BENCH_LB=1)")
	}
	calls := 4000
	if s := os.Getenv("HOST_LB_CALLS"); s != "" {
		calls, _ = strconv.Atoi(s)
	}
	e := newEnv(t, "HOST_LOG_LEVEL=info") // info: startHost reads where it listens from the log
	a, b := startHost(t, e), startHost(t, e)
	one := startNginx(t, hostPort(a.url)) + "/mcp"
	two := startNginx(t, hostPort(a.url), hostPort(b.url)) + "/mcp"
	runLoad(t, two, 200, 8) // warm both replicas' plugins
	rate := func(name, url string) float64 {
		r := runLoad(t, url, calls, 8)
		if len(r.failed) > 0 {
			t.Fatalf("%s: %d failed; first: %s", name, len(r.failed), r.failed[0])
		}
		return float64(calls) / r.elapsed.Seconds()
	}
	direct := rate("direct", a.url)
	r1 := rate("nginx, one replica", one)
	r2 := rate("nginx, two replicas", two)
	fmt.Printf("lb throughput, %d calls (run_tool echo, modern and legacy), 8 in flight, %d cores:\n", calls, numCPU())
	fmt.Printf("  direct to one replica   %7.0f calls/s  (baseline)\n", direct)
	fmt.Printf("  nginx, one replica      %7.0f calls/s  x%.2f\n", r1, r1/direct)
	fmt.Printf("  nginx, two replicas     %7.0f calls/s  x%.2f  (x%.2f one replica through nginx)\n", r2, r2/direct, r2/r1)
}

func numCPU() int { return runtime.NumCPU() }
