//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolhost/toolhost/plugins/usage/internal/source"
	"github.com/toolhost/toolhost/sdk"
)

// cpuTime is the process's user+system CPU time so far.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestBenchResident measures, in one resident process, a cold get-usage,
// a warm one on unchanged logs and one after appending about 1 MB, in CPU
// time and bytes read. It runs only when USAGE_BENCH_DATA names the
// generated Claude config folder (tests/bench/usage/bench.sh sets it); it
// asserts nothing about time, it reports.
func TestBenchResident(t *testing.T) {
	dir := os.Getenv("USAGE_BENCH_DATA")
	if dir == "" {
		t.Skip("USAGE_BENCH_DATA not set; run tests/bench/usage/bench.sh")
	}
	empty := t.TempDir()
	s := newService(func(k string) string {
		switch k {
		case "CLAUDE_CONFIG_DIR":
			return dir
		case "HOME":
			return empty
		}
		return ""
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := s.store.Watch(ctx); err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"from": "2000-01-01", "to": "2100-12-31", "by": "day", "timezone": "UTC", "limit": 100, "pricing": "ccusage"}
	measure := func(label string) (time.Duration, int64) {
		req, err := sdk.NewRequestFor("get-usage", args)
		if err != nil {
			t.Fatal(err)
		}
		c0, w0 := cpuTime(t), time.Now()
		if _, err := s.getUsage(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		cpu, wall := cpuTime(t)-c0, time.Since(w0)
		var st statusData
		s.store.View(func(snap *source.Snapshot) { st.Cache = snap.Stats })
		t.Logf("%-14s cpu %8.4fs wall %8.4fs bytes read %12d files parsed %5d", label, cpu.Seconds(), wall.Seconds(), st.Cache.BytesReadLast, st.Cache.FilesParsed)
		return cpu, st.Cache.BytesReadLast
	}
	cold, coldBytes := measure("cold")
	warm, warmBytes := measure("warm")
	if n, _ := strconv.Atoi(os.Getenv("USAGE_BENCH_WARM_LOOPS")); n > 0 {
		for range n {
			req, _ := sdk.NewRequestFor("get-usage", args)
			_, _ = s.getUsage(context.Background(), req)
		}
	}
	// Append about 1 MB of new requests to one session file.
	var file string
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if file == "" && err == nil && strings.HasSuffix(p, ".jsonl") {
			file = p
		}
		return nil
	})
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	// Leave the generated data as it was, for the next run.
	defer func() { _ = os.Truncate(file, fi.Size()); _ = os.Chtimes(file, fi.ModTime(), fi.ModTime()) }()
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("lorem ipsum dolor sit amet ", 70)
	var appended int
	for i := 0; appended < 1<<20; i++ {
		line := fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/work/bench","sessionId":"bench","version":"2.0.14","gitBranch":"main","message":{"id":"msg_bench_%d","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"%s"}],"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":1000,"output_tokens":100}},"requestId":"req_bench_%d","type":"assistant","uuid":"u%d","timestamp":"2026-06-02T12:00:00.000Z"}`+"\n", i, pad, i, i)
		n, err := f.WriteString(line)
		if err != nil {
			t.Fatal(err)
		}
		appended += n
	}
	f.Close()
	// The next call comes after the watcher has seen the write, as an
	// agent's next call would.
	time.Sleep(300 * time.Millisecond)
	app, appBytes := measure("after +1 MB")
	out := map[string]any{
		"cold_cpu_s": cold.Seconds(), "cold_bytes_read": coldBytes,
		"warm_cpu_s": warm.Seconds(), "warm_bytes_read": warmBytes, "warm_ratio": warm.Seconds() / cold.Seconds(),
		"append_cpu_s": app.Seconds(), "append_bytes": appended, "append_bytes_read": appBytes, "append_ratio": app.Seconds() / cold.Seconds(),
	}
	b, _ := json.Marshal(out)
	t.Logf("RESULT %s", b)
	if path := os.Getenv("USAGE_BENCH_OUT"); path != "" {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
