package source

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/toolhost/toolhost/plugins/usage/internal/jsonscan"
)

var claudeSeeds = []string{
	`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/u/p","sessionId":"s","version":"2.0.14","gitBranch":"main","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"a \"quoted\" usage\":{ word"}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"cache_creation_input_tokens":10,"cache_read_input_tokens":100,"cache_creation":{"ephemeral_5m_input_tokens":4,"ephemeral_1h_input_tokens":6},"output_tokens":7,"service_tier":"standard"}},"requestId":"req_1","type":"assistant","uuid":"u1","timestamp":"2026-06-01T10:00:00.000Z"}`,
	`{"parentUuid":"x","isSidechain":true,"cwd":"/p","sessionId":"s","message":{"id":"msg_2","type":"message","role":"assistant","model":"claude-opus-4-5","content":[{"type":"tool_use","id":"toolu_1","name":"Edit","input":{"file_path":"/p/a.go","old_string":"{\"usage\":{}}","new_string":"x"}}],"usage":{"input_tokens":1,"output_tokens":2}},"requestId":"req_2","type":"assistant","uuid":"u2","timestamp":"2026-06-01T10:00:01.000Z"}`,
	`{"type":"assistant","timestamp":"2026-06-01T10:00:01.000Z","message":{"model":"claude-haiku-4-5","usage":{"input_tokens":1,"output_tokens":2},"content":[{"type":"text","text":"usage first"}],"id":"m"},"requestId":"r"}`,
	`{"cwd":"/p","message":{"id":"m","role":"assistant","model":"x","content":[],"usage":{"input_tokens":1}},"requestId":"r","type":"assistant","timestamp":"2026-06-01T10:00:01.000Z","costUSD":0.5}`,
	`{"cwd":"/p","message":{"id":"m","role":"assistant","model":"x","content":[],"usage":{"input_tokens":1`,
}

// FuzzAssistantFast: whenever both readers accept a line, the head-and-tail
// reader reads exactly what the full decoder reads. (The fast reader does
// not validate the content it skips, so a line malformed only inside its
// content may pass it; truncated lines, the malformation logs have, never
// do: TestTruncatedLines.)
func FuzzAssistantFast(f *testing.F) {
	for _, s := range claudeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		fast, ok := assistantFast([]byte(line))
		if !ok {
			return
		}
		full, ok := assistantFull([]byte(line))
		if !ok {
			return
		}
		eq := func(a, b []byte) bool { return bytes.Equal(a, b) }
		if !eq(fast.typ, full.typ) || !eq(fast.ts, full.ts) || !eq(fast.reqID, full.reqID) || !eq(fast.msgID, full.msgID) ||
			!eq(fast.model, full.model) || !eq(fast.cwdRaw, full.cwdRaw) || !eq(fast.usage, full.usage) {
			t.Fatalf("fast %+v, full %+v for %q", fast, full, line)
		}
		if want, ok := usageFields(full.usage); fast.tokensOK && (!ok || fast.tokens != want) {
			t.Fatalf("fast tokens %+v, full %+v (ok %v) for %q", fast.tokens, want, ok, line)
		}
	})
}

func TestAssistantLayouts(t *testing.T) {
	tests := []struct {
		name     string
		line     string
		fastOK   bool
		wantIn   uint32
		wantStep StepKind
	}{
		{"claude code layout", claudeSeeds[0], true, 3, 0},
		{"tool use with a usage-like input", claudeSeeds[1], true, 1, StepEdit},
		{"usage before content", claudeSeeds[2], false, 1, 0},
		{"legacy costUSD", claudeSeeds[3], true, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ok := assistantFast([]byte(tt.line))
			if ok != tt.fastOK {
				t.Errorf("fast path: got %v, want %v", ok, tt.fastOK)
			}
			st := &FileState{ID: 1}
			Claude{}.assistant(st, &claudeCarry{}, []byte(tt.line))
			if len(st.Calls) != 1 {
				t.Fatalf("got %d calls, want 1 (skipped %d)", len(st.Calls), st.Skipped)
			}
			c := &st.Calls[0]
			if c.In != tt.wantIn {
				t.Errorf("got input %d, want %d", c.In, tt.wantIn)
			}
			if tt.wantStep != 0 && (len(c.Steps()) != 1 || c.Steps()[0].Kind != tt.wantStep) {
				t.Errorf("got steps %+v, want one of kind %d", c.Steps(), tt.wantStep)
			}
		})
	}
	t.Run("cache write split", func(t *testing.T) {
		st := &FileState{ID: 1}
		Claude{}.assistant(st, &claudeCarry{}, []byte(claudeSeeds[0]))
		got := st.Calls[0].Tokens()
		if got.CacheWrite5m != 4 || got.CacheWrite1h != 6 || got.CacheRead != 100 || got.Output != 7 {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("truncated line is skipped", func(t *testing.T) {
		st := &FileState{ID: 1}
		Claude{}.assistant(st, &claudeCarry{}, []byte(claudeSeeds[4]))
		if len(st.Calls) != 0 || st.Skipped != 1 {
			t.Errorf("got %d calls, %d skipped", len(st.Calls), st.Skipped)
		}
	})
}

// TestTruncatedLines: no proper prefix of a well-formed line is accepted.
func TestTruncatedLines(t *testing.T) {
	for _, seed := range claudeSeeds[:4] {
		for n := 1; n < len(seed); n++ {
			if _, ok := assistantFast([]byte(seed[:n])); ok {
				t.Errorf("accepted the first %d bytes of %q", n, seed)
			}
		}
	}
}

func TestParseUTC(t *testing.T) {
	for _, s := range []string{"2026-06-01T10:00:00.000Z", "2024-02-29T23:59:59.999Z", "1999-12-31T00:00:00Z", "2026-03-01T00:00:00.1234567Z", "2000-01-01T00:00:00.5Z"} {
		got, ok := parseUTC([]byte(`"` + s + `"`))
		want, err := time.Parse(time.RFC3339Nano, s)
		if !ok || err != nil || got != want.UnixMilli() {
			t.Errorf("%s: got %d %v, want %d", s, got, ok, want.UnixMilli())
		}
	}
	for _, s := range []string{`"2026-06-01T10:00:00+02:00"`, `"2026-13-01T10:00:00Z"`, `"2026-06-01 10:00:00Z"`, `"x"`} {
		if _, ok := parseUTC([]byte(s)); ok {
			t.Errorf("%s: accepted", s)
		}
	}
}

// TestBlockSteps: the tool uses of every content block of one response are
// kept, whichever copy carries the largest usage.
func TestBlockSteps(t *testing.T) {
	line := func(block string, out int) string {
		return `{"cwd":"/p","message":{"id":"m1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[` + block +
			`],"usage":{"input_tokens":5,"output_tokens":` + fmt.Sprint(out) + `}},"requestId":"r1","type":"assistant","timestamp":"2026-06-01T10:00:00.000Z"}`
	}
	edit := `{"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":"/p/a.go"}}`
	bash := `{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"go test ./..."}}`
	text := `{"type":"text","text":"ok"}`
	st := &FileState{ID: 1}
	carry := &claudeCarry{}
	for _, l := range []string{line(edit, 1), line(text, 1), line(bash, 9)} {
		Claude{}.assistant(st, carry, []byte(l))
	}
	if len(st.Calls) != 1 {
		t.Fatalf("got %d calls, want 1", len(st.Calls))
	}
	c := &st.Calls[0]
	var kinds []StepKind
	for _, s := range c.Steps() {
		kinds = append(kinds, s.Kind)
	}
	if c.Out != 9 || len(kinds) != 2 || kinds[0] != StepEdit || kinds[1] != StepTest {
		t.Errorf("got output %d steps %v, want 9 and [edit test]", c.Out, kinds)
	}
}

// FuzzReadUsage: whenever the one-pass usage reader accepts an object, it
// reads what the field-by-field reader reads, and ends where the value ends.
func FuzzReadUsage(f *testing.F) {
	for _, s := range []string{
		`{"input_tokens":3,"cache_creation_input_tokens":10,"cache_read_input_tokens":100,"cache_creation":{"ephemeral_5m_input_tokens":4,"ephemeral_1h_input_tokens":6},"output_tokens":7,"service_tier":"standard"}`,
		`{"input_tokens":1,"output_tokens":2,"server_tool_use":{"web_search_requests":0,"web_fetch_requests":0},"service_tier":null}`,
		`{"input_tokens":1,"cache_creation":{},"cache_creation":{"ephemeral_1h_input_tokens":5},"output_tokens":"7"}`,
		`{"input_tokens":1.5,"output_tokens":-2}`,
		`{"input_tokens":1, "output_tokens":2}`,
		`{"input_tokens":1,"cache_creation":null,"x":[1,{"a":"}"}]}`,
		`{}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, u string) {
		b := []byte(u + `,"tail":1}`)
		got, end, ok := readUsage(b, 0)
		if !ok {
			return
		}
		want, wok := usageFields(b[:end])
		wend, err := jsonscan.ValueEnd(b, 0)
		if !wok || err != nil || wend != end || got != want {
			t.Fatalf("readUsage %+v end %d, usageFields %+v (ok %v) end %d (%v) for %q", got, end, want, wok, wend, err, u)
		}
	})
}

// FuzzShellKind: the copy-free classifier agrees with ShellKind.
func FuzzShellKind(f *testing.F) {
	for _, s := range []string{"go test ./...", "  git   status", "git commit -m x", "npm run testing", "cargo vet", "ls -la",
		"python -m pytest", "make", "", "\t", "go\u00a0test", "echo\vhi", "deno  x  test", "git"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		if got, want := shellKind([]byte(cmd)), ShellKind(cmd); got != want {
			t.Fatalf("shellKind(%q) = %d, ShellKind = %d", cmd, got, want)
		}
	})
}
