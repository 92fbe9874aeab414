package tests

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// BenchmarkHostSpeed measures, in one run, what issue 10's speed goals
// compare (p50 of each, on the test plugin's echo action), and prints the
// four ratios with the SDK's own floor beside them:
//
//  1. warm run_tool over stdio against an MCP ping (the go-sdk floor, not
//     ours) plus a raw go-plugin call: goal (run_tool − ping) ≤ 2.0 × raw
//     (the same through the lean client is printed beside: the go-sdk
//     client decodes run_tool's answer at more cost than ping's);
//  2. exec-per-call (the plugin's CLI mode) over warm run_tool: goal ≥ 12×;
//  3. throughput with 8 calls in flight through the host over the raw
//     client's with 8 in flight on one connection: goal ≥ 0.4×. The host's
//     client there is a lean one (bench_lean_test.go), as the raw side's
//     is a lean gRPC client: the go-sdk client alone costs more CPU per
//     call than the whole raw path, so with it the ratio would measure the
//     client. Its figure is printed beside, labelled, and so is the
//     floor under it: a bare go-sdk server with one trivial tool
//     (tests/bench/sdkfloor) under the same lean client, with the best
//     ratio any host on the SDK could reach given its CPU per call;
//  4. start to the first answer with 50 plugins installed over the same
//     with one: goal ≤ 1.5× (warm: with the hash cache `host approve`
//     filled; the start with the cache deleted is printed too).
//
// The raw client and the host are measured interleaved — one call of each
// in turn for the p50s, rounds of 8 in flight in turn for the throughputs —
// so both see the same load and the ratios hold on a busy machine.
//
// Speed goals are checked here and only printed: a unit test never asserts
// timing. HOST_BENCH_CALLS sets the calls per measurement (default 2000);
// HOST_BENCH_FLIGHT_CALLS the calls of each side with 8 in flight (default
// ten times that, in 10 rounds): throughput is a sustained figure, and
// rounds of 200 calls lasted 20 ms, short enough for waking three
// processes after another side's round to weigh in them (the ratio moved
// 0.65–0.79 between idle runs at 200 a round).
//
//	go test ./tests -run '^$' -bench HostSpeed -benchtime 1x
func BenchmarkHostSpeed(b *testing.B) {
	calls := 2000
	if n, err := strconv.Atoi(os.Getenv("HOST_BENCH_CALLS")); err == nil && n > 0 {
		calls = n
	}
	flightCalls := 10 * calls
	if n, err := strconv.Atoi(os.Getenv("HOST_BENCH_FLIGHT_CALLS")); err == nil && n > 0 {
		flightCalls = n
	}
	// The installed binary: CLI mode reads the manifest beside it.
	bin := filepath.Join(testplugin.Install(b, b.TempDir(), "1"), "testtool")
	for range b.N {
		raw, rawPid, closeRaw := rawClient(b, bin)
		host := startHostSession(b)
		lean := startLeanClient(b)
		sides := []*benchSide{{name: "raw", call: raw, pid: rawPid}, {name: "run_tool", call: host.runTool, pid: host.cmd.Process.Pid},
			{name: "ping", call: host.ping},
			{name: "lean run_tool", call: func() { lean.pipelined(b, 1, 1) }}, {name: "lean ping", call: func() { lean.ping(b) }}}
		leanSide := &benchSide{name: "lean run_tool", pid: lean.cmd.Process.Pid, flight: func(n int) { lean.pipelined(b, n, 8) }}
		floor := startSDKFloor(b)
		floorSide := &benchSide{name: "sdk floor", pid: floor.cmd.Process.Pid, flight: func(n int) { floor.pipelined(b, n, 8) }}
		for range calls / 10 { // warm: the plugins are launched and kept
			for _, s := range sides {
				s.call()
			}
		}
		lean.pipelined(b, calls/10, 8)
		floor.pipelined(b, calls/10, 8)
		// Each in turn, in a new order each round (seeded: the same orders
		// every run). Rotating one order instead kept each side behind the
		// same one (run_tool always right after a raw call, the SDK's
		// run_tool after the other host's ping), and what one side leaves
		// warm or busy favoured the next.
		order := rand.New(rand.NewPCG(1, 2))
		for range calls {
			for _, j := range order.Perm(len(sides)) {
				s := sides[j]
				s.times = append(s.times, timed(1, s.call)...)
			}
		}
		const rounds = 10
		flight := []*benchSide{sides[0], leanSide, sides[1], floorSide}
		for range rounds {
			for _, s := range flight {
				client, server := selfCPU(), treeCPU(s.pid)
				s.busy += timedOnce(func() {
					if s.flight != nil {
						s.flight(flightCalls / rounds)
					} else {
						inFlight(flightCalls/rounds, 8, s.call)
					}
				})
				s.clientCPU += selfCPU() - client
				s.serverCPU += treeCPU(s.pid) - server
			}
		}
		closeRaw()
		lean.close(b)
		floor.close(b)
		host.close(b)
		execP50 := benchExec(b, bin, max(calls/40, 20))
		start1, start50 := benchStarts(b, bin)

		rawP50, runP50, pingP50 := p50(sides[0].times), p50(sides[1].times), p50(sides[2].times)
		rate := func(s *benchSide) float64 { return float64(flightCalls/rounds*rounds) / s.busy.Seconds() }
		fmt.Printf("host speed (p50, %d calls each, raw and host interleaved; the machine's load moves every figure, the ratios less)\n", calls)
		fmt.Printf("  sdk floor: MCP ping %v; raw go-plugin call %v; warm run_tool %v; exec-per-call %v\n",
			pingP50, rawP50, runP50, execP50)
		report := func(name string, ratio float64, goal string, ok bool) {
			verdict := "met"
			if !ok {
				verdict = "NOT MET"
			}
			fmt.Printf("  %-52s %7.2f  (goal %s: %s)\n", name, ratio, goal, verdict)
		}
		r1 := float64(runP50-pingP50) / float64(rawP50)
		report("(run_tool - ping) / raw call", r1, "<= 2.00", r1 <= 2.0)
		r2 := float64(execP50) / float64(runP50)
		report("exec-per-call / run_tool", r2, ">= 12", r2 >= 12)
		r3 := rate(leanSide) / rate(sides[0])
		report(fmt.Sprintf("8 in flight (%d calls): host %.0f/s over raw %.0f/s", flightCalls, rate(leanSide), rate(sides[0])), r3, ">= 0.40", r3 >= 0.4)
		fmt.Printf("  8 in flight through the go-sdk MCP client instead of the lean one (not judged: the client alone costs more CPU than the raw path): %.0f/s = %.2f of raw\n",
			rate(sides[1]), rate(sides[1])/rate(sides[0]))
		r4 := float64(start50.warm) / float64(start1.warm)
		report(fmt.Sprintf("start, 50 plugins %v over 1 plugin %v", start50.warm, start1.warm), r4, "<= 1.50", r4 <= 1.5)
		fmt.Printf("  start with the hash and manifest caches deleted: 50 plugins %v, 1 plugin %v = %.2f\n", start50.cold, start1.cold, float64(start50.cold)/float64(start1.cold))
		fmt.Printf("  CPU per MCP call, host and its plugin (ping or run_tool, start-up included): %v\n", host.cpuPerCall)
		leanRun, leanPing := p50(sides[3].times), p50(sides[4].times)
		fmt.Printf("  through the lean MCP client (not judged: the go-sdk client's decode of run_tool's larger answer is in the judged figure), same run: ping %v; run_tool %v; (run_tool - ping) / raw %.2f\n",
			leanPing, leanRun, float64(leanRun-leanPing)/float64(rawP50))
		if n := time.Duration(flightCalls / rounds * rounds); sides[0].clientCPU > 0 {
			// On 2 cores the throughput is bounded by the CPU per call of
			// every process involved: the client, then the host and its
			// plugin (or, raw, the plugin alone).
			perCall := func(s *benchSide) (client, server time.Duration) { return s.clientCPU / n, s.serverCPU / n }
			rc, rs := perCall(sides[0])
			lc, ls := perCall(leanSide)
			hc, hs := perCall(sides[1])
			fmt.Printf("  CPU per call, 8 in flight: raw %v (client %v + plugin %v); host %v (lean MCP client %v + host and plugin %v); with the go-sdk client %v (%v + %v)\n",
				rc+rs, rc, rs, lc+ls, lc, ls, hc+hs, hc, hs)
			fmt.Printf("  so on saturated cores 8 in flight can reach at most %.2f of raw through the host (%.2f with the go-sdk client)\n",
				float64(rc+rs)/float64(lc+ls), float64(rc+rs)/float64(hc+hs))
			// The SDK's own floor: a bare go-sdk server with one trivial
			// tool (tests/bench/sdkfloor) under the same lean client. No
			// host on the SDK can cost less than it plus the raw call.
			fc, fs := perCall(floorSide)
			fmt.Printf("  sdk floor, 8 in flight: bare go-sdk server %.0f/s = %.2f of raw; CPU per call %v (lean client %v + server %v); host and plugin over it %v\n",
				rate(floorSide), rate(floorSide)/rate(sides[0]), fc+fs, fc, fs, ls-fs)
			fmt.Printf("  so a host on the SDK can reach at most %.2f of raw (CPU per call: floor %v + raw %v)\n",
				float64(rc+rs)/float64(fc+fs+rc+rs), fc+fs, rc+rs)
		}
		b.ReportMetric(r1, "own/raw")
		b.ReportMetric(r2, "exec/run_tool")
		b.ReportMetric(r3, "8inflight/raw")
		b.ReportMetric(r4, "start50/start1")
		b.ReportMetric(float64(host.cpuPerCall.Nanoseconds()), "host+plugin-cpu-ns/call")
	}
}

// benchSide is one of the things BenchmarkHostSpeed compares: its call,
// each timed call, and the time its rounds of calls in flight took.
type benchSide struct {
	name string
	call func()
	// flight, when set, makes n calls with 8 in flight (else call is run
	// by 8 goroutines).
	flight func(n int)
	times  []time.Duration
	busy   time.Duration
	// pid is the server process (host, or the plugin for raw) whose CPU
	// (with its children's) the rounds in flight count in serverCPU; the
	// test process's own is clientCPU.
	pid                  int
	clientCPU, serverCPU time.Duration
}

// p50 is the median of ds.
func p50(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// timed runs fn n times and returns each run's duration.
func timed(n int, fn func()) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		t := time.Now()
		fn()
		out[i] = time.Since(t)
	}
	return out
}

// timedOnce returns how long fn took.
func timedOnce(fn func()) time.Duration { return timed(1, fn)[0] }

// inFlight runs n calls of fn with inflight of them at once.
func inFlight(n, inflight int, fn func()) {
	var wg sync.WaitGroup
	next := make(chan struct{}, n)
	for range n {
		next <- struct{}{}
	}
	close(next)
	for range inflight {
		wg.Go(func() {
			for range next {
				fn()
			}
		})
	}
	wg.Wait()
}

// rawClient is a go-plugin client of the plugin binary, no host between:
// its echo call, the plugin's process id, and the function that ends it.
func rawClient(b *testing.B, bin string) (call func(), pid int, stop func()) {
	c, pid, stop := testplugin.Raw(b, bin)
	req := &wire.CallRequest{Action: "echo", ArgsJson: []byte(`{"text":"bench"}`), Caller: &wire.Caller{ClientName: "bench"}}
	return func() {
		stream, err := c.Call(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		for {
			ev, err := stream.Recv()
			if errors.Is(err, io.EOF) {
				b.Fatal("raw call: no result")
			}
			if err != nil {
				b.Fatal(err)
			}
			if r := ev.GetResult(); r != nil {
				if r.GetError() != nil {
					b.Fatal(r.GetError())
				}
				return
			}
		}
	}, pid, stop
}

// benchExec times one exec of the plugin in CLI mode per call.
func benchExec(b *testing.B, bin string, n int) time.Duration {
	call := func() {
		if out, err := exec.Command(bin, "echo", "--text", "bench").CombinedOutput(); err != nil {
			b.Fatalf("exec-per-call: %v: %s", err, out)
		}
	}
	call()
	return p50(timed(n, call))
}

// hostSession is one `host serve` over stdio with the go-sdk client: its
// MCP ping and warm run_tool, counted, and once closed the CPU time of the
// host and of the plugin it ran and reaped (the system counts a reaped
// child's time in its parent's), start-up included, per MCP call answered:
// it moves far less with the machine's load than wall times.
type hostSession struct {
	ping, runTool func()
	calls         atomic.Int64
	cs            *mcp.ClientSession
	cmd           *exec.Cmd
	cpuPerCall    time.Duration
}

// startHostSession starts `host serve` with the test plugin installed with
// concurrency 8, so the manifest does not bound 8 calls in flight.
func startHostSession(b *testing.B) *hostSession {
	e := benchEnv(b)
	profile := "serve.pprof"
	if dir := os.Getenv("HOST_BENCH_PROFILE"); dir != "" { // a CPU profile of the host serving
		e.vars = append(e.vars, "HOST_CPUPROFILE="+filepath.Join(dir, profile))
	}
	if dir := os.Getenv("HOST_BENCH_TRACE"); dir != "" { // an execution trace, for go tool trace
		e.vars = append(e.vars, "HOST_TRACE="+filepath.Join(dir, strings.TrimSuffix(profile, ".pprof")+".trace"))
	}
	manifest := filepath.Join(e.plugins, "testtool", "tool.yaml")
	must(b, os.WriteFile(manifest, []byte(strings.Replace(testplugin.Manifest, "concurrency: 2", "concurrency: 8", 1)), 0o644))
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	h := &hostSession{cmd: e.serveCmd()}
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: h.cmd},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	h.cs = cs
	params := &mcp.CallToolParams{Name: "run_tool", Arguments: map[string]any{"tool": "testtool", "action": "echo", "args": map[string]any{"text": "bench"}}}
	h.runTool = func() {
		h.calls.Add(1)
		res, err := cs.CallTool(context.Background(), params)
		if err != nil || res.IsError {
			b.Fatalf("run_tool: %v %v", err, res)
		}
	}
	h.ping = func() {
		h.calls.Add(1)
		if err := cs.Ping(context.Background(), nil); err != nil {
			b.Fatalf("ping: %v", err)
		}
	}
	return h
}

// close ends the session (stdin closes); the SDK's transport waits for the
// host, whose CPU time is then known.
func (h *hostSession) close(b *testing.B) {
	if err := h.cs.Close(); err != nil {
		b.Logf("closing the host session: %v", err)
		return
	}
	if h.cmd.ProcessState != nil && h.calls.Load() > 0 {
		h.cpuPerCall = (h.cmd.ProcessState.UserTime() + h.cmd.ProcessState.SystemTime()) / time.Duration(h.calls.Load())
	}
}

// startFigures are the p50 starts with the hash and manifest caches as the
// approval left them (warm) and with both deleted (cold).
type startFigures struct {
	warm, cold time.Duration
}

// benchStarts times `host serve` from exec to the answer of its first
// capabilities call with one plugin installed and with 50 (copies of the
// test plugin, each its own folder and name), approved with `host
// approve`: the p50 of seven starts that find the hash and manifest caches
// the approval filled, then of three with both cache files deleted before
// each. The two installations start in turn, so a change in the machine's
// load moves both alike.
func benchStarts(b *testing.B, bin string) (start1, start50 startFigures) {
	one, fifty := newStartEnv(b, bin, 1), newStartEnv(b, bin, 50)
	var warm, cold [2][]time.Duration
	for range 7 {
		warm[0] = append(warm[0], timedOnce(one.start))
		warm[1] = append(warm[1], timedOnce(fifty.start))
	}
	for range 3 {
		one.dropCaches()
		cold[0] = append(cold[0], timedOnce(one.start))
		fifty.dropCaches()
		cold[1] = append(cold[1], timedOnce(fifty.start))
	}
	return startFigures{warm: p50(warm[0]), cold: p50(cold[0])}, startFigures{warm: p50(warm[1]), cold: p50(cold[1])}
}

// startEnv is a plugins folder with n copies of the test plugin, approved.
type startEnv struct {
	b      *testing.B
	e      *env
	n      int
	caches []string
}

// newStartEnv installs n copies of bin and approves them as a person does,
// with `host approve`, which keeps the hashes it read and the manifests it
// parsed for the start to find.
func newStartEnv(b *testing.B, bin string, n int) *startEnv {
	e := benchEnv(b)
	must(b, os.RemoveAll(filepath.Join(e.plugins, "testtool")))
	for i := range n {
		name := fmt.Sprintf("bench%02d", i)
		dir := filepath.Join(e.plugins, name)
		must(b, os.MkdirAll(dir, 0o755))
		m := strings.Replace(testplugin.Manifest, "name: testtool", "name: "+name, 1)
		must(b, os.WriteFile(filepath.Join(dir, "tool.yaml"), []byte(m), 0o644))
		testplugin.CopyBinary(b, bin, filepath.Join(dir, "testtool"))
	}
	approve := exec.Command(hostBin, "approve", "--all")
	approve.Env, approve.Dir = e.vars, e.plugins
	if out, err := approve.CombinedOutput(); err != nil {
		b.Fatalf("host approve --all: %v\n%s", err, out)
	}
	if dir := os.Getenv("HOST_BENCH_PROFILE"); dir != "" && n > 1 { // the last start's CPU profile
		e.vars = append(e.vars, "HOST_CPUPROFILE="+filepath.Join(dir, fmt.Sprintf("start%d.pprof", n)))
	}
	s := &startEnv{b: b, e: e, n: n, caches: []string{registry.HashCachePath(filepath.Join(e.cacheHome(), "toolhost")),
		registry.ManifestCachePath(filepath.Join(e.cacheHome(), "toolhost"))}}
	for _, c := range s.caches {
		if _, err := os.Stat(c); err != nil {
			b.Fatalf("the approval kept no cache: %v", err)
		}
	}
	return s
}

// start starts the host, asks capabilities once and checks every plugin
// is listed ready (a start that left them unchecked would be fast for
// nothing), then stops it.
func (s *startEnv) start() {
	b := s.b
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	cmd := exec.Command(hostBin, "serve")
	cmd.Env, cmd.Dir = s.e.vars, s.e.plugins
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "capabilities", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		b.Fatalf("capabilities: %v %v", err, res)
	}
	var list struct {
		Tools    []any `json:"tools"`
		NotReady []any `json:"not_ready"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &list); err != nil || len(list.Tools) != s.n || len(list.NotReady) != 0 {
		b.Fatalf("capabilities after the start: %d tools ready, want %d; not ready: %v", len(list.Tools), s.n, list.NotReady)
	}
}

// dropCaches deletes the hash and manifest cache files.
func (s *startEnv) dropCaches() {
	for _, c := range s.caches {
		must(s.b, os.RemoveAll(c))
	}
}

// BenchmarkHostStart prints only the start figures of BenchmarkHostSpeed
// (ratio 4): start to the first capabilities answer with 50 plugins
// installed over the same with one.
//
//	go test ./tests -run '^$' -bench HostStart -benchtime 1x
func BenchmarkHostStart(b *testing.B) {
	bin := filepath.Join(testplugin.Install(b, b.TempDir(), "1"), "testtool")
	for range b.N {
		start1, start50 := benchStarts(b, bin)
		r := float64(start50.warm) / float64(start1.warm)
		fmt.Printf("host start: 50 plugins %v over 1 plugin %v = %.2f (goal <= 1.50); hash and manifest caches deleted: 50 plugins %v over 1 plugin %v = %.2f\n",
			start50.warm, start1.warm, r, start50.cold, start1.cold, float64(start50.cold)/float64(start1.cold))
		b.ReportMetric(r, "start50/start1")
	}
}
