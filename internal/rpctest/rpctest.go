// Package rpctest is the one JSON-RPC test driver: it talks to an MCP
// server over newline-delimited JSON-RPC exactly as a stdio client does,
// whether the server runs in the test's process (io.Pipe) or is a
// `host serve` process (its stdin and stdout).
package rpctest

import (
	"bufio"
	"encoding/json"
	"io"
	"testing"
	"time"
)

// Wait bounds how long Next waits for a line, so that a server that never
// answers fails the test instead of hanging the run. It is generous: the
// tests run on loaded machines, and no test measures time with it.
const Wait = 2 * time.Minute

// Conn is one client connection: lines go to the server's input, and every
// line it writes is read in order.
type Conn struct {
	t     testing.TB
	in    io.WriteCloser
	lines chan string
	ended chan struct{}
	// Context, when set, adds to a failure message (e.g. the server's
	// stderr).
	Context func() string
}

// New reads out line by line (lines up to 16 MiB) until it ends, and
// writes to in. Closing in (Close) is the client hanging up.
func New(t testing.TB, in io.WriteCloser, out io.Reader) *Conn {
	c := &Conn{t: t, in: in, lines: make(chan string, 1000), ended: make(chan struct{})}
	go func() {
		defer close(c.ended)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	return c
}

// Ended is closed once the server's output has ended and every line of it
// was read (a process's Wait may then be called).
func (c *Conn) Ended() <-chan struct{} { return c.ended }

// Lines is every line the server writes, closed when its output ends.
func (c *Conn) Lines() <-chan string { return c.lines }

// Close closes the server's input.
func (c *Conn) Close() error { return c.in.Close() }

// Send writes one line.
func (c *Conn) Send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("rpctest: write %.200s: %v", line, err)
	}
}

// NextLine returns the next line the server wrote, which must be JSON.
func (c *Conn) NextLine() string {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			c.t.Fatalf("rpctest: the server closed its output%s", c.context())
		}
		if !json.Valid([]byte(line)) {
			c.t.Fatalf("rpctest: the server wrote a line that is not JSON (stream corrupted): %q", line)
		}
		return line
	case <-time.After(Wait):
		c.t.Fatalf("rpctest: no line from the server in %v%s", Wait, c.context())
	}
	return ""
}

// Next returns the next line the server wrote, decoded.
func (c *Conn) Next() map[string]any {
	c.t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(c.NextLine()), &m); err != nil {
		c.t.Fatalf("rpctest: decode: %v", err)
	}
	return m
}

// Exchange sends one line and returns every line the server wrote up to
// and including the answer to it: none for a notification; for a line
// that is not a request (malformed), up to the answer with a null id.
func (c *Conn) Exchange(line string) []string {
	c.t.Helper()
	c.Send(line)
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	isJSON := json.Unmarshal([]byte(line), &msg) == nil
	if isJSON && msg.Method != "" && len(msg.ID) == 0 {
		return nil
	}
	want := "null"
	if isJSON && len(msg.ID) > 0 {
		want = string(msg.ID)
	}
	var out []string
	for {
		got := c.NextLine()
		out = append(out, got)
		var resp struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal([]byte(got), &resp)
		if resp.Method == "" && string(resp.ID) == want {
			return out
		}
	}
}

// Call sends a request and returns its answer, decoded; what the server
// wrote before it (notifications) is skipped.
func (c *Conn) Call(line string) map[string]any {
	c.t.Helper()
	lines := c.Exchange(line)
	var m map[string]any
	if len(lines) == 0 {
		c.t.Fatalf("rpctest: %.200s is a notification: it has no answer", line)
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &m); err != nil {
		c.t.Fatalf("rpctest: decode: %v", err)
	}
	return m
}

// Initialize runs the handshake (protocol 2025-11-25) as client name.
func (c *Conn) Initialize(name string) {
	c.t.Helper()
	r := c.Call(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"` + name + `","version":"9.9"}}}`)
	if r["error"] != nil {
		c.t.Fatalf("rpctest: initialize: %v", r["error"])
	}
	c.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func (c *Conn) context() string {
	if c.Context == nil {
		return ""
	}
	return "\n" + c.Context()
}
