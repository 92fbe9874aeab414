package main

import (
	"os"
	"runtime"
	"runtime/debug"
)

// serveGCPercent is the garbage collector's target while `host serve`
// runs, unless GOGC is set. The host's live heap is small (the registry
// snapshot, a session's state) while every MCP message the go-sdk decodes
// allocates a 32 KiB buffer: at the default 100 the collector and the
// scavenger returning those pages to the OS took about a fifth of the
// host's CPU per warm call in `make bench-host` profiles. At 400 the heap
// may grow to five times the live heap between collections (a few tens of
// MiB here) and a collection runs a quarter as often.
const serveGCPercent = 400

// tuneGC sets serveGCPercent unless the person running the host chose with
// GOGC (which the runtime has already applied).
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(serveGCPercent)
	}
}

// stdioProcs is how many threads run the host's Go code at once
// (GOMAXPROCS) while it serves one client over stdio, unless GOMAXPROCS is
// set. The host's own work per call is small (tens of microseconds: read
// a line, check it, hand it to the plugin over gRPC, write the answer);
// what costs is threads waking threads. With a second P idle, every
// goroutine made ready (the call handed to a worker, gRPC's writer, the
// answer arriving) wakes another thread through a futex to look for work
// that the current thread then does itself: a system call and a sleep and
// wake-up for nothing, on the call's path. On one P a ready goroutine runs
// next on the same thread. Measured with two hosts interleaved in one run
// (BenchmarkHostSpeed's lean client, machine load 14-16), 1 P against 2:
// a run_tool at a time, p50 525 µs against 621 µs; 8 in flight, 3597
// calls/s against 2933 and host-and-plugin CPU per call 280 µs against
// 345 µs (another run: 2633/s against 1881, 325 µs against 490). Plugins are their own processes and keep every core; HTTP serving
// (many clients) keeps the runtime's default.
const stdioProcs = 1

// tuneProcs sets stdioProcs unless the person running the host chose with
// GOMAXPROCS (which the runtime has already applied).
func tuneProcs() {
	if _, set := os.LookupEnv("GOMAXPROCS"); !set {
		runtime.GOMAXPROCS(stdioProcs)
	}
}
