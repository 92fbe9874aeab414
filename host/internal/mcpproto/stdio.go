package mcpproto

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxLineBytes bounds one inbound JSON-RPC line (as the SDK's own
// stdio transport does).
const DefaultMaxLineBytes = mcp.DefaultMaxLineLength

// CodeUnsupportedProtocolVersion is the JSON-RPC error for a modern request
// naming a protocol version the server does not list.
const CodeUnsupportedProtocolVersion = mcp.CodeUnsupportedProtocolVersion

// StdioTransport serves newline-delimited JSON-RPC 2.0 on In and Out, like
// the SDK's mcp.StdioTransport, with the strictness the host needs:
//
//   - a line that is not JSON gets -32700 (and one that is not a JSON-RPC
//     message, or is a batch, -32600), and serving goes on — the SDK's own
//     transport ends the session on the first bad line;
//   - a request whose _meta names a protocol version the server does not
//     list gets -32022 with {supported, requested} (the SDK treats any
//     version older than 2026-07-28 as a legacy request instead);
//   - tools/call requests carry their JSON-RPC id to the handler in _meta;
//   - when In ends, the calls already read are answered before the session
//     ends (the SDK cancels them and drops their answers).
type StdioTransport struct {
	In  io.Reader
	Out io.Writer
	// Versions are the protocol versions the server lists (default: the
	// SDK's).
	Versions []string
	// MaxLineBytes bounds one inbound line (0: DefaultMaxLineBytes).
	MaxLineBytes int
	// Logger receives transport diagnostics (default: none).
	Logger hclog.Logger
}

var _ mcp.Transport = (*StdioTransport)(nil)

// Connect implements mcp.Transport. It is called once per transport.
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	if t.In == nil || t.Out == nil {
		return nil, errors.New("mcp: stdio transport needs In and Out")
	}
	c := &stdioConn{
		out:      &lineWriter{w: t.Out},
		versions: t.Versions,
		logger:   t.Logger,
		msgs:     make(chan jsonrpc.Message),
		closed:   make(chan struct{}),
		pending:  map[any]string{},
		changed:  make(chan struct{}),
	}
	if len(c.versions) == 0 {
		c.versions = mcp.SupportedProtocolVersions()
	}
	if c.logger == nil {
		c.logger = hclog.NewNullLogger()
	}
	max := t.MaxLineBytes
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	go c.readLoop(t.In, max)
	return c, nil
}

// lineWriter writes whole lines under a lock, so responses from the SDK and
// errors from the transport never interleave.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) writeLine(b []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	buf := make([]byte, 0, len(b)+1)
	buf = append(append(buf, b...), '\n')
	if _, err := l.w.Write(buf); err != nil {
		return fmt.Errorf("mcp: write: %w", err)
	}
	return nil
}

type stdioConn struct {
	out      *lineWriter
	versions []string
	logger   hclog.Logger

	msgs      chan jsonrpc.Message // closed when input ends
	closed    chan struct{}
	closeOnce sync.Once

	mu      sync.Mutex
	pending map[any]string // request id → method, for calls read and not yet answered
	changed chan struct{}  // closed and replaced whenever pending shrinks
}

func (c *stdioConn) SessionID() string { return "" }

// readLoop reads lines until In ends, answering bad ones itself and handing
// good ones to Read.
func (c *stdioConn) readLoop(in io.Reader, max int) {
	defer close(c.msgs)
	r := bufio.NewReaderSize(in, 64*1024)
	for {
		line, tooLong, err := readLine(r, max)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if msg := c.check(line, tooLong); msg != nil {
				select {
				case c.msgs <- msg:
				case <-c.closed:
					return
				}
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				c.logger.Warn("reading stdin", "error", err)
			}
			return
		}
	}
}

// readLine reads one line without its end of line. A line longer than max
// is consumed and reported as tooLong (its bytes are not kept).
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+2 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// check turns one line into a message for the SDK, or answers it here and
// returns nil.
func (c *stdioConn) check(line []byte, tooLong bool) jsonrpc.Message {
	if tooLong {
		c.writeError(nil, jsonrpc.CodeParseError, "Parse error: message longer than the line limit", nil)
		return nil
	}
	line = bytes.TrimSpace(line)
	if !json.Valid(line) {
		c.writeError(nil, jsonrpc.CodeParseError, "Parse error: the line is not valid JSON", nil)
		return nil
	}
	if line[0] == '[' {
		c.writeError(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported (removed in MCP 2025-06-18)", nil)
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		c.writeError(rawID(line), jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error(), nil)
		return nil
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		return msg
	}
	if data := unsupportedVersion(req, c.versions); data != nil {
		c.writeError(req.ID.Raw(), CodeUnsupportedProtocolVersion, "Unsupported protocol version", data)
		return nil
	}
	if req.Method == "tools/call" {
		req.Params = withMeta(req.Params, requestIDMetaKey, fmt.Sprint(req.ID.Raw()))
	}
	return req
}

// unsupportedVersion returns the -32022 error data {supported, requested}
// when a call's _meta names a protocol version that is not in versions (the
// SDK only checks versions from 2026-07-28 on and treats older ones as a
// legacy request), else nil.
func unsupportedVersion(req *jsonrpc.Request, versions []string) json.RawMessage {
	if !req.IsCall() {
		return nil
	}
	var params struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(req.Params, &params)
	rawVersion, ok := params.Meta[mcp.MetaKeyProtocolVersion]
	if !ok {
		return nil
	}
	var v string
	if json.Unmarshal(rawVersion, &v) == nil && slices.Contains(versions, v) {
		return nil
	}
	data, _ := json.Marshal(map[string]any{"supported": versions, "requested": rawVersion})
	return data
}

// rawID is the "id" of a line that failed to decode as a message, when it
// has a usable one.
func rawID(line []byte) any {
	var v struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(line, &v) != nil {
		return nil
	}
	switch v.ID.(type) {
	case string, float64:
		return v.ID
	}
	return nil
}

// withMeta sets _meta[key] = value in a params object (creating both when
// absent). Params that are not an object are returned unchanged.
func withMeta(params json.RawMessage, key string, value any) json.RawMessage {
	obj := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(params)) > 0 && json.Unmarshal(params, &obj) != nil {
		return params
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := obj["_meta"]; ok && json.Unmarshal(raw, &meta) != nil {
		return params
	}
	v, err := json.Marshal(value)
	if err != nil {
		return params
	}
	meta[key] = v
	if obj["_meta"], err = json.Marshal(meta); err != nil {
		return params
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return params
	}
	return out
}

// wireResponse is a JSON-RPC error response written by the transport itself
// ("id" is null when the request's id is unknown, as JSON-RPC asks).
type wireResponse struct {
	JSONRPC string    `json:"jsonrpc"`
	ID      any       `json:"id"`
	Error   wireError `json:"error"`
}

type wireError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (c *stdioConn) writeError(id any, code int64, message string, data json.RawMessage) {
	b, err := json.Marshal(wireResponse{JSONRPC: "2.0", ID: id, Error: wireError{Code: code, Message: message, Data: data}})
	if err == nil {
		err = c.out.writeLine(b)
	}
	if err != nil {
		c.logger.Warn("writing an error response", "error", err)
	}
}

// Read implements mcp.Connection. At the end of input it waits until every
// call it handed out has been answered (a parked subscriptions/listen does
// not count), then reports io.EOF.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case msg, ok := <-c.msgs:
		if ok {
			c.track(msg)
			return msg, nil
		}
	}
	for {
		c.mu.Lock()
		busy := 0
		for _, method := range c.pending {
			if method != "subscriptions/listen" {
				busy++
			}
		}
		changed := c.changed
		c.mu.Unlock()
		if busy == 0 {
			return nil, io.EOF
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case <-changed:
		}
	}
}

// track records a call handed to the SDK; a notifications/cancelled drops
// the call it names (it may never be answered).
func (c *stdioConn) track(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return
	}
	if req.IsCall() {
		c.mu.Lock()
		c.pending[req.ID.Raw()] = req.Method
		c.mu.Unlock()
		return
	}
	if req.Method == "notifications/cancelled" {
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
				c.done(id.Raw())
			}
		}
	}
}

// done forgets an answered (or cancelled) call.
func (c *stdioConn) done(id any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending[id]; ok {
		delete(c.pending, id)
		close(c.changed)
		c.changed = make(chan struct{})
	}
}

// Write implements mcp.Connection.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("mcp: encode: %w", err)
	}
	err = c.out.writeLine(b)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.done(resp.ID.Raw())
	}
	return err
}

// Close implements mcp.Connection. The reader goroutine may stay blocked
// on In until the process exits; nothing else waits for it.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}
