//go:build linux

// The supervisor's tests drive the Linux process hygiene (/proc,
// Pdeathsig, the reaper as /proc/self/exe); for macOS and Windows `make
// test` cross-compiles and vets the package (make cross).

package supervisor

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/sdk/wire"
)

// The three benchmarks below run in one `go test -bench` and give the
// ratios the closing notes quote: a warm call through the supervisor, a
// raw go-plugin call with no supervisor, and exec-per-call (the plugin's
// CLI mode), all on the same echo action of the same binary.

func BenchmarkSupervisorWarmCall(b *testing.B) {
	f := newFixture(b, nil, Options{CacheDir: b.TempDir()})
	tool, _ := f.reg.Snapshot().Tool("testtool")
	req := func() *wire.CallRequest {
		return &wire.CallRequest{Action: "echo", ArgsJson: []byte(`{"text":"hi"}`), Caller: &wire.Caller{ClientName: "bench"}}
	}
	if r := f.sup.Call(context.Background(), tool, req(), nil); r.GetError() != nil {
		b.Fatal(r.GetError())
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := f.sup.Call(context.Background(), tool, req(), nil); r.GetError() != nil {
			b.Fatal(r.GetError())
		}
	}
}

func BenchmarkRawGoPluginCall(b *testing.B) {
	f := newFixture(b, nil, Options{CacheDir: b.TempDir()})
	tool, _ := f.reg.Snapshot().Tool("testtool")
	c, _, _ := testplugin.Raw(b, tool.Binary)
	call := func() {
		r, err := runCall(context.Background(), c, &wire.CallRequest{Action: "echo", ArgsJson: []byte(`{"text":"hi"}`)}, nil, recvLimit(&wire.CallRequest{}))
		if err != nil || r.GetError() != nil {
			b.Fatal(err, r.GetError())
		}
	}
	call()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		call()
	}
}

func BenchmarkExecPerCall(b *testing.B) {
	f := newFixture(b, nil, Options{CacheDir: b.TempDir()})
	bin := filepath.Join(f.plugins, "testtool", "testtool")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if out, err := exec.Command(bin, "echo", "--text", "hi").CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}
