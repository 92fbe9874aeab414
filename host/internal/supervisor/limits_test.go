//go:build linux

// The supervisor's tests drive the Linux process hygiene (/proc,
// Pdeathsig, the reaper as /proc/self/exe); for macOS and Windows `make
// test` cross-compiles and vets the package (make cross).

package supervisor

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestResultOverCapIsRefusedAsItArrives: a result far over the caller's cap
// is refused by the gRPC receive bound, before the host holds it (issue 9,
// defect 5: a huge result once grew the host's memory by many times its size).
func TestResultOverCapIsRefusedAsItArrives(t *testing.T) {
	// A loaded machine takes a while to build the result; time is not the point.
	f := newFixture(t, longTimeout, Options{})
	ctx := context.Background()
	call := func(bytes int) *wire.Result {
		return f.sup.Call(ctx, f.tool(t), &wire.CallRequest{Action: "big", ArgsJson: []byte(fmt.Sprintf(`{"bytes":%d}`, bytes)),
			Caller: &wire.Caller{MaxResultBytes: 40000}}, nil)
	}
	// Within the bound it arrives whole (the dispatcher applies the cap).
	if r := call(60000); r.GetError() != nil || len(r.GetJson()) < 60000 {
		t.Fatalf("a result within the receive bound did not arrive: %v", r.GetError())
	}
	const huge = 24 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := call(huge)
	runtime.ReadMemStats(&after)
	wantCode(t, r, wire.CodeResultTooLarge)
	if !strings.Contains(r.GetError().GetNextStep(), "bytes") {
		t.Fatalf("next step does not name narrow_with: %q", r.GetError().GetNextStep())
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > huge/3 {
		t.Fatalf("the host allocated %d MiB receiving a result it refused", grew>>20)
	}
	t.Logf("refusing a %d MiB result allocated %d KiB in the host", huge>>20, (after.TotalAlloc-before.TotalAlloc)>>10)
	// The plugin is unharmed: the bound failed the call, not the process.
	decode(t, f.call(t, ctx, "echo", map[string]any{"text": "after"}))
}

// TestResourceCeilingsKillARunawayPluginAlone: over its manifest's memory or
// cpu_time a plugin is killed, its call answers plugin_crashed with the
// reason, and the other plugin's call in flight is untouched.
func TestResourceCeilingsKillARunawayPluginAlone(t *testing.T) {
	for _, tc := range []struct {
		name, limit, action, args, reason string
	}{
		{"memory", "memory: 64MiB", "hog", `{"mb":256}`, "memory"},
		{"cpu time", "cpu_time: 1s", "spin", `{}`, "cpu_time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, func(m string) string {
				return strings.Replace(m, "timeout: 5s", "timeout: 10m\n"+tc.limit, 1)
			}, Options{WatchEvery: 50 * time.Millisecond})
			ctx := context.Background()
			other := f.installOther(t)
			done := f.startSlow(t, ctx, other, 1500)
			r := f.sup.Call(ctx, f.tool(t), &wire.CallRequest{Action: tc.action, ArgsJson: []byte(tc.args)}, nil)
			wantCode(t, r, wire.CodePluginCrashed)
			if !strings.Contains(r.GetError().GetMessage(), tc.reason) {
				t.Fatalf("the answer does not say why: %s", r.GetError().GetMessage())
			}
			decode(t, <-done)
			decode(t, f.call(t, ctx, "echo", map[string]any{"text": "relaunched"}))
		})
	}
}

// TestHostWideInflightBound: beyond MaxInflight running and its queue,
// a call anywhere gets busy naming HOST_MAX_INFLIGHT. The running call
// holds its slot until the test lets go (a 1 s call, as it was, could end
// first on a loaded machine, and the call meant to be busy then queued).
func TestHostWideInflightBound(t *testing.T) {
	f := newFixture(t, longTimeout, Options{MaxInflight: 1, QueueFactor: 1})
	ctx := context.Background()
	decode(t, f.call(t, ctx, "echo", map[string]any{"text": "warm"}))
	running, release := f.holdSlots(t, f.tool(t), 1)
	waiting := make(chan *wire.Result, 1)
	go func() { waiting <- f.call(t, ctx, "echo", map[string]any{"text": "queued"}) }()
	for deadline := time.Now().Add(30 * time.Second); len(f.sup.queued) < 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the second call never queued")
		}
	}
	r := f.call(t, ctx, "echo", map[string]any{"text": "one too many"})
	wantCode(t, r, wire.CodeBusy)
	if !strings.Contains(r.GetError().GetMessage(), "HOST_MAX_INFLIGHT") {
		t.Fatalf("busy does not name the bound: %s", r.GetError().GetMessage())
	}
	release()
	wantCode(t, <-running[0], wire.CodeCancelled)
	decode(t, <-waiting)
}

// A call's timeout is the manifest's, 30 s when it sets none.
func TestCallTimeoutIsTheManifests(t *testing.T) {
	for _, tt := range []struct{ set, want time.Duration }{{0, 30 * time.Second}, {time.Second, time.Second}} {
		tool := &registry.Tool{Manifest: &manifests.Manifest{Name: "x", Timeout: tt.set}}
		if got := callTimeout(tool); got != tt.want {
			t.Errorf("timeout %v: got %v, want %v", tt.set, got, tt.want)
		}
	}
}

// The largest message a call receives is twice the caller's result cap
// (JSON and Markdown) plus the envelope; no cap, or one over 16 MiB, is
// 16 MiB.
func TestRecvLimitFollowsTheCallersCap(t *testing.T) {
	tests := []struct {
		max  int64
		want int
	}{
		{0, 2*fallbackMaxResult + envelopeBytes},
		{-1, 2*fallbackMaxResult + envelopeBytes},
		{1000, 2000 + envelopeBytes},
		{fallbackMaxResult, 2*fallbackMaxResult + envelopeBytes},
		{fallbackMaxResult + 1, 2*fallbackMaxResult + envelopeBytes},
	}
	for _, tt := range tests {
		req := &wire.CallRequest{Caller: &wire.Caller{MaxResultBytes: tt.max}}
		if got := recvLimit(req); got != tt.want {
			t.Errorf("cap %d: got %d, want %d", tt.max, got, tt.want)
		}
	}
}

// A result refused for its size names the action's narrow_with when it
// has one, and asks for less in general when it has none.
func TestTooLargeNamesNarrowWith(t *testing.T) {
	m := &manifests.Manifest{Name: "x", Actions: []manifests.Action{{Name: "read", NarrowWith: []string{"range", "sheet"}}, {Name: "all"}}}
	tool := &registry.Tool{Manifest: m}
	for _, tt := range []struct{ action, next string }{
		{"read", "call again with range or sheet to ask for less"},
		{"all", "call again asking for less"},
	} {
		r := tooLarge(tool, &wire.CallRequest{Action: tt.action, Caller: &wire.Caller{MaxResultBytes: 10}})
		if got := r.GetError().GetNextStep(); !strings.Contains(got, tt.next) {
			t.Errorf("%s: next step %q, want %q", tt.action, got, tt.next)
		}
	}
}

// TestAFailedCallsAnswerNamesWhoseLimitEndedIt: a call whose stream ended
// in an error is answered for the limit that ended it. Past the manifest's
// timeout it is the manifest's timeout, named, whether the host's timer
// fired first (the stream then ends in whatever error the transport gives)
// or the plugin enforced the deadline gRPC carries a moment before it (the
// host's own timer has not fired yet); the caller's cancellation or the
// caller's own deadline is the caller's, never the manifest's. The
// contexts are made ended or not as each case needs, so no test waits on a
// clock; the plugin is real and alive, so it did not crash.
func TestAFailedCallsAnswerNamesWhoseLimitEndedIt(t *testing.T) {
	f := newFixture(t, nil, Options{})
	decode(t, f.call(t, context.Background(), "echo", map[string]any{"text": "warm"}))
	st := f.state(t)
	st.mu.Lock()
	p := st.cur
	st.mu.Unlock()
	tool := f.tool(t)
	const timeout = 5 * time.Second
	ended := func(parent context.Context) context.Context { // a context whose deadline has passed
		ctx, cancel := context.WithDeadline(parent, time.Unix(0, 0))
		t.Cleanup(cancel)
		return ctx
	}
	live := func(parent context.Context) context.Context {
		ctx, cancel := context.WithTimeout(parent, timeout)
		t.Cleanup(cancel)
		return ctx
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name          string
		ctx, callCtx  context.Context
		err           error
		code          wire.Code
		message, next string
		cancelled     bool // the caller's: the answer does not count against the plugin
	}{
		{"the host's timer fired first", context.Background(), ended(context.Background()), status.Error(codes.Unknown, "stream terminated by RST_STREAM"),
			wire.CodeTimeout, "testtool slow did not finish within 5s (the manifest's timeout)", "raise timeout in " + tool.Manifest.Path, false},
		{"the plugin enforced the deadline first", context.Background(), live(context.Background()), status.Error(codes.DeadlineExceeded, "context deadline exceeded"),
			wire.CodeTimeout, "testtool slow did not finish within 5s (the manifest's timeout)", "raise timeout in " + tool.Manifest.Path, false},
		{"the caller cancelled", cancelled, live(cancelled), status.Error(codes.Canceled, "context canceled"),
			wire.CodeCancelled, "the call to testtool was cancelled", "", true},
		{"the caller's own deadline passed", ended(context.Background()), ended(context.Background()), status.Error(codes.DeadlineExceeded, "context deadline exceeded"),
			wire.CodeTimeout, "the call to testtool ran out of time", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := f.sup.failed(tt.ctx, tt.callCtx, st, p, tool, &wire.CallRequest{Action: "slow"}, timeout, tt.err)
			wantCode(t, out.res, tt.code)
			if e := out.res.GetError(); e.GetMessage() != tt.message || !strings.Contains(e.GetNextStep(), tt.next) {
				t.Fatalf("got message %q, next step %q; want %q and %q", e.GetMessage(), e.GetNextStep(), tt.message, tt.next)
			}
			if out.crashed || out.cancelled != tt.cancelled {
				t.Fatalf("counted a crash %v, the caller's %v; want false, %v", out.crashed, out.cancelled, tt.cancelled)
			}
		})
	}
	decode(t, f.call(t, context.Background(), "echo", map[string]any{"text": "still served"}))
}

// TestOverCeilingNamesTheFigures: a plugin is over its manifest's memory or
// cpu_time only past the figure (at it is within), a zero one is no
// ceiling, and the reason the call's answer gives names what the plugin
// used and the manifest's figure. TestResourceCeilingsKillARunawayPluginAlone
// shows the kill on a real plugin; its usage is never exactly at a
// ceiling, so the boundaries are here.
func TestOverCeilingNamesTheFigures(t *testing.T) {
	const mib = int64(1) << 20
	tests := []struct {
		name   string
		m      manifests.Manifest
		u      usage
		reason string // "" when the plugin is within its ceilings
	}{
		{"no ceilings", manifests.Manifest{}, usage{rss: 900 * mib, cpu: time.Hour}, ""},
		{"memory at the ceiling", manifests.Manifest{Memory: 64 * mib}, usage{rss: 64 * mib, cpu: time.Hour}, ""},
		{"memory past the ceiling", manifests.Manifest{Memory: 64 * mib}, usage{rss: 64*mib + 1, cpu: time.Hour},
			"its processes held 64 MiB of memory, over the manifest's memory of 64 MiB"},
		{"memory far past", manifests.Manifest{Memory: 64 * mib, CPUTime: time.Hour}, usage{rss: 256 * mib},
			"its processes held 256 MiB of memory, over the manifest's memory of 64 MiB"},
		{"cpu time at the ceiling", manifests.Manifest{CPUTime: time.Second}, usage{rss: 900 * mib, cpu: time.Second}, ""},
		{"cpu time past the ceiling", manifests.Manifest{CPUTime: time.Second}, usage{rss: 900 * mib, cpu: time.Second + 10*time.Millisecond},
			"it used 1.01s of CPU time, over the manifest's cpu_time of 1s"},
		{"cpu time past, memory within", manifests.Manifest{Memory: 64 * mib, CPUTime: time.Second}, usage{rss: 10 * mib, cpu: 3 * time.Second},
			"it used 3s of CPU time, over the manifest's cpu_time of 1s"},
		{"both within", manifests.Manifest{Memory: 64 * mib, CPUTime: time.Second}, usage{rss: 10 * mib, cpu: 500 * time.Millisecond}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := overCeiling(&tt.m, tt.u); got != tt.reason {
				t.Fatalf("got reason %q, want %q", got, tt.reason)
			}
		})
	}
}
