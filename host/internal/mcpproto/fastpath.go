package mcpproto

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The fast path answers a tools/call on stdio without the SDK's JSON-RPC
// layer, once the session is initialised in the legacy era (the era every
// stdio client speaks today). The transport reads the call's params in
// place, and the call runs through the same receiving middleware and tool
// handler the SDK would call, with the same request; its answer is encoded
// as the SDK's would be and written under the client's id. What it skips is
// the SDK's own cost per message: its decode of the whole message and of
// the params (two 32 KiB buffers), its request bookkeeping and goroutines,
// its result encoding by reflection through two encoders.
//
// Only a call the fast path can vouch for takes it; everything else goes to
// the SDK as before, which keeps every answer the SDK gives to an odd call
// exactly as it was:
//
//   - the session is initialised: initialize was handled, or a modern
//     request (server/discover, as Claude Code probes) came first — then
//     the SDK marks every result "resultType":"complete", and so does the
//     fast path;
//   - the call's _meta names no protocol version (a modern request's
//     results carry serverInfo, and its checks are the SDK's);
//   - the params are an object whose keys are exactly name, arguments and
//     _meta (no other, none twice, none written with escapes), the name is a
//     published tool's, written without escapes, the arguments an object,
//     the _meta, when there, an object;
//   - the message nests no deeper than fastMaxDepth (the SDK refuses 1000);
//   - the transport is not stopping (a line read after Stop is not run).
//
// HOST_FASTPATH=0 turns it off: every call then goes through the SDK.

// FastPathEnv names the environment variable that turns the fast path off
// when set to "0".
const FastPathEnv = "HOST_FASTPATH"

// fastMaxDepth bounds how deeply a fast-path call may nest; a deeper one
// goes to the SDK, which refuses 1000 levels with its own error.
const fastMaxDepth = 256

// fastPathEnabled reports whether the environment leaves the fast path on.
func fastPathEnabled() bool { return os.Getenv(FastPathEnv) != "0" }

// fastPath runs the tools/call requests of one stdio session that the
// transport hands it.
type fastPath struct {
	s *Server
	// ss is the session, set once the SDK has connected it; until then
	// every call goes to the SDK.
	ss atomic.Pointer[mcp.ServerSession]
	// handle is the server's receiving middleware around callTool, as the
	// SDK would run it.
	handle mcp.MethodHandler
	// running counts the calls started and not yet written: the session
	// ends once they are (a call leaves the transport's bookkeeping just
	// before its answer is written, which lets the end of input go on).
	running sync.WaitGroup
}

// newFastPath is the fast path of one session of s.
func (s *Server) newFastPath() *fastPath {
	f := &fastPath{s: s}
	f.handle = s.middleware(f.callTool)
	return f
}

// connected records the session the SDK made for the transport.
func (f *fastPath) connected(ss *mcp.ServerSession) { f.ss.Store(ss) }

// fastCall is a tools/call the fast path answers: its request, and
// whether the session's state is of the modern era, where the SDK marks a
// complete result "resultType":"complete".
type fastCall struct {
	req      *mcp.CallToolRequest
	complete bool
}

// sessionReady returns the session when a call on it may take the fast
// path (known and initialised), and whether its state is of the modern era.
func (f *fastPath) sessionReady() (*mcp.ServerSession, bool) {
	ss := f.ss.Load()
	if ss == nil {
		return nil, false
	}
	ip := ss.InitializeParams()
	if ip == nil {
		return nil, false
	}
	return ss, ip.ProtocolVersion >= modernVersion
}

// prepare builds the request of a tools/call the fast path can answer, or
// reports false when the SDK must answer it. line is the whole message,
// m its params as the transport scanned them, wireID the client's id.
func (f *fastPath) prepare(line []byte, m callMeta, wireID json.RawMessage) (fastCall, bool) {
	if !m.fast {
		return fastCall{}, false
	}
	ss, complete := f.sessionReady()
	if ss == nil {
		return fastCall{}, false
	}
	if m.meta != nil && bytes.Contains(m.meta, []byte(mcp.MetaKeyProtocolVersion)) {
		return fastCall{}, false
	}
	if !depthWithin(line, fastMaxDepth) {
		return fastCall{}, false
	}
	var name, args, meta []byte
	seen := 0
	ok := eachMember(m.params, func(key []byte, start, end int) {
		v := m.params[start:end]
		switch string(key) {
		case "name":
			name, seen = v, seen+1
		case "arguments":
			args, seen = v, seen+1
		case "_meta":
			meta, seen = v, seen+1
		default:
			seen = -1 << 20 // another key: the SDK's
		}
	})
	if !ok || seen < 0 || seen != countNonNil(name, args, meta) {
		return fastCall{}, false
	}
	if len(name) < 2 || name[0] != '"' || bytes.IndexByte(name, '\\') >= 0 {
		return fastCall{}, false
	}
	toolName := string(name[1 : len(name)-1])
	if _, published := f.s.handlers[toolName]; !published {
		return fastCall{}, false
	}
	if args != nil && args[0] != '{' {
		return fastCall{}, false
	}
	metaMap := mcp.Meta{}
	if meta != nil {
		if meta[0] != '{' || json.Unmarshal(meta, &metaMap) != nil {
			return fastCall{}, false
		}
	}
	metaMap[requestIDMetaKey] = idText(wireID)
	f.s.fastCalls.Add(1)
	return fastCall{complete: complete, req: &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{
		Meta: metaMap, Name: toolName, Arguments: json.RawMessage(args)}}}, true
}

// countNonNil counts the members prepare found.
func countNonNil(vs ...[]byte) int {
	n := 0
	for _, v := range vs {
		if v != nil {
			n++
		}
	}
	return n
}

// call runs a prepared tools/call as the SDK would — the receiving
// middleware, then the tool's handler — and returns its result encoded as
// the SDK encodes it, or the error the SDK would answer.
func (f *fastPath) call(ctx context.Context, fc fastCall) (json.RawMessage, error) {
	res, err := f.handle(ctx, "tools/call", fc.req)
	if err != nil {
		return nil, err
	}
	raw, err := encodeToolResult(res)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error: the host could not encode this result: " + err.Error()}
	}
	if fc.complete && len(raw) > 2 && raw[len(raw)-1] == '}' {
		// The SDK's resultType, written last (callTool refuses input
		// requests, the one member that would follow it).
		raw = append(raw[:len(raw)-1:len(raw)-1], `,"resultType":"complete"}`...)
	}
	return raw, nil
}

// callTool is the SDK's tools/call method for a legacy session: the tool's
// handler, then content never null.
func (f *fastPath) callTool(ctx context.Context, _ string, r mcp.Request) (mcp.Result, error) {
	req := r.(*mcp.CallToolRequest)
	res, err := f.s.handlers[req.Params.Name](ctx, req)
	if err != nil || res == nil {
		return res, err
	}
	if res.InputRequests != nil {
		// The SDK would ask the client itself for a legacy session; the
		// host's handlers ask through elicitation/create instead and never
		// return input requests to a legacy session.
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "server bug: a legacy session's tool result has inputRequests"}
	}
	if res.Content == nil {
		res2 := *res
		res2.Content = []mcp.Content{} // as the SDK: never "content": null
		res = &res2
	}
	return res, nil
}

// encodeToolResult encodes a result as the SDK's JSON-RPC layer does: its
// MarshalJSON through an encoder that does not escape HTML. The host's own
// shape — one text content, raw structured content, nothing else — is
// written directly (appendToolResult); anything else by the SDK's code.
func encodeToolResult(res mcp.Result) (json.RawMessage, error) {
	if r, ok := res.(*mcp.CallToolResult); ok {
		if b, ok := appendToolResult(make([]byte, 0, toolResultSize(r)), r); ok {
			return b, nil
		}
	}
	return marshalResult(res)
}

// marshalResult is the SDK's encoding of a result: its MarshalJSON through
// an encoder that does not escape HTML.
func marshalResult(res mcp.Result) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		return nil, fmt.Errorf("mcp: encode result: %w", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// toolResultSize is about how many bytes r encodes to, for the buffer.
func toolResultSize(r *mcp.CallToolResult) int {
	n := 96
	if raw, ok := r.StructuredContent.(json.RawMessage); ok {
		n += len(raw)
	}
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			n += len(t.Text) + len(t.Text)/16
		}
	}
	return n
}

// appendToolResult appends r as the SDK encodes it when r has the shape the
// host's handlers return — at most one content, a text with no _meta or
// annotations; structured content absent or raw JSON; no _meta, input
// requests or request state — and reports false for any other shape
// (then nothing is appended). The bytes are those of the SDK's encoding:
//
//	{"content":[{"type":"text","text":…}],"structuredContent":…,"isError":true}
//
// where the text is a JSON string as encoding/json writes it (HTML
// characters escaped: the SDK's MarshalJSON uses json.Marshal) and the
// structured content is compacted with HTML characters escaped, as
// json.Marshal writes a json.RawMessage. TestAppendToolResultAgreesWithTheSDK
// and TestFastPathAnswersAsTheSDK hold it to that.
func appendToolResult(b []byte, r *mcp.CallToolResult) ([]byte, bool) {
	if r.Meta != nil || r.InputRequests != nil || r.RequestState != "" || r.Content == nil || len(r.Content) > 1 {
		return b, false
	}
	start := len(b)
	var raw json.RawMessage
	switch sc := r.StructuredContent.(type) {
	case nil:
	case json.RawMessage:
		if sc == nil || !json.Valid(sc) {
			return b, false
		}
		raw = sc
	default:
		return b, false
	}
	b = append(b, `{"content":[`...)
	if len(r.Content) == 1 {
		t, ok := r.Content[0].(*mcp.TextContent)
		if !ok || t == nil || t.Meta != nil || t.Annotations != nil {
			return b[:start], false
		}
		text, err := json.Marshal(t.Text)
		if err != nil {
			return b[:start], false
		}
		b = append(b, `{"type":"text","text":`...)
		b = append(b, text...)
		b = append(b, '}')
	}
	b = append(b, ']')
	if raw != nil {
		b = append(b, `,"structuredContent":`...)
		if plainJSON(raw) {
			b = append(b, raw...) // already what the SDK writes
		} else {
			var ok bool
			if b, ok = appendCompactEscaped(b, raw); !ok {
				return b[:start], false
			}
		}
	}
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}'), true
}

// escapedByHTMLEscape marks the bytes json.HTMLEscape rewrites: <, > and
// &, and 0xE2, the first byte of U+2028 and U+2029 (a byte to look at
// closer, not always one it rewrites).
var escapedByHTMLEscape = [256]bool{'<': true, '>': true, '&': true, 0xE2: true}

// plainJSON tells whether raw, valid JSON, is already as json.Compact and
// then json.HTMLEscape would leave it: no whitespace between tokens (what
// is inside a string stays) and none of the bytes HTMLEscape rewrites. A
// plugin's result is most often one line of JSON without markup: one pass
// over it instead of a compaction and an escape, each a copy.
func plainJSON(raw []byte) bool {
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if escapedByHTMLEscape[c] {
			return false
		}
		switch {
		case inString && c == '\\':
			i++ // the escaped byte is never a quote that ends the string
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return false
		}
	}
	return true
}

// appendCompactEscaped appends raw compacted and HTML-escaped, as
// encoding/json writes a json.RawMessage; false if raw is not valid.
func appendCompactEscaped(b, raw []byte) ([]byte, bool) {
	var compact bytes.Buffer
	compact.Grow(len(raw))
	if json.Compact(&compact, raw) != nil {
		return b, false
	}
	out := bytes.NewBuffer(b)
	json.HTMLEscape(out, compact.Bytes())
	return out.Bytes(), true
}
