//go:build linux

package supervisor

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/sdk/wire"
)

// TestGivingUpWhileWaitingForASlot fills the slots a call needs, then
// calls with a context that has already ended: the answer says the call
// was cancelled (or ran out of time) and which slot it was waiting for,
// and the plugin's running calls are unharmed: still running, they answer
// the cancellation the test then sends, not a crash. They hold their slots
// until then: calls of 1.5 s, as they were, could end on a loaded machine
// before the late call came, and it then found a slot free.
func TestGivingUpWhileWaitingForASlot(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel2()
	tests := []struct {
		name    string
		opts    Options
		running int // slow calls that hold the slots
		ctx     context.Context
		code    wire.Code
		message string
	}{
		{"the tool's slots, cancelled", Options{}, 2, cancelled, wire.CodeCancelled, "the call to testtool was cancelled while waiting for a free slot"},
		{"the tool's slots, out of time", Options{}, 2, expired, wire.CodeTimeout, "the call to testtool ran out of time while waiting for a free slot"},
		{"the host's slots", Options{MaxInflight: 1}, 1, cancelled, wire.CodeCancelled, "the call to testtool was cancelled while waiting for the host to have a free slot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, longTimeout, tt.opts) // testtool: concurrency 2
			tool := f.tool(t)
			running, release := f.holdSlots(t, tool, tt.running)
			r := f.sup.Call(tt.ctx, tool, &wire.CallRequest{Action: "echo", ArgsJson: []byte(`{"text":"late"}`)}, nil)
			wantCode(t, r, tt.code)
			if got := r.GetError().GetMessage(); got != tt.message {
				t.Fatalf("got %q, want %q", got, tt.message)
			}
			release()
			for _, done := range running {
				wantCode(t, <-done, wire.CodeCancelled)
			}
		})
	}
}

// TestWarmStartsThePlugin checks Warm (eager: true): the plugin is running
// before any call, and a disabled tool is refused with its reason.
func TestWarmStartsThePlugin(t *testing.T) {
	clock := newFakeClock()
	f := newFixture(t, nil, Options{Backoff: time.Millisecond, MaxCrashes: 1, Clock: clock})
	tool := f.tool(t)
	if got := f.sup.Running(); len(got) != 0 {
		t.Fatalf("running before Warm: %v", got)
	}
	if err := f.sup.Warm(context.Background(), tool); err != nil {
		t.Fatal(err)
	}
	if got := f.sup.Running(); !slices.Equal(got, []string{"testtool"}) {
		t.Fatalf("running after Warm: got %v, want [testtool]", got)
	}
	wantCode(t, f.call(t, context.Background(), "crash", nil), wire.CodePluginCrashed)
	err := f.sup.Warm(context.Background(), tool)
	if err == nil || !strings.Contains(err.Error(), "crashed 1 time") {
		t.Fatalf("Warm of a disabled tool: got %v, want its reason", err)
	}
}
