package main

import (
	"os"
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
