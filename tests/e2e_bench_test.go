package tests

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// rawPerOp is the raw go-plugin round-trip measured by the first
// sub-benchmark, the baseline the MCP round-trip is reported against.
var rawPerOp time.Duration

// BenchmarkRunToolRoundTrip measures, in one run, a warm testtool echo:
// (1) raw — a go-plugin gRPC client calling the plugin binary directly, the
// floor; (2) mcp-stdio — the Go SDK client calling run_tool on `host serve`
// over stdio (JSON-RPC, the six tools, the checker, the gate, the
// supervisor, then the same plugin call). mcp-stdio reports x-raw, its
// ratio to raw.
//
//	go test ./tests -run '^$' -bench RunToolRoundTrip
func BenchmarkRunToolRoundTrip(b *testing.B) {
	b.Run("raw-go-plugin", func(b *testing.B) {
		call, _, stop := rawClient(b, testplugin.Build(b, "1"))
		defer stop()
		call() // warm
		b.ResetTimer()
		start := time.Now()
		for range b.N {
			call()
		}
		rawPerOp = time.Since(start) / time.Duration(b.N)
	})
	b.Run("mcp-stdio", func(b *testing.B) {
		e := benchEnv(b)
		if dir := os.Getenv("HOST_BENCH_PROFILE"); dir != "" { // a CPU profile of the host serving
			e.vars = append(e.vars, "HOST_CPUPROFILE="+filepath.Join(dir, "roundtrip.pprof"))
		}
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: e.serveCmd()},
			&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		params := &mcp.CallToolParams{Name: "run_tool", Arguments: map[string]any{"tool": "testtool", "action": "echo", "args": map[string]any{"text": "bench"}}}
		call := func() {
			res, err := cs.CallTool(context.Background(), params)
			if err != nil || res.IsError {
				b.Fatalf("run_tool: %v %v", err, res)
			}
		}
		call() // warm: the plugin is launched and kept
		b.ResetTimer()
		start := time.Now()
		for range b.N {
			call()
		}
		perOp := time.Since(start) / time.Duration(b.N)
		if rawPerOp > 0 {
			b.ReportMetric(float64(perOp)/float64(rawPerOp), "x-raw")
		}
	})
}

// benchEnv is newEnv for benchmarks: the test plugin only, logs at warn.
func benchEnv(b testing.TB) *env {
	b.Helper()
	e := &env{plugins: b.TempDir(), skills: b.TempDir(), t: b}
	testplugin.Install(b, e.plugins, "1")
	home := b.TempDir()
	e.vars = append(filteredEnviron(), "HOST_PLUGIN_PATH="+e.plugins, "HOST_SKILL_PATH="+e.skills,
		"XDG_CACHE_HOME="+home+"/cache", "XDG_DATA_HOME="+home+"/data", "HOST_LOG_LEVEL=warn")
	return e
}
