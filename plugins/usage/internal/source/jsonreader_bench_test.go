//go:build unix

package source

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/toolhost/toolhost/tests/usagegen"
)

// claudeEntry is what the Claude Code parser reads of an assistant line,
// for a decoder that fills a struct.
type claudeEntry struct {
	Type        string `json:"type"`
	Timestamp   string `json:"timestamp"`
	RequestID   string `json:"requestId"`
	SessionID   string `json:"sessionId"`
	Cwd         string `json:"cwd"`
	IsSidechain bool   `json:"isSidechain"`
	IsMeta      bool   `json:"isMeta"`
	Message     struct {
		ID      string `json:"id"`
		Model   string `json:"model"`
		Role    string `json:"role"`
		Content []struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"content"`
		Usage struct {
			Input         int64  `json:"input_tokens"`
			Output        int64  `json:"output_tokens"`
			CacheRead     int64  `json:"cache_read_input_tokens"`
			CacheCreation int64  `json:"cache_creation_input_tokens"`
			Speed         string `json:"speed"`
			CacheBuckets  struct {
				M5 int64 `json:"ephemeral_5m_input_tokens"`
				H1 int64 `json:"ephemeral_1h_input_tokens"`
			} `json:"cache_creation"`
		} `json:"usage"`
	} `json:"message"`
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkColdScanJSONReaders: a cold scan of generated Claude Code logs
// by the parser as it is (jsonscan), against decoding the same lines with
// encoding/json into the fields the parser reads (the decode alone, nothing
// kept: a lower bound of a parser built on it). docs/design.md gives the
// figures. USAGE_JSON_BENCH_MB sets the size of the logs (default 200).
func BenchmarkColdScanJSONReaders(b *testing.B) {
	mb := 200
	if v, err := strconv.Atoi(os.Getenv("USAGE_JSON_BENCH_MB")); err == nil {
		mb = v
	}
	dir := b.TempDir()
	exp, err := usagegen.Generate(dir, usagegen.Config{Seed: 1, TargetBytes: int64(mb) << 20, CodexSessionsPerDay: -1})
	if err != nil {
		b.Fatal(err)
	}
	env := Env(func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return exp.ClaudeDir
		}
		return ""
	})
	dsc, err := Claude{}.Discover(env)
	if err != nil || len(dsc.Sources) == 0 {
		b.Fatalf("discover: %v (%d files)", err, len(dsc.Sources))
	}
	var total int64
	for _, s := range dsc.Sources {
		fi, _ := os.Stat(s.Path)
		total += fi.Size()
	}
	b.Logf("%d files, %d MB", len(dsc.Sources), total>>20)
	decode := func(unmarshal func([]byte, any) error) func(b *testing.B) {
		return func(b *testing.B) {
			calls := 0
			for _, s := range dsc.Sources {
				st := &FileState{Source: s}
				err := readLines(context.Background(), st, func(line []byte) {
					// The same first sieve as the parser's: only lines that
					// can be an assistant response are decoded.
					if !bytes.Contains(line, needleAssistant) {
						return
					}
					var e claudeEntry
					if unmarshal(line, &e) == nil && e.Message.Role == "assistant" {
						calls++
					}
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			if calls == 0 {
				b.Fatal("no calls decoded")
			}
		}
	}
	arms := []struct {
		name string
		run  func(b *testing.B)
	}{
		{"jsonscan", func(b *testing.B) {
			s := NewStore(env, 1, Claude{})
			s.Refresh(context.Background(), nil)
			s.View(func(snap *Snapshot) {
				if len(snap.Calls) == 0 {
					b.Fatal("no calls")
				}
			})
		}},
		{"encoding-json", decode(json.Unmarshal)},
	}
	for round := range 3 {
		for _, arm := range arms {
			b.Run(arm.name+"/round"+strconv.Itoa(round), func(b *testing.B) {
				c0 := cpuNow()
				for b.Loop() {
					arm.run(b)
				}
				b.ReportMetric((cpuNow()-c0).Seconds()/float64(b.N), "cpu-s/op")
				b.SetBytes(total)
			})
		}
	}
}
