package mcpproto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAppendToolResultAgreesWithTheSDK: the fast path's direct encoding of
// a tool result gives the bytes the SDK's encoding gives, for every result
// shape it takes, and declines every other shape.
func TestAppendToolResultAgreesWithTheSDK(t *testing.T) {
	text := func(s string) []mcp.Content { return []mcp.Content{&mcp.TextContent{Text: s}} }
	tests := []struct {
		name string
		res  *mcp.CallToolResult
		ok   bool
	}{
		{"json", &mcp.CallToolResult{Content: text(`{"a":1}`), StructuredContent: json.RawMessage(`{"a":1}`)}, true},
		{"error", &mcp.CallToolResult{Content: text(`{"error":{"code":"x"}}`), StructuredContent: json.RawMessage(`{"error":{"code":"x"}}`), IsError: true}, true},
		{"markdown", &mcp.CallToolResult{Content: text("# T\n\n| a |\n|---|\n| <b> & \"q\" \\ |\n"), StructuredContent: json.RawMessage(`{"rows":[1,2]}`)}, true},
		{"spaced raw json", &mcp.CallToolResult{Content: text("x"), StructuredContent: json.RawMessage("{ \"a\" :\n [ 1 , \"<&>\" ] ,\t\"b\": {} }")}, true},
		{"line separators and controls", &mcp.CallToolResult{Content: text("a\u2028b\u2029c\x00\x01\b\f\n\r\t\x7f é 😀"), StructuredContent: json.RawMessage(`{"s":"a\u2028b  c"}`)}, true},
		{"invalid UTF-8 text", &mcp.CallToolResult{Content: text("bad \xff\xfe here")}, true},
		{"empty text", &mcp.CallToolResult{Content: text("")}, true},
		{"no content", &mcp.CallToolResult{Content: []mcp.Content{}}, true},
		{"spaces inside strings", &mcp.CallToolResult{Content: text("x"), StructuredContent: json.RawMessage(`{"s":"a b\" c\\","t":["x y",1]}`)}, true},
		{"escaped backslash then space between tokens", &mcp.CallToolResult{Content: text("x"), StructuredContent: json.RawMessage(`{"s":"a\\" ,"t":1}`)}, true},
		{"raw null", &mcp.CallToolResult{Content: text("null"), StructuredContent: json.RawMessage(`null`)}, true},
		{"raw array", &mcp.CallToolResult{Content: text("[]"), StructuredContent: json.RawMessage(`[1,"<"]`)}, true},
		{"large", &mcp.CallToolResult{Content: text(strings.Repeat("<x>", 50000)), StructuredContent: json.RawMessage(`{"s":"` + strings.Repeat("ab&", 50000) + `"}`)}, true},
		{"nil content", &mcp.CallToolResult{}, false},
		{"two contents", &mcp.CallToolResult{Content: append(text("a"), &mcp.TextContent{Text: "b"})}, false},
		{"text with annotations", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a", Annotations: &mcp.Annotations{Priority: 1}}}}, false},
		{"image", &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: []byte("x"), MIMEType: "image/png"}}}, false},
		{"result _meta", &mcp.CallToolResult{Meta: mcp.Meta{"k": 1}, Content: text("a")}, false},
		{"structured map", &mcp.CallToolResult{Content: text("a"), StructuredContent: map[string]any{"a": 1}}, false},
		{"structured invalid", &mcp.CallToolResult{Content: text("a"), StructuredContent: json.RawMessage(`{"a":`)}, false},
		{"request state", &mcp.CallToolResult{Content: text("a"), RequestState: "s"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := appendToolResult([]byte("prefix"), tt.res)
			if ok != tt.ok {
				t.Fatalf("appendToolResult took it: %v, want %v", ok, tt.ok)
			}
			if !ok {
				if string(got) != "prefix" {
					t.Fatalf("declined but appended: %q", got)
				}
				return
			}
			want, err := marshalResult(tt.res)
			if err != nil {
				t.Fatal(err)
			}
			if g := strings.TrimPrefix(string(got), "prefix"); g != string(want) {
				t.Fatalf("bytes differ\ngot:  %.400s\nwant: %.400s", g, want)
			}
		})
	}
}

// TestPlainJSONIsWhatCompactAndEscapeLeave: valid JSON that plainJSON
// lets through as it is comes out of json.Compact and json.HTMLEscape
// unchanged, and every kind of byte those rewrite sends it the long way.
func TestPlainJSONIsWhatCompactAndEscapeLeave(t *testing.T) {
	tests := []struct {
		raw   string
		plain bool
	}{
		{`{"a":1}`, true},
		{`{"s":"a b\tc"}`, true},
		{`{"s":"q\"  \\"}`, true},
		{`["\\",1,{"k":[true,null]}]`, true},
		{`{"s":"é😀"}`, true},
		{`{"a": 1}`, false},
		{"{\"a\":1}\n", false},
		{"{\"a\":[1,\r2]}", false},
		{"{\"a\":\t1}", false},
		{`{"s":"\\" ,"t":1}`, false},
		{`{"s":"<b>"}`, false},
		{`{"s":"a&b"}`, false},
		{`{"s":">"}`, false},
		{"{\"s\":\"a\u2028b\"}", false},
		{"{\"s\":\"a\u2029b\"}", false},
		{"{\"s\":\"a\u20acb\"}", false}, // 0xE2 starts €: looked at closer, and unchanged
	}
	for _, tt := range tests {
		raw := []byte(tt.raw)
		if !json.Valid(raw) {
			t.Fatalf("%q: not valid JSON (a bad case)", tt.raw)
		}
		if got := plainJSON(raw); got != tt.plain {
			t.Errorf("plainJSON(%q) = %v, want %v", tt.raw, got, tt.plain)
		}
		var compact, escaped bytes.Buffer
		if err := json.Compact(&compact, raw); err != nil {
			t.Fatal(err)
		}
		json.HTMLEscape(&escaped, compact.Bytes())
		if plainJSON(raw) && escaped.String() != tt.raw {
			t.Errorf("plainJSON passed %q as it is, but Compact and HTMLEscape give %q", tt.raw, escaped.String())
		}
	}
}

// gateWriter records each Write; the first one waits for release.
type gateWriter struct {
	mu      sync.Mutex
	writes  []string
	entered chan struct{}
	release chan struct{}
	err     error
}

func (g *gateWriter) Write(b []byte) (int, error) {
	g.mu.Lock()
	first := len(g.writes) == 0
	g.writes = append(g.writes, string(b))
	g.mu.Unlock()
	if first {
		close(g.entered)
		<-g.release
	}
	return len(b), g.err
}

// TestAnswersReadyTogetherShareOneWrite: with gather set (stdio), a
// writer yields before it writes, and the answers that become ready while
// it yields go out in its write, each writer learning how it went.
func TestAnswersReadyTogetherShareOneWrite(t *testing.T) {
	for _, failing := range []bool{false, true} {
		g := &gateWriter{entered: make(chan struct{}), release: make(chan struct{})}
		close(g.release)
		if failing {
			g.err = errors.New("broken pipe")
		}
		l := &lineWriter{w: g}
		errs := make(chan error, 3)
		yielded := false
		l.gather = func() { // two more answers become ready during the yield
			yielded = true
			for i := 1; i <= 2; i++ {
				go func() { errs <- l.writeLine([]byte(fmt.Sprintf(`{"id":%d}`, i))) }()
			}
			for queued := 0; queued < 2; runtime.Gosched() {
				l.mu.Lock()
				if l.next != nil {
					queued = bytes.Count(l.next.buf, []byte("\n"))
				}
				l.mu.Unlock()
			}
		}
		errs <- l.writeLine([]byte(`{"id":0}`))
		if !yielded {
			t.Fatal("the writer wrote without yielding first")
		}
		for range 3 {
			if err := <-errs; (err != nil) != failing {
				t.Errorf("failing %v: writeLine: %v", failing, err)
			}
		}
		if len(g.writes) != 1 || !strings.HasPrefix(g.writes[0], "{\"id\":0}\n") {
			t.Fatalf("writes %q: want one write, the yielding writer's line first", g.writes)
		}
		got := strings.Split(strings.TrimSuffix(g.writes[0], "\n"), "\n")[1:]
		sort.Strings(got)
		if want := []string{`{"id":1}`, `{"id":2}`}; !slices.Equal(got, want) {
			t.Fatalf("the write's other lines are %q, want %q", got, want)
		}
	}
}

// TestLinesReadyDuringAWriteGoOutInOneWrite: answers that become ready
// while a write is in progress are written together, whole, by one write,
// and each writer learns how its line's write went.
func TestLinesReadyDuringAWriteGoOutInOneWrite(t *testing.T) {
	for _, failing := range []bool{false, true} {
		g := &gateWriter{entered: make(chan struct{}), release: make(chan struct{})}
		if failing {
			g.err = errors.New("broken pipe")
		}
		l := &lineWriter{w: g}
		errs := make(chan error, 4)
		go func() { errs <- l.writeLine([]byte(`{"id":0}`)) }()
		<-g.entered
		for i := 1; i <= 3; i++ {
			go func() { errs <- l.writeLine([]byte(fmt.Sprintf(`{"id":%d}`, i))) }()
		}
		for queued := 0; queued < 3; runtime.Gosched() { // wait until the three are queued
			l.mu.Lock()
			if l.next != nil {
				queued = bytes.Count(l.next.buf, []byte("\n"))
			}
			l.mu.Unlock()
		}
		close(g.release)
		for range 4 {
			if err := <-errs; (err != nil) != failing {
				t.Errorf("failing %v: writeLine: %v", failing, err)
			}
		}
		if len(g.writes) != 2 || g.writes[0] != "{\"id\":0}\n" {
			t.Fatalf("writes %q: want the first line, then the three queued in one write", g.writes)
		}
		got := strings.Split(strings.TrimSuffix(g.writes[1], "\n"), "\n")
		sort.Strings(got)
		if want := []string{`{"id":1}`, `{"id":2}`, `{"id":3}`}; !slices.Equal(got, want) {
			t.Fatalf("second write has lines %q, want %q", got, want)
		}
	}
}
