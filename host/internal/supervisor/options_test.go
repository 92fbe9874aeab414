//go:build linux

package supervisor

import (
	"testing"
	"time"

	"github.com/toolhost/toolhost/registry"
)

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
