package mcpserver

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/host/internal/dispatch"
	"github.com/toolhost/toolhost/host/internal/mcpproto"
	"github.com/toolhost/toolhost/internal/rpctest"
	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// answerAtOnce is a plugin call that answers at once with a small object,
// as the test plugin's echo does.
type answerAtOnce struct{}

func (answerAtOnce) Call(context.Context, *registry.Tool, *wire.CallRequest, func(*wire.Progress)) *wire.Result {
	return &wire.Result{Json: []byte(`{"echo":"bench"}`)}
}

// BenchmarkServe is the host's own MCP path per call, in process, over the
// stdio transport: an MCP ping (the SDK's floor) and a run_tool through
// the six tools and the real dispatch (lookup, arg check, gate, result cap)
// to a plugin call that answers at once — everything a warm run_tool costs
// but the plugin's gRPC round trip, which `make bench-host` measures.
// B/op and allocs/op do not move with the machine's load, and cpu-ns/op
// (the whole process's CPU time per call, Linux only) much less than ns/op.
// "8-in-flight" keeps eight run_tool calls in flight on one session.
//
//	go test ./host/internal/mcpserver -run '^$' -bench Serve -benchmem
func BenchmarkServe(b *testing.B) {
	const (
		ping    = `{"jsonrpc":"2.0","id":7,"method":"ping"}`
		runTool = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":"sheets","action":"read-sheet","args":{"path":"a.xlsx"}}}}`
	)
	for _, tc := range []struct {
		name     string
		line     string
		inflight int
	}{
		{"ping", ping, 1},
		{"run_tool", runTool, 1},
		{"run_tool-8-in-flight", runTool, 8},
	} {
		b.Run(tc.name, func(b *testing.B) {
			conn := startBenchServer(b)
			r := conn.Call(tc.line)
			if res, _ := r["result"].(map[string]any); res == nil || res["isError"] == true {
				b.Fatalf("warm call: %v", r)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := testplugin.SelfCPU()
			var mu sync.Mutex // Send is one write, but keep the lines whole
			sent := 0
			send := func() bool {
				mu.Lock()
				defer mu.Unlock()
				if sent == b.N {
					return false
				}
				sent++
				conn.Send(tc.line)
				return true
			}
			for range tc.inflight {
				send()
			}
			for range b.N {
				if line := conn.NextLine(); len(line) == 0 {
					b.Fatal("empty answer")
				}
				send()
			}
			b.ReportMetric(float64(testplugin.SelfCPU()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// startBenchServer serves the fixture plugin through the real dispatch on
// an in-process stdio session, initialized.
func startBenchServer(b *testing.B) *rpctest.Conn {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "sheets")
	mustB(b, os.MkdirAll(dir, 0o755))
	mustB(b, os.WriteFile(filepath.Join(dir, "tool.yaml"), []byte(fixtureManifest), 0o644))
	mustB(b, os.WriteFile(filepath.Join(dir, "sheets"), []byte("#!/bin/sh\n"), 0o755))
	reg := registry.New(registry.Options{PluginDirs: []string{filepath.Dir(dir)}})
	if snap := reg.Scan(); len(snap.Tools) != 1 || len(snap.Broken) > 0 {
		b.Fatalf("fixture not loaded: %+v", snap.Broken)
	}
	s := New(Options{Registry: reg, Runner: &dispatch.Dispatcher{Registry: reg, Runner: answerAtOnce{}}, Version: "bench"})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	conn := rpctest.New(b, inW, outR)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.Run(context.Background(), &mcpproto.StdioTransport{In: inR, Out: outW, Versions: s.Versions()})
		outW.Close()
	}()
	b.Cleanup(func() {
		inW.Close()
		<-done
	})
	conn.Initialize("bench")
	return conn
}

func mustB(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}
