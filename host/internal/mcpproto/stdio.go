package mcpproto

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

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
	// Stop, when closed, ends reading as the end of In does: the calls
	// already read are answered, then the session ends (the host's SIGTERM
	// drain). Nil never stops.
	Stop <-chan struct{}

	// fast, when set (by Server.Run), answers the tools/call requests it
	// can vouch for without the SDK (fastpath.go).
	fast *fastPath
}

var _ mcp.Transport = (*StdioTransport)(nil)

// Connect implements mcp.Transport. It is called once per transport.
func (t *StdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	if t.In == nil || t.Out == nil {
		return nil, errors.New("mcp: stdio transport needs In and Out")
	}
	c := newStdioConn(t.Out, t.Versions, t.Logger, t.Stop)
	c.fast = t.fast
	// A fast-path call sees the values of the session's context, as the
	// SDK's calls do; it is cancelled by the client or when the session
	// closes, never by the end of ctx alone (the SDK's calls neither).
	c.base, c.cancelBase = context.WithCancel(context.WithoutCancel(ctx))
	max := t.MaxLineBytes
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	go c.readLoop(t.In, max)
	return c, nil
}

// newStdioConn is a connection writing to out; its reader is started by
// Connect.
func newStdioConn(out io.Writer, versions []string, logger hclog.Logger, stop <-chan struct{}) *stdioConn {
	c := &stdioConn{
		out:      &lineWriter{w: out, gather: runtime.Gosched},
		versions: versions,
		logger:   logger,
		msgs:     make(chan jsonrpc.Message),
		stop:     stop,
		closed:   make(chan struct{}),
		pending:  map[int64]*call{},
		byWire:   map[string][]int64{},
		changed:  make(chan struct{}),
		work:     make(chan fastJob),
	}
	c.base, c.cancelBase = context.WithCancel(context.Background())
	if len(c.versions) == 0 {
		c.versions = mcp.SupportedProtocolVersions()
	}
	if c.logger == nil {
		c.logger = hclog.NewNullLogger()
	}
	return c
}

// lineWriter writes whole lines, so responses from the SDK and errors from
// the transport never interleave. Lines that become ready while a write is
// in progress go out together in the next write: with several calls in
// flight, one write system call (and one wake-up of the client) carries
// many answers.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
	// writing is set while a caller writes; the lines queued meanwhile
	// wait in next, and that caller writes them too before it returns.
	writing bool
	// gather, when set, is called once by a writer before its write (over
	// stdio, runtime.Gosched): answers that become ready meanwhile share
	// that write. On one thread (host serve over stdio) the yield runs
	// exactly the goroutines ready at that moment: answers gRPC delivered
	// from the same read.
	gather func()
	next   *lineBatch
	spare  []byte // a written batch's buffer, reused
}

// lineBatch is lines queued behind a write in progress; done closes once
// they are written, err then says how that went.
type lineBatch struct {
	buf  []byte
	done chan struct{}
	err  error
}

// writeLine writes b and a newline, whole, and returns once they are
// written. It appends the newline to b itself (the encoders leave room
// for it), so the caller must not use b again.
func (l *lineWriter) writeLine(b []byte) error {
	b = append(b, '\n')
	l.mu.Lock()
	if l.writing {
		if l.next == nil {
			l.next = &lineBatch{buf: l.spare[:0], done: make(chan struct{})}
			l.spare = nil
		}
		batch := l.next
		batch.buf = append(batch.buf, b...)
		l.mu.Unlock()
		<-batch.done
		return batch.err
	}
	l.writing = true
	l.mu.Unlock()
	if l.gather != nil {
		l.gather()
		l.mu.Lock()
		joined := l.next
		l.next = nil
		l.mu.Unlock()
		if joined != nil {
			b = append(b, joined.buf...)
			err := l.write(b)
			joined.err = err
			close(joined.done)
			l.reuse(joined.buf)
			return l.drain(err)
		}
	}
	return l.drain(l.write(b))
}

// drain writes, as the writer in turn, the lines queued while it wrote,
// then gives up the turn; it returns err, how the turn's own line went.
func (l *lineWriter) drain(err error) error {
	for {
		l.mu.Lock()
		batch := l.next
		l.next = nil
		if batch == nil {
			l.writing = false
			l.mu.Unlock()
			return err
		}
		l.mu.Unlock()
		batch.err = l.write(batch.buf)
		close(batch.done)
		l.reuse(batch.buf)
	}
}

// reuse keeps a written batch's buffer for the next batch, unless large.
func (l *lineWriter) reuse(buf []byte) {
	if cap(buf) <= maxPooledLine {
		l.mu.Lock()
		l.spare = buf
		l.mu.Unlock()
	}
}

// write writes b to the output.
func (l *lineWriter) write(b []byte) error {
	if _, err := l.w.Write(b); err != nil {
		return fmt.Errorf("mcp: write: %w", err)
	}
	return nil
}

type stdioConn struct {
	out      *lineWriter
	versions []string
	logger   hclog.Logger

	msgs      chan jsonrpc.Message // closed when input ends
	stop      <-chan struct{}      // StdioTransport.Stop
	closed    chan struct{}
	closeOnce sync.Once

	mu      sync.Mutex
	pending map[int64]*call // transport id → call, for calls read and not yet answered
	byWire  map[string][]int64
	nextID  int64
	changed chan struct{} // closed and replaced whenever pending shrinks

	// fast answers the tools/call requests it can vouch for (nil: none);
	// base is the context of those calls, cancelled by Close.
	fast       *fastPath
	base       context.Context
	cancelBase context.CancelFunc
	// work hands a fast-path call to a worker waiting for one (unbuffered:
	// a send succeeds only when one waits); idleWorkers counts those.
	work        chan fastJob
	idleWorkers atomic.Int32
}

// call is one request handed to the SDK under a transport-assigned id: the
// client's id is kept as raw JSON and put back on the answer, so 1.5, 1e30
// and 2^53+1 round-trip exactly (the SDK turns every number into an int64),
// and two calls in flight with the same id are both answered.
type call struct {
	method string
	wireID json.RawMessage
	// delivered is set once Read has handed the call to the SDK, or the
	// fast path has started it: only those are waited for at the end (a
	// line read after Stop is not).
	delivered bool
	// cancel cancels a fast-path call (nil for the SDK's).
	cancel context.CancelFunc
	// compact is set for a fast-path call, whose result the fast path
	// encodes itself, compact and valid (encodeToolResult): it goes on the
	// line as it is, not compacted again.
	compact bool
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
// returns nil. A panic while checking (a host bug) is answered as an
// internal error instead of ending the host.
func (c *stdioConn) check(line []byte, tooLong bool) (msg jsonrpc.Message) {
	defer func() {
		if r := recover(); r != nil {
			c.logger.Error("checking an inbound line panicked", "panic", r)
			c.writeError(rawID(line), jsonrpc.CodeInternalError, "Internal error: the host could not read this message", nil)
			msg = nil
		}
	}()
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
		c.writeError(nil, jsonrpc.CodeInvalidRequest, batchRefused, nil)
		return nil
	}
	req, wireID, err := decodeRequest(line)
	if err != nil {
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			c.writeError(rawID(line), jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error(), nil)
			return nil
		}
		r, ok := msg.(*jsonrpc.Request)
		if !ok {
			return msg
		}
		req, wireID = r, rawID(line)
	}
	if !req.IsCall() {
		if req.Method == "notifications/cancelled" && !c.retargetCancel(req) {
			// It names no call in flight (already answered, or never
			// sent): passed on as it is, its id would be read as one of
			// the transport's own ids and could cancel an unrelated call.
			return nil
		}
		return req
	}
	meta := scanMeta(req.Params)
	if data := meta.unsupportedVersion(c.versions); data != nil {
		c.writeError(wireID, CodeUnsupportedProtocolVersion, "Unsupported protocol version", data)
		return nil
	}
	if req.Method == "tools/call" {
		if c.fast != nil && !c.stopping() {
			if call, ok := c.fast.prepare(line, meta, wireID); ok {
				c.startFast(call, wireID)
				return nil
			}
		}
		req.Params = meta.withRequestID(idText(wireID))
	}
	req.ID = c.track(req.Method, wireID)
	return req
}

// batchRefused is the answer to a JSON-RPC batch, on stdio and HTTP alike.
const batchRefused = "Invalid Request: JSON-RPC batches are not supported (removed in MCP 2025-06-18): send one message per line or per POST"

// rawID is the "id" of a line as raw JSON, when it is a string or a
// number (else nil, which answers with "id": null).
func rawID(line []byte) json.RawMessage {
	var v struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &v) != nil || len(v.ID) == 0 {
		return nil
	}
	switch v.ID[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return v.ID
	}
	return nil
}

// idText is a request id as the handler's caller sees it: a string id's
// value, a number's JSON text exactly as the client wrote it.
func idText(id json.RawMessage) string {
	var s string
	if len(id) > 0 && id[0] == '"' && json.Unmarshal(id, &s) == nil {
		return s
	}
	return string(id)
}

// withMeta sets _meta[key] = value in a params object (creating both when
// absent or null). Params that are not an object are returned unchanged.
func withMeta(params json.RawMessage, key string, value any) json.RawMessage {
	var obj map[string]json.RawMessage
	if len(bytes.TrimSpace(params)) > 0 && json.Unmarshal(params, &obj) != nil {
		return params
	}
	if obj == nil { // absent, or "params": null
		obj = map[string]json.RawMessage{}
	}
	var meta map[string]json.RawMessage
	if raw, ok := obj["_meta"]; ok && json.Unmarshal(raw, &meta) != nil {
		return params
	}
	if meta == nil { // absent, or "_meta": null
		meta = map[string]json.RawMessage{}
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
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   wireError       `json:"error"`
}

type wireError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// errorLine is the JSON of a JSON-RPC error response.
func errorLine(id json.RawMessage, code int64, message string, data json.RawMessage) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(wireResponse{JSONRPC: "2.0", ID: id, Error: wireError{Code: code, Message: message, Data: data}})
	if err != nil { // data is the only part that can fail, and it is ours
		b, _ = json.Marshal(wireResponse{JSONRPC: "2.0", ID: id, Error: wireError{Code: code, Message: message}})
	}
	return b
}

func (c *stdioConn) writeError(id json.RawMessage, code int64, message string, data json.RawMessage) {
	if err := c.out.writeLine(errorLine(id, code, message, data)); err != nil {
		c.logger.Warn("writing an error response", "error", err)
	}
}

// Read implements mcp.Connection. At the end of input (or when Stop
// closes) it waits until every call it handed out has been answered (a
// parked subscriptions/listen does not count), then reports io.EOF.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case <-c.stop:
	case msg, ok := <-c.msgs:
		if ok {
			c.deliver(msg)
			return msg, nil
		}
	}
	for {
		c.mu.Lock()
		busy := 0
		for _, cl := range c.pending {
			if cl.delivered && cl.method != "subscriptions/listen" {
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

// track records a call about to be handed to the SDK and returns the
// transport id it goes under.
func (c *stdioConn) track(method string, wireID json.RawMessage) jsonrpc.ID {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	id := c.nextID
	c.pending[id] = &call{method: method, wireID: wireID}
	key := string(wireID)
	c.byWire[key] = append(c.byWire[key], id)
	tid, _ := jsonrpc.MakeID(float64(id)) // ids stay far below 2^53
	return tid
}

// deliver marks a call as handed to the SDK.
func (c *stdioConn) deliver(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		return
	}
	n, _ := req.ID.Raw().(int64)
	c.mu.Lock()
	if cl := c.pending[n]; cl != nil {
		cl.delivered = true
	}
	c.mu.Unlock()
}

// retargetCancel points a notifications/cancelled at the transport id of
// the call it names (the newest one, when the client reused the id), and
// forgets that call: a cancelled call may never be answered. It reports
// false when the notification names no call in flight.
func (c *stdioConn) retargetCancel(req *jsonrpc.Request) bool {
	var p map[string]json.RawMessage
	if json.Unmarshal(req.Params, &p) != nil || p == nil {
		return false
	}
	c.mu.Lock()
	ids := c.byWire[string(bytes.TrimSpace(p["requestId"]))]
	c.mu.Unlock()
	if len(ids) == 0 {
		return false
	}
	id := ids[len(ids)-1]
	p["requestId"] = json.RawMessage(strconv.FormatInt(id, 10))
	if b, err := json.Marshal(p); err == nil {
		req.Params = b
	}
	if cl := c.done(id); cl != nil && cl.cancel != nil {
		cl.cancel() // a fast-path call: the SDK does not know it
	}
	return true
}

// done forgets an answered (or cancelled) call and returns it (nil when it
// was not pending).
func (c *stdioConn) done(id int64) *call {
	c.mu.Lock()
	defer c.mu.Unlock()
	cl, ok := c.pending[id]
	if !ok {
		return nil
	}
	delete(c.pending, id)
	key := string(cl.wireID)
	ids := slices.DeleteFunc(c.byWire[key], func(x int64) bool { return x == id })
	if len(ids) == 0 {
		delete(c.byWire, key)
	} else {
		c.byWire[key] = ids
	}
	close(c.changed)
	c.changed = make(chan struct{})
	return cl
}

// Write implements mcp.Connection. An answer goes out under the id the
// client sent; an error the SDK gave no JSON-RPC code gets one.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	resp, isResp := msg.(*jsonrpc.Response)
	var cl *call
	if isResp {
		if n, ok := resp.ID.Raw().(int64); ok {
			if cl = c.done(n); cl == nil {
				// The client cancelled it (a subscriptions/listen it closed):
				// its transport id means nothing to the client, and could
				// be one of the client's own ids.
				return nil
			}
		}
		if resp.Error != nil {
			resp = &jsonrpc.Response{ID: resp.ID, Error: codedError(resp.Error)}
			msg = resp
		}
	}
	if cl != nil && resp.Error == nil {
		if buf, ok := encodeResult(cl.wireID, resp.Result, cl.compact); ok {
			err := c.out.writeLine(buf.Bytes())
			putLineBuffer(buf)
			return err
		}
	}
	if req, ok := msg.(*jsonrpc.Request); ok && !req.IsCall() {
		req.Params = c.clientSubscriptionID(req.Params)
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("mcp: encode: %w", err)
	}
	if cl != nil {
		b = withWireID(b, resp.ID, cl.wireID)
	}
	return c.out.writeLine(b)
}

// clientSubscriptionID puts the client's id of a subscriptions/listen back
// in a notification's _meta subscriptionId, where the SDK stamps the
// transport's id: a client matches its listen's acknowledgement and
// list_changed notifications by it (MCP Inspector waits a minute for an
// acknowledgement it cannot match).
func (c *stdioConn) clientSubscriptionID(params json.RawMessage) json.RawMessage {
	if !bytes.Contains(params, []byte(mcp.MetaKeySubscriptionID)) {
		return params
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(params, &obj) != nil {
		return params
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(obj["_meta"], &meta) != nil {
		return params
	}
	n, err := strconv.ParseInt(string(meta[mcp.MetaKeySubscriptionID]), 10, 64)
	if err != nil {
		return params
	}
	c.mu.Lock()
	cl := c.pending[n]
	c.mu.Unlock()
	if cl == nil || len(cl.wireID) == 0 {
		return params
	}
	meta[mcp.MetaKeySubscriptionID] = cl.wireID
	if obj["_meta"], err = json.Marshal(meta); err != nil {
		return params
	}
	if b, err := json.Marshal(obj); err == nil {
		return b
	}
	return params
}

// codedError gives an error the SDK answered without a JSON-RPC code (it
// would go out as code 0) its code: -32600 for a call before initialize
// (go-sdk v1.8.0 answers it with a plain error), else -32603.
func codedError(err error) error {
	var we *jsonrpc.Error
	if errors.As(err, &we) && we.Code != 0 {
		return err
	}
	code := int64(jsonrpc.CodeInternalError)
	if strings.Contains(err.Error(), "invalid during session initialization") {
		code = jsonrpc.CodeInvalidRequest
	}
	out := &jsonrpc.Error{Code: code, Message: err.Error()}
	if we != nil {
		out.Data = we.Data
	}
	return out
}

// withWireID puts the client's raw id back on an encoded answer the SDK
// wrote under the transport's id.
func withWireID(b []byte, id jsonrpc.ID, wireID json.RawMessage) []byte {
	if len(wireID) == 0 {
		wireID = json.RawMessage("null")
	}
	prefix := `{"jsonrpc":"2.0","id":` + fmt.Sprint(id.Raw())
	if bytes.HasPrefix(b, []byte(prefix)) && len(b) > len(prefix) && (b[len(prefix)] == ',' || b[len(prefix)] == '}') {
		out := make([]byte, 0, len(b)-len(prefix)+len(wireID)+len(`{"jsonrpc":"2.0","id":`)+1) // +1: writeLine's newline
		out = append(append(out, `{"jsonrpc":"2.0","id":`...), wireID...)
		return append(out, b[len(prefix):]...)
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return b
	}
	m["id"] = wireID
	if out, err := json.Marshal(m); err == nil {
		return out
	}
	return b
}

// Close implements mcp.Connection. The reader goroutine may stay blocked
// on In until the process exits; nothing else waits for it.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.cancelBase()
	})
	return nil
}

// stopping reports whether Stop has closed.
func (c *stdioConn) stopping() bool {
	select {
	case <-c.stop:
		return true
	default:
		return false
	}
}

// startFast runs a tools/call on the fast path, tracked as a call handed
// to the SDK is (so the end of input waits for it, and a
// notifications/cancelled naming its id cancels it).
func (c *stdioConn) startFast(fc fastCall, wireID json.RawMessage) {
	ctx, cancel := context.WithCancel(c.base)
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.pending[id] = &call{method: "tools/call", wireID: wireID, delivered: true, cancel: cancel, compact: true}
	key := string(wireID)
	c.byWire[key] = append(c.byWire[key], id)
	c.mu.Unlock()
	c.fast.running.Add(1)
	job := fastJob{ctx: ctx, cancel: cancel, id: id, fc: fc}
	select {
	case c.work <- job: // a worker waiting for one takes it
	default:
		go c.fastWorker(job)
	}
}

// fastJob is one fast-path call for a worker to run.
type fastJob struct {
	ctx    context.Context
	cancel context.CancelFunc
	id     int64
	fc     fastCall
}

// maxIdleWorkers bounds how many fast-path workers wait for a call; one
// that would be one more ends instead.
const maxIdleWorkers = 16

// fastWorker runs job, then the calls handed to it while it waits, until
// the connection closes or enough other workers wait. A worker keeps the
// stack a call grew (the SDK's handler, dispatch, a gRPC stream: about
// 32 KiB), where a goroutine per call started small and grew it again
// every call, copying its frames; and a call handed to a waiting worker
// costs what starting a goroutine does.
func (c *stdioConn) fastWorker(job fastJob) {
	for {
		c.runFast(job.ctx, job.cancel, job.id, job.fc)
		if c.idleWorkers.Add(1) > maxIdleWorkers {
			c.idleWorkers.Add(-1)
			return
		}
		select {
		case job = <-c.work:
			c.idleWorkers.Add(-1)
		case <-c.closed:
			c.idleWorkers.Add(-1)
			return
		}
	}
}

// runFast answers one fast-path call through Write, as the SDK's answer
// would go. A panic in the call (a host bug) is answered as an internal
// error instead of ending the host.
func (c *stdioConn) runFast(ctx context.Context, cancel context.CancelFunc, id int64, fc fastCall) {
	defer c.fast.running.Done()
	defer cancel()
	var (
		result json.RawMessage
		err    error
	)
	func() {
		defer func() {
			if r := recover(); r != nil {
				c.logger.Error("a tools/call panicked", "tool", fc.req.Params.Name, "panic", r)
				err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error: the host failed answering this call"}
			}
		}()
		result, err = c.fast.call(ctx, fc)
	}()
	tid, _ := jsonrpc.MakeID(float64(id))
	if werr := c.Write(context.Background(), &jsonrpc.Response{ID: tid, Result: result, Error: err}); werr != nil {
		c.logger.Warn("writing a tools/call answer", "error", werr)
	}
}
