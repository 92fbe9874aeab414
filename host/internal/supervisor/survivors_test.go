//go:build linux

package supervisor

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// Tests for what supervisor mutants of the 2026-12-02 run changed unseen
// (testdata/mutate.md lists them by function).

// Options left zero take the defaults their docs give; set ones are kept,
// and a DisableMax below DisableFor is raised to it.
func TestNewTakesTheDocumentedDefaults(t *testing.T) {
	def := New(Options{})
	t.Cleanup(def.Close)
	d := def.opts
	got := []time.Duration{d.Idle, d.CrashWindow, d.Backoff, d.DisableFor, d.DisableMax, d.WatchEvery, d.StartTimeout}
	want := []time.Duration{10 * time.Minute, time.Minute, 100 * time.Millisecond, 30 * time.Second, 10 * time.Minute, 250 * time.Millisecond, 20 * time.Second}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("default durations %v, want %v", got, want)
			break
		}
	}
	if d.QueueFactor != 4 || d.MaxCrashes != 3 || d.MaxInflight != 64 || cap(def.inflight) != 64 || cap(def.queued) != 256 {
		t.Errorf("defaults: queue factor %d, max crashes %d, max inflight %d (slots %d, queue %d); want 4, 3, 64 (64, 256)",
			d.QueueFactor, d.MaxCrashes, d.MaxInflight, cap(def.inflight), cap(def.queued))
	}
	if d.CacheDir != registry.DefaultRunDir() || d.Hashes == nil || d.Environ == nil || d.WorkDir == "" || d.Clock == nil || d.Logger == nil {
		t.Errorf("defaults: cache %q, hashes %v, environ set %v, workdir %q, clock %v, logger %v",
			d.CacheDir, d.Hashes, d.Environ != nil, d.WorkDir, d.Clock, d.Logger)
	}

	set := Options{Idle: time.Second, CrashWindow: 2 * time.Second, Backoff: 3 * time.Second, DisableFor: 4 * time.Second,
		DisableMax: 5 * time.Second, WatchEvery: 6 * time.Second, StartTimeout: 7 * time.Second, QueueFactor: 1, MaxCrashes: 1, MaxInflight: 1, CacheDir: "/given"}
	given := New(set)
	t.Cleanup(given.Close)
	g := given.opts
	if g.Idle != set.Idle || g.CrashWindow != set.CrashWindow || g.Backoff != set.Backoff || g.DisableFor != set.DisableFor ||
		g.DisableMax != set.DisableMax || g.WatchEvery != set.WatchEvery || g.StartTimeout != set.StartTimeout || g.QueueFactor != 1 || g.MaxCrashes != 1 || g.MaxInflight != 1 || g.CacheDir != "/given" {
		t.Errorf("given options changed: %+v", g)
	}

	tests := []struct{ disableFor, disableMax, want time.Duration }{
		{time.Hour, time.Minute, time.Hour},     // below DisableFor: raised to it
		{time.Second, time.Minute, time.Minute}, // kept
		{time.Minute, time.Minute, time.Minute}, // equal: kept
		{time.Second, 0, 10 * time.Minute},      // unset: 10m
	}
	for _, tt := range tests {
		s := New(Options{DisableFor: tt.disableFor, DisableMax: tt.disableMax})
		s.Close()
		if s.opts.DisableMax != tt.want {
			t.Errorf("DisableFor %v, DisableMax %v: got DisableMax %v, want %v", tt.disableFor, tt.disableMax, s.opts.DisableMax, tt.want)
		}
	}
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

// DescribeDiff names the actions only the manifest has and those only the
// binary has, each side alone or both.
func TestDescribeDiffNamesBothSides(t *testing.T) {
	tests := []struct {
		manifest, binary []string
		want             string
	}{
		{[]string{"a", "b"}, []string{"b", "a"}, ""},
		{[]string{"a", "b"}, []string{"a"}, "actions in tool.yaml but not in the binary: b"},
		{[]string{"a"}, []string{"a", "c", "d"}, "actions in the binary but not in tool.yaml: c, d"},
		{[]string{"a", "b"}, []string{"c"}, "actions in tool.yaml but not in the binary: a, b; actions in the binary but not in tool.yaml: c"},
	}
	for _, tt := range tests {
		if got := DescribeDiff(tt.manifest, tt.binary); got != tt.want {
			t.Errorf("DescribeDiff(%v, %v) = %q, want %q", tt.manifest, tt.binary, got, tt.want)
		}
	}
}

// ReadDisabled lists the recorded disables still in force: not one that
// expires now or earlier, nor a file that is not a record.
func TestReadDisabledKeepsOnlyThoseInForce(t *testing.T) {
	state := t.TempDir()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	write := func(name string, d any) {
		b, _ := json.Marshal(d)
		if err := os.MkdirAll(disabledDir(state), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(disabledDir(state), name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("on.json", Disabled{Tool: "on", Until: now.Add(time.Nanosecond)})
	write("now.json", Disabled{Tool: "now", Until: now})
	write("past.json", Disabled{Tool: "past", Until: now.Add(-time.Minute)})
	write("nameless.json", Disabled{Until: now.Add(time.Hour)})
	write("other.tmp", Disabled{Tool: "other", Until: now.Add(time.Hour)})
	got, err := ReadDisabled(state, now)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range got {
		names = append(names, n)
	}
	if len(got) != 1 || got["on"].Tool != "on" {
		t.Fatalf("in force: %v, want on alone", names)
	}
	if got, err := ReadDisabled("", now); err != nil || len(got) != 0 {
		t.Fatalf("no state folder: %v, %v", got, err)
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

// Clearing a disable record warns only when a record could not be
// removed: not when it was, nor when there was none.
func TestClearingADisableRecordWarnsOnlyOnFailure(t *testing.T) {
	state := t.TempDir()
	var log bytes.Buffer
	s := New(Options{StateDir: state, Logger: hclog.New(&hclog.LoggerOptions{Output: &log, Level: hclog.Warn})})
	t.Cleanup(s.Close)
	until := time.Now().Add(time.Hour)
	s.record("x", &Disabled{Tool: "x", Until: until})
	if got, _ := ReadDisabled(state, time.Now()); !got["x"].Until.Equal(until) {
		t.Fatalf("recorded %+v", got)
	}
	s.record("x", nil) // removes it
	s.record("x", nil) // nothing left to remove
	if got, _ := ReadDisabled(state, time.Now()); len(got) != 0 {
		t.Fatalf("still recorded: %+v", got)
	}
	if log.Len() != 0 {
		t.Fatalf("warned although every clear worked:\n%s", log.String())
	}
	// A folder in the record's place cannot be removed: that is worth a warning.
	if err := os.MkdirAll(filepath.Join(disabledDir(state), "y.json", "keep"), 0o700); err != nil {
		t.Fatal(err)
	}
	s.record("y", nil)
	if !strings.Contains(log.String(), "could not clear a disable record") {
		t.Fatalf("no warning for a record that could not be removed:\n%s", log.String())
	}
}

// waitClock is a fakeClock that says, on waits, each wait it is asked for.
// The wait is registered before it is told: a test that advances the clock
// as soon as it hears of a wait must find the timer there to fire (told
// first, an Advance could run in between and the timer never fire — CI hung
// here for 28 minutes).
type waitClock struct {
	*fakeClock
	waits chan time.Duration
}

func (c waitClock) After(d time.Duration) <-chan time.Time {
	ch := c.fakeClock.After(d)
	c.waits <- d
	return ch
}

// After a crash the next launch waits out the backoff on the supervisor's
// clock; a caller that gives up meanwhile is told what it waited for.
func TestRelaunchWaitsOutTheBackoff(t *testing.T) {
	clock := waitClock{newFakeClock(), make(chan time.Duration, 16)}
	f := newFixture(t, nil, Options{Clock: clock, Backoff: time.Minute, DisableFor: time.Hour})
	wantCode(t, f.call(t, context.Background(), "crash", nil), wire.CodePluginCrashed)

	call := func(ctx context.Context) <-chan *wire.Result {
		done := make(chan *wire.Result, 1)
		go func() { done <- f.call(t, ctx, "echo", map[string]any{"text": "back"}) }()
		select {
		case d := <-clock.waits:
			if d != time.Minute {
				t.Fatalf("the relaunch waits %v, want the backoff of 1m", d)
			}
		case r := <-done:
			t.Fatalf("relaunched at once after a crash, without the backoff: %v", r)
		}
		return done
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := call(ctx)
	cancel()
	r := <-done
	wantCode(t, r, wire.CodeCancelled)
	if !strings.Contains(r.GetError().GetMessage(), "while waiting to relaunch after a crash") {
		t.Fatalf("cancelled during the backoff: %s", r.GetError().GetMessage())
	}
	done = call(context.Background())
	clock.Advance(time.Minute)
	if m := decode(t, <-done); m["text"] != "back" {
		t.Fatalf("after the backoff: %v", m)
	}
}
