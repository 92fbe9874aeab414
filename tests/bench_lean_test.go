package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// leanClient is an MCP client of `host serve` over stdio written for the
// 8-in-flight measurement: newline-delimited JSON-RPC 2.0 on the host's
// stdin and stdout, the initialize handshake first, then run_tool calls
// pipelined with distinct ids, every answer parsed and checked. It costs
// the bench process a few microseconds of CPU per call where the go-sdk
// client costs hundreds, so the throughput it reaches is the host's, as
// the raw side's lean gRPC client's is the plugin's.
type leanClient struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	// next is the id of the next request.
	next int64
}

// startLeanClient starts `host serve` (the test plugin with
// concurrency 8) and initialises the session.
func startLeanClient(b testing.TB) *leanClient {
	e := benchEnv(b)
	manifest := filepath.Join(e.plugins, "testtool", "tool.yaml")
	must(b, os.WriteFile(manifest, []byte(strings.Replace(testplugin.Manifest, "concurrency: 2", "concurrency: 8", 1)), 0o644))
	if dir := os.Getenv("HOST_BENCH_PROFILE"); dir != "" { // a CPU profile of the host serving
		e.vars = append(e.vars, "HOST_CPUPROFILE="+filepath.Join(dir, "serve-lean.pprof"), "HOST_MEMPROFILE="+filepath.Join(dir, "serve-lean-allocs.pprof"))
	}
	return startLean(b, e.serveCmd())
}

// startSDKFloor builds tests/bench/sdkfloor, a bare go-sdk server with one
// trivial run_tool, and starts it under the lean client: the SDK's own
// cost per call, measured by the same driver as the host's.
func startSDKFloor(b testing.TB) *leanClient {
	bin := filepath.Join(b.TempDir(), "sdkfloor")
	if out, err := goBuild(bin, "./tests/bench/sdkfloor"); err != nil {
		b.Fatalf("build sdkfloor: %v\n%s", err, out)
	}
	return startLean(b, exec.Command(bin))
}

// startLean starts cmd, an MCP server over stdio, and initialises the
// session.
func startLean(b testing.TB, cmd *exec.Cmd) *leanClient {
	l := &leanClient{cmd: cmd, next: 1}
	l.cmd.Stderr = os.Stderr
	in, err := l.cmd.StdinPipe()
	must(b, err)
	out, err := l.cmd.StdoutPipe()
	must(b, err)
	must(b, l.cmd.Start())
	l.in, l.out = in, bufio.NewReaderSize(out, 64<<10)
	l.send(b, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench-lean","version":"1"}}}`+"\n"))
	var init struct {
		ID     *int64 `json:"id"`
		Result *struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	line := l.line(b)
	if json.Unmarshal(line, &init) != nil || init.ID == nil || *init.ID != 0 || init.Result == nil || init.Result.ProtocolVersion == "" {
		b.Fatalf("lean client: initialize answered %s", line)
	}
	l.send(b, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"))
	return l
}

// send writes lines to the host.
func (l *leanClient) send(b testing.TB, lines []byte) {
	if _, err := l.in.Write(lines); err != nil {
		b.Fatalf("lean client: write: %v", err)
	}
}

// line reads the host's next line (valid until the next read).
func (l *leanClient) line(b testing.TB) []byte {
	line, err := l.out.ReadSlice('\n')
	if err != nil {
		b.Fatalf("lean client: read: %v (%q)", err, line)
	}
	return line
}

// appendCall appends a run_tool request of echo under id, echoing a text
// of its own so its answer can be matched to it.
func appendCall(buf []byte, id int64) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = strconv.AppendInt(buf, id, 10)
	buf = append(buf, `,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"testtool","action":"echo","args":{"text":"b`...)
	buf = strconv.AppendInt(buf, id, 10)
	return append(buf, "\"}}}}\n"...)
}

// leanAnswer is what the lean client reads of each line.
type leanAnswer struct {
	ID     *int64          `json:"id"`
	Method string          `json:"method"`
	Error  json.RawMessage `json:"error"`
	Result *struct {
		IsError           bool            `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	} `json:"result"`
}

// pipelined makes n run_tool calls with inflight of them outstanding: it
// sends inflight requests, then for each answer read sends the next (the
// requests due after a batch of answers go out in one write). Every answer
// must name an outstanding id, carry a result that is not an error and
// echo that request's own text; notifications are skipped.
func (l *leanClient) pipelined(b testing.TB, n, inflight int) {
	first := l.next
	l.next += int64(n)
	outstanding := make(map[int64]bool, inflight)
	sent, answered := 0, 0
	var buf []byte
	queue := func() {
		for sent < n && len(outstanding) < inflight {
			id := first + int64(sent)
			outstanding[id] = true
			buf = appendCall(buf, id)
			sent++
		}
	}
	queue()
	l.send(b, buf)
	var want []byte
	for answered < n {
		line := l.line(b)
		var a leanAnswer
		if err := json.Unmarshal(line, &a); err != nil {
			b.Fatalf("lean client: an answer is not JSON: %v: %s", err, line)
		}
		if a.Method != "" {
			if a.ID != nil {
				b.Fatalf("lean client: the host asked %s, which this client does not serve", a.Method)
			}
			continue // a notification
		}
		if a.ID == nil || !outstanding[*a.ID] {
			b.Fatalf("lean client: an answer names no outstanding call: %s", line)
		}
		if a.Error != nil || a.Result == nil || a.Result.IsError {
			b.Fatalf("lean client: call %d failed: %s", *a.ID, line)
		}
		want = append(strconv.AppendInt(append(want[:0], `"text":"b`...), *a.ID, 10), '"')
		if !bytes.Contains(a.Result.StructuredContent, want) {
			b.Fatalf("lean client: call %d answered another call's echo: %s", *a.ID, line)
		}
		delete(outstanding, *a.ID)
		answered++
		if l.out.Buffered() > 0 && bytes.IndexByte(peekBuffered(l.out), '\n') >= 0 {
			continue // more answers already read: send after them, in one write
		}
		buf = buf[:0]
		queue()
		if len(buf) > 0 {
			l.send(b, buf)
		}
	}
}

// ping sends an MCP ping and waits for its answer: an empty result under
// its id.
func (l *leanClient) ping(b testing.TB) {
	id := l.next
	l.next++
	buf := strconv.AppendInt([]byte(`{"jsonrpc":"2.0","id":`), id, 10)
	l.send(b, append(buf, `,"method":"ping"}`+"\n"...))
	for {
		line := l.line(b)
		var a leanAnswer
		if err := json.Unmarshal(line, &a); err != nil {
			b.Fatalf("lean client: a ping answer is not JSON: %v: %s", err, line)
		}
		if a.Method != "" && a.ID == nil {
			continue // a notification
		}
		if a.ID == nil || *a.ID != id || a.Error != nil || a.Result == nil {
			b.Fatalf("lean client: ping %d answered %s", id, line)
		}
		return
	}
}

// peekBuffered is what r holds already read.
func peekBuffered(r *bufio.Reader) []byte {
	p, _ := r.Peek(r.Buffered())
	return p
}

// close ends the session (stdin closes) and waits for the host.
func (l *leanClient) close(b testing.TB) {
	if err := l.in.Close(); err != nil {
		b.Logf("lean client: closing stdin: %v", err)
	}
	if _, err := io.Copy(io.Discard, l.out); err != nil {
		b.Logf("lean client: draining stdout: %v", err)
	}
	if err := l.cmd.Wait(); err != nil {
		b.Logf("lean client: the host ended with %v", err)
	}
}

// BenchmarkLeanInFlight runs only the 8-in-flight phase of
// BenchmarkHostSpeed through the lean client, b.N calls after a warm-up,
// and prints the CPU per call of the client and of the host with its
// plugin: with HOST_BENCH_PROFILE set, the host's CPU profile
// (serve-lean.pprof) then holds that phase and nothing else.
//
//	go test ./tests -run '^$' -bench LeanInFlight -benchtime 20000x
func BenchmarkLeanInFlight(b *testing.B) {
	lean := startLeanClient(b)
	defer lean.close(b)
	lean.pipelined(b, 200, 8) // warm: the plugin is launched and kept
	pid := lean.cmd.Process.Pid
	plugin := descendant(pid, "testtool")
	client, server, host := selfCPU(), treeCPU(pid), testplugin.ProcCPU(pid)
	hostIO, pluginIO := syscalls(pid), syscalls(plugin)
	b.ResetTimer()
	lean.pipelined(b, b.N, 8)
	b.StopTimer()
	reportSyscalls(b, "host", hostIO, syscalls(pid))
	reportSyscalls(b, "plugin", pluginIO, syscalls(plugin))
	n := time.Duration(b.N)
	c, s, h := (selfCPU()-client)/n, (treeCPU(pid)-server)/n, (testplugin.ProcCPU(pid)-host)/n
	b.ReportMetric(float64(c.Nanoseconds()), "client-cpu-ns/call")
	b.ReportMetric(float64(h.Nanoseconds()), "host-cpu-ns/call")
	b.ReportMetric(float64((s - h).Nanoseconds()), "plugin-cpu-ns/call")
}

// BenchmarkSDKFloorInFlight is BenchmarkLeanInFlight against a bare
// go-sdk server with one trivial tool (tests/bench/sdkfloor): the SDK's
// own CPU per tools/call, the floor under the host's.
//
//	go test ./tests -run '^$' -bench SDKFloorInFlight -benchtime 20000x
func BenchmarkSDKFloorInFlight(b *testing.B) {
	lean := startSDKFloor(b)
	defer lean.close(b)
	lean.pipelined(b, 200, 8)
	pid := lean.cmd.Process.Pid
	client, server := selfCPU(), treeCPU(pid)
	b.ResetTimer()
	lean.pipelined(b, b.N, 8)
	b.StopTimer()
	n := time.Duration(b.N)
	b.ReportMetric(float64(((selfCPU() - client) / n).Nanoseconds()), "client-cpu-ns/call")
	b.ReportMetric(float64(((treeCPU(pid) - server) / n).Nanoseconds()), "server-cpu-ns/call")
}

// BenchmarkRawInFlight is BenchmarkLeanInFlight's baseline: the raw
// go-plugin client's 8 in flight to the same plugin, and the CPU per call
// of the client and of the plugin.
//
//	go test ./tests -run '^$' -bench RawInFlight -benchtime 20000x
func BenchmarkRawInFlight(b *testing.B) {
	bin := filepath.Join(testplugin.Install(b, b.TempDir(), "1"), "testtool")
	call, pid, stop := rawClient(b, bin)
	defer stop()
	inFlight(200, 8, call)
	client, plugin := selfCPU(), treeCPU(pid)
	pluginIO := syscalls(pid)
	b.ResetTimer()
	inFlight(b.N, 8, call)
	b.StopTimer()
	reportSyscalls(b, "plugin", pluginIO, syscalls(pid))
	n := time.Duration(b.N)
	b.ReportMetric(float64(((selfCPU() - client) / n).Nanoseconds()), "client-cpu-ns/call")
	b.ReportMetric(float64(((treeCPU(pid) - plugin) / n).Nanoseconds()), "plugin-cpu-ns/call")
}

// syscalls is how many read and write system calls process pid has made
// (/proc/PID/io's syscr and syscw); zeros when it cannot be read.
func syscalls(pid int) (counts [2]int64) {
	io, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "io"))
	if err != nil {
		return counts
	}
	for _, line := range strings.Split(string(io), "\n") {
		k, v, _ := strings.Cut(line, ": ")
		n, _ := strconv.ParseInt(v, 10, 64)
		switch k {
		case "syscr":
			counts[0] = n
		case "syscw":
			counts[1] = n
		}
	}
	return counts
}

// reportSyscalls reports who's read and write system calls per call
// between two counts.
func reportSyscalls(b *testing.B, who string, before, after [2]int64) {
	b.ReportMetric(float64(after[0]-before[0])/float64(b.N), who+"-reads/call")
	b.ReportMetric(float64(after[1]-before[1])/float64(b.N), who+"-writes/call")
}

// descendant is the process id of the first process named comm below
// pid (the host's plugin, under its reaper).
func descendant(pid int, comm string) int {
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "children"))
	for _, t := range tasks {
		kids, _ := os.ReadFile(t)
		for _, k := range strings.Fields(string(kids)) {
			child, _ := strconv.Atoi(k)
			if name, _ := os.ReadFile(filepath.Join("/proc", k, "comm")); strings.TrimSpace(string(name)) == comm {
				return child
			}
			if d := descendant(child, comm); d != 0 {
				return d
			}
		}
	}
	return 0
}
