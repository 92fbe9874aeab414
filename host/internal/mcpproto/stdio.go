package mcpproto

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

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

// StdioTransport serves newline-delimited JSON-RPC 2.0 on In and Out through
// the SDK's own mcp.IOTransport, with a line filter in front of it for what
// go-sdk v1.8.0 gets wrong (each case pinned by a test in
// mcpserver/sdk_defects_test.go, so the filter can shrink as the SDK is
// fixed):
//
//   - a line that is not JSON gets -32700 (one that is not a JSON-RPC
//     message, or is a batch, -32600), and serving goes on — the SDK ends
//     the session on the first bad line;
//   - ids round-trip exactly and two calls in flight under one id are both
//     answered — the SDK turns every number into an int64 and keys its
//     calls by id;
//   - a call before initialize gets -32600 — the SDK answers code 0;
//   - a request whose _meta names a protocol version the server does not
//     list gets -32022 with {supported, requested} — the SDK treats any
//     version older than 2026-07-28 as a legacy request;
//   - when In ends (or Stop closes), the calls already read are answered
//     before the session ends — the SDK cancels them and drops their
//     answers.
//
// tools/call requests also carry their JSON-RPC id to the handler in _meta
// (the SDK has no accessor for it).
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
}

var _ mcp.Transport = (*StdioTransport)(nil)

// Connect implements mcp.Transport. It is called once per transport.
func (t *StdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	if t.In == nil || t.Out == nil {
		return nil, errors.New("mcp: stdio transport needs In and Out")
	}
	f := newLineFilter(t.Out, t.Versions, t.Logger, t.Stop)
	max := t.MaxLineBytes
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	pr, pw := io.Pipe()
	f.toSDK = pw
	go f.readLoop(t.In, max)
	go f.endInput()
	// The filter bounds lines itself; what it hands on may have grown by
	// the request id it adds.
	return (&mcp.IOTransport{Reader: pr, Writer: sdkSide{f}, MaxLineLength: -1}).Connect(ctx)
}

// lineFilter stands between the client's lines and the SDK's IOTransport:
// it answers the lines the SDK would mishandle, hands the others on under
// a transport id, and puts the client's id back on the SDK's answers.
type lineFilter struct {
	versions []string
	logger   hclog.Logger
	stop     <-chan struct{} // StdioTransport.Stop

	outMu sync.Mutex // whole lines from the SDK and the filter never interleave
	out   io.Writer

	sdkMu    sync.Mutex // serialises lines to the SDK with closing the pipe
	toSDK    *io.PipeWriter
	sdkEnded bool

	inputEnded chan struct{} // closed when In ends
	closed     chan struct{} // closed when the SDK closes the connection
	closeOnce  sync.Once

	mu      sync.Mutex
	pending map[int64]*call // transport id → call handed on and not yet answered
	byWire  map[string][]int64
	nextID  int64
	changed chan struct{} // closed and replaced whenever pending shrinks
}

// call is one request handed to the SDK under a transport id: the client's
// id is kept as raw JSON and put back on the answer.
type call struct {
	method string
	wireID json.RawMessage
}

func newLineFilter(out io.Writer, versions []string, logger hclog.Logger, stop <-chan struct{}) *lineFilter {
	f := &lineFilter{
		out:        out,
		versions:   versions,
		logger:     logger,
		stop:       stop,
		inputEnded: make(chan struct{}),
		closed:     make(chan struct{}),
		pending:    map[int64]*call{},
		byWire:     map[string][]int64{},
		changed:    make(chan struct{}),
	}
	if len(f.versions) == 0 {
		f.versions = mcp.SupportedProtocolVersions()
	}
	if f.logger == nil {
		f.logger = hclog.NewNullLogger()
	}
	return f
}

// readLoop reads lines until In ends or Stop closes, answering bad ones
// itself and handing good ones to the SDK.
func (f *lineFilter) readLoop(in io.Reader, max int) {
	defer close(f.inputEnded)
	r := bufio.NewReaderSize(in, 64*1024)
	var returnMemory *time.Timer
	for {
		line, tooLong, err := readLine(r, max)
		if f.stopping() {
			return // a line read after Stop is not served
		}
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if fwd := f.check(line, tooLong); fwd != nil && !f.hand(fwd) {
				return
			}
		}
		if tooLong || len(line) >= largeLine {
			returnMemory = afterLargeLine(returnMemory)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				f.logger.Warn("reading stdin", "error", err)
			}
			return
		}
	}
}

// largeLine is the size from which a line's buffers are worth handing
// back to the system once the burst they came in is over.
const largeLine = 1 << 20

// afterLargeLine (re)arms the timer that returns freed memory to the system
// a second after the last large line: the runtime would keep the pages of a
// burst of large or oversized lines for minutes otherwise.
func afterLargeLine(t *time.Timer) *time.Timer {
	if t == nil {
		return time.AfterFunc(time.Second, debug.FreeOSMemory)
	}
	t.Reset(time.Second)
	return t
}

// hand writes one line to the SDK; false once the SDK side is closed.
func (f *lineFilter) hand(line []byte) bool {
	f.sdkMu.Lock()
	defer f.sdkMu.Unlock()
	if f.sdkEnded {
		return false
	}
	_, err := f.toSDK.Write(append(line, '\n'))
	return err == nil
}

// endInput ends the SDK's input once In has ended or Stop has closed and
// every call handed on has been answered (a parked subscriptions/listen
// does not count): the SDK would cancel them and drop their answers.
func (f *lineFilter) endInput() {
	select {
	case <-f.inputEnded:
	case <-f.stop:
	case <-f.closed:
		return
	}
	for {
		f.mu.Lock()
		busy := 0
		for _, cl := range f.pending {
			if cl.method != "subscriptions/listen" {
				busy++
			}
		}
		changed := f.changed
		f.mu.Unlock()
		if busy == 0 {
			break
		}
		select {
		case <-f.closed:
			return
		case <-changed:
		}
	}
	f.sdkMu.Lock()
	f.sdkEnded = true
	_ = f.toSDK.Close()
	f.sdkMu.Unlock()
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

// check returns the line to hand to the SDK, or answers it here and
// returns nil. A panic while checking (a host bug) is answered as an
// internal error instead of ending the host.
func (f *lineFilter) check(line []byte, tooLong bool) (fwd []byte) {
	defer func() {
		if r := recover(); r != nil {
			f.logger.Error("checking an inbound line panicked", "panic", r)
			f.writeError(rawID(line), jsonrpc.CodeInternalError, "Internal error: the host could not read this message", nil)
			fwd = nil
		}
	}()
	if tooLong {
		f.writeError(nil, jsonrpc.CodeParseError, "Parse error: message longer than the line limit", nil)
		return nil
	}
	line = bytes.TrimSpace(line)
	if !json.Valid(line) {
		if depthExceeded(line) {
			// Valid JSON a decoder will not take: a request too deep, not
			// a parse error, answered under its id when that comes first.
			f.writeError(leadingID(line), jsonrpc.CodeInvalidRequest, tooDeep, nil)
			return nil
		}
		f.writeError(nil, jsonrpc.CodeParseError, "Parse error: the line is not valid JSON", nil)
		return nil
	}
	if line[0] == '[' {
		f.writeError(nil, jsonrpc.CodeInvalidRequest, batchRefused, nil)
		return nil
	}
	wireID := rawID(line)
	if wireID == nil && !utf8.Valid(idOf(line)) {
		f.writeError(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: the id is not valid UTF-8 (JSON text is UTF-8): send a number or a UTF-8 string", nil)
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		text := "Invalid Request: " + err.Error()
		if strings.Contains(err.Error(), "nesting depth") {
			text = tooDeep
		}
		f.writeError(wireID, jsonrpc.CodeInvalidRequest, text, nil)
		return nil
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return line // a response to a request of the SDK's, under its own id
	}
	if !req.IsCall() {
		if req.Method == "notifications/cancelled" {
			// Passed on as it is, its id would be read as one of the
			// filter's own ids and could cancel an unrelated call.
			return f.retargetCancel(req)
		}
		return line
	}
	meta := metaOf(req.Params)
	if data := unsupportedVersion(meta, f.versions); data != nil {
		f.writeError(wireID, CodeUnsupportedProtocolVersion, "Unsupported protocol version", data)
		return nil
	}
	if req.Method == "tools/call" {
		req.Params = withMeta(req.Params, requestIDMetaKey, idText(wireID))
	}
	req.ID = f.track(req.Method, wireID)
	b, err := jsonrpc.EncodeMessage(req)
	if err != nil {
		f.done(req.ID.Raw().(int64))
		f.writeError(wireID, jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error(), nil)
		return nil
	}
	return b
}

// batchRefused is the answer to a JSON-RPC batch, on stdio and HTTP alike.
const batchRefused = "Invalid Request: JSON-RPC batches are not supported (removed in MCP 2025-06-18): send one message per line or per POST"

// idOf is the "id" member of a line as raw JSON (nil when absent or the
// line does not decode).
func idOf(line []byte) json.RawMessage {
	var v struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &v) != nil {
		return nil
	}
	return v.ID
}

// rawID is the "id" of a line as raw JSON, when it is a number or a string
// of valid UTF-8 (else nil, which answers with "id": null): every id the
// host writes is valid JSON whatever the client sent.
func rawID(line []byte) json.RawMessage {
	id := idOf(line)
	if len(id) == 0 || !utf8.Valid(id) {
		return nil
	}
	switch id[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return id
	}
	return nil
}

// tooDeep is the answer to a message nested deeper than the SDK decodes.
const tooDeep = "Invalid Request: the message nests arrays and objects too deep to decode (the MCP SDK takes 1000 levels): send a flatter message"

// leadingID is the id of a line too deep to decode, when the id comes
// before the deep member (else nil: "id": null).
func leadingID(line []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		if key == "id" {
			return rawID([]byte(`{"id":` + string(v) + `}`))
		}
	}
	return nil
}

// depthExceeded reports whether a line fails JSON decoding only by nesting
// deeper than encoding/json allows.
func depthExceeded(line []byte) bool {
	var v any
	err := json.Unmarshal(line, &v)
	return err != nil && strings.Contains(err.Error(), "exceeded max depth")
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

// metaOf is the raw _meta of a call's params (nil when absent).
func metaOf(params json.RawMessage) json.RawMessage {
	var p struct {
		Meta json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	return p.Meta
}

// unsupportedVersion returns the -32022 error data {supported, requested}
// when meta names a protocol version that is not in versions, else nil.
func unsupportedVersion(meta json.RawMessage, versions []string) json.RawMessage {
	if len(meta) == 0 || !bytes.Contains(meta, []byte(mcp.MetaKeyProtocolVersion)) {
		return nil
	}
	var m map[string]json.RawMessage
	_ = json.Unmarshal(meta, &m)
	rawVersion, ok := m[mcp.MetaKeyProtocolVersion]
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

// wireResponse is a JSON-RPC error response written by the filter itself
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

func (f *lineFilter) writeError(id json.RawMessage, code int64, message string, data json.RawMessage) {
	if err := f.writeLine(errorLine(id, code, message, data)); err != nil {
		f.logger.Warn("writing an error response", "error", err)
	}
}

// writeLine writes b and a newline, whole.
func (f *lineFilter) writeLine(b []byte) error {
	f.outMu.Lock()
	defer f.outMu.Unlock()
	if _, err := f.out.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("mcp: write: %w", err)
	}
	return nil
}

// track records a call about to be handed to the SDK and returns the
// transport id it goes under.
func (f *lineFilter) track(method string, wireID json.RawMessage) jsonrpc.ID {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextID++
	id := f.nextID
	f.pending[id] = &call{method: method, wireID: wireID}
	key := string(wireID)
	f.byWire[key] = append(f.byWire[key], id)
	tid, _ := jsonrpc.MakeID(float64(id)) // ids stay far below 2^53
	return tid
}

// retargetCancel points a notifications/cancelled at the transport id of
// the call it names (the newest one, when the client reused the id), and
// forgets that call: a cancelled call may never be answered. It returns
// nil when the notification names no call in flight.
func (f *lineFilter) retargetCancel(req *jsonrpc.Request) []byte {
	var p map[string]json.RawMessage
	if json.Unmarshal(req.Params, &p) != nil || p == nil {
		return nil
	}
	f.mu.Lock()
	ids := f.byWire[string(bytes.TrimSpace(p["requestId"]))]
	f.mu.Unlock()
	if len(ids) == 0 {
		return nil
	}
	id := ids[len(ids)-1]
	p["requestId"] = json.RawMessage(strconv.FormatInt(id, 10))
	b, err := json.Marshal(p)
	if err != nil {
		return nil
	}
	req.Params = b
	f.done(id)
	out, err := jsonrpc.EncodeMessage(req)
	if err != nil {
		return nil
	}
	return out
}

// done forgets an answered (or cancelled) call and returns it (nil when it
// was not pending).
func (f *lineFilter) done(id int64) *call {
	f.mu.Lock()
	defer f.mu.Unlock()
	cl, ok := f.pending[id]
	if !ok {
		return nil
	}
	delete(f.pending, id)
	key := string(cl.wireID)
	ids := slices.DeleteFunc(f.byWire[key], func(x int64) bool { return x == id })
	if len(ids) == 0 {
		delete(f.byWire, key)
	} else {
		f.byWire[key] = ids
	}
	close(f.changed)
	f.changed = make(chan struct{})
	return cl
}

// fromSDK takes one line the SDK wrote: an answer goes out under the id
// the client sent, and an error the SDK gave no JSON-RPC code gets one.
func (f *lineFilter) fromSDK(line []byte) error {
	line = bytes.TrimRight(line, "\n")
	n, rest, ok := transportID(line)
	if ok && bytes.HasPrefix(rest, []byte(`"error":`)) && bytes.HasSuffix(rest, []byte("}")) {
		// The error is the answer's last member: its code is fixed in place.
		obj := rest[len(`"error":`) : len(rest)-1]
		if json.Valid(obj) {
			rest = append(append([]byte(`"error":`), codedError(obj)...), '}')
		} else {
			ok = false
		}
	}
	if ok && (bytes.HasPrefix(rest, []byte(`"result"`)) || bytes.HasPrefix(rest, []byte(`"error"`))) {
		cl := f.done(n)
		if cl == nil {
			return nil // cancelled by the client: see below
		}
		out := make([]byte, 0, len(line)+len(cl.wireID))
		out = append(append(out, idPrefix...), orNull(cl.wireID)...)
		out = append(append(out, ','), rest...)
		return f.writeLine(out)
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return f.writeLine(line)
	}
	if _, isRequest := m["method"]; isRequest || m["id"] == nil {
		if bytes.Contains(line, []byte(mcp.MetaKeySubscriptionID)) {
			line = f.clientSubscriptionID(line)
		}
		return f.writeLine(line) // a notification, or a request of the SDK's own
	}
	n, err := strconv.ParseInt(string(m["id"]), 10, 64)
	if err != nil {
		return f.writeLine(line)
	}
	cl := f.done(n)
	if cl == nil {
		// The client cancelled it (a subscriptions/listen it closed): its
		// transport id means nothing to the client, and could be one of
		// the client's own ids.
		return nil
	}
	m["id"] = orNull(cl.wireID)
	if raw, ok := m["error"]; ok {
		m["error"] = codedError(raw)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("mcp: encode: %w", err)
	}
	return f.writeLine(b)
}

// orNull is id, or null when there is none.
func orNull(id json.RawMessage) json.RawMessage {
	if len(id) == 0 {
		return json.RawMessage("null")
	}
	return id
}

// idPrefix begins an answer as go-sdk v1.8.0 encodes it: the answers that
// start so have their id swapped in place, any other line is decoded.
const idPrefix = `{"jsonrpc":"2.0","id":`

// transportID reads the integer id at the start of a line the SDK encoded
// and returns it with what follows its comma.
func transportID(line []byte) (int64, []byte, bool) {
	if !bytes.HasPrefix(line, []byte(idPrefix)) {
		return 0, nil, false
	}
	rest := line[len(idPrefix):]
	comma := bytes.IndexByte(rest, ',')
	if comma < 0 {
		return 0, nil, false
	}
	n, err := strconv.ParseInt(string(rest[:comma]), 10, 64)
	if err != nil {
		return 0, nil, false
	}
	return n, rest[comma+1:], true
}

// codedError gives an answer's error the JSON-RPC code the SDK left out
// (it goes out as code 0): -32600 for a call before initialize (go-sdk
// v1.8.0 answers it with a plain error), else -32603.
func codedError(raw json.RawMessage) json.RawMessage {
	var e wireError
	if json.Unmarshal(raw, &e) != nil || e.Code != 0 {
		return raw
	}
	e.Code = jsonrpc.CodeInternalError
	if strings.Contains(e.Message, "invalid during session initialization") {
		e.Code = jsonrpc.CodeInvalidRequest
	}
	b, err := json.Marshal(e)
	if err != nil {
		return raw
	}
	return b
}

// clientSubscriptionID puts the client's id of a subscriptions/listen back
// in a notification's _meta subscriptionId, where the SDK stamps the
// transport's id: a client matches its listen's acknowledgement and
// list_changed notifications by it (MCP Inspector waits a minute for an
// acknowledgement it cannot match).
func (f *lineFilter) clientSubscriptionID(line []byte) []byte {
	var msg, params, meta map[string]json.RawMessage
	if json.Unmarshal(line, &msg) != nil || json.Unmarshal(msg["params"], &params) != nil ||
		json.Unmarshal(params["_meta"], &meta) != nil {
		return line
	}
	n, err := strconv.ParseInt(string(meta[mcp.MetaKeySubscriptionID]), 10, 64)
	if err != nil {
		return line
	}
	f.mu.Lock()
	cl := f.pending[n]
	f.mu.Unlock()
	if cl == nil || len(cl.wireID) == 0 {
		return line
	}
	meta[mcp.MetaKeySubscriptionID] = cl.wireID
	if params["_meta"], err = json.Marshal(meta); err != nil {
		return line
	}
	if msg["params"], err = json.Marshal(params); err != nil {
		return line
	}
	if b, err := json.Marshal(msg); err == nil {
		return b
	}
	return line
}

// stopping reports whether Stop has closed.
func (f *lineFilter) stopping() bool {
	select {
	case <-f.stop:
		return true
	default:
		return false
	}
}

// sdkSide is the filter as the SDK's IOTransport writes to it.
type sdkSide struct{ f *lineFilter }

// Write implements io.Writer: the SDK writes one whole line per call.
func (s sdkSide) Write(p []byte) (int, error) {
	if err := s.f.fromSDK(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close implements io.Closer: the SDK has closed the connection.
func (s sdkSide) Close() error {
	s.f.closeOnce.Do(func() { close(s.f.closed) })
	return nil
}
