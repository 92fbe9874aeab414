package mcpproto

import (
	"bytes"
	"encoding/json"
	"sync"
)

// lineBuffers are the buffers answers are encoded into; an answer's buffer
// goes back once its line is written.
var lineBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledLine bounds the buffers kept for reuse, so one large answer
// does not stay in memory for the rest of the session.
const maxPooledLine = 64 << 10

// putLineBuffer returns a buffer to lineBuffers.
func putLineBuffer(b *bytes.Buffer) {
	if b.Cap() <= maxPooledLine {
		b.Reset()
		lineBuffers.Put(b)
	}
}

// encodeResult encodes a successful answer exactly as jsonrpc.EncodeMessage
// and withWireID together do — {"jsonrpc":"2.0","id":<the client's id>,
// "result":<result, compacted>} — in one pass into a pooled buffer, with
// the room for writeLine's newline: no reflection, no second copy to put
// the client's id back. It reports false for what it does not handle (no
// result, or a result that is not valid JSON), which takes the general
// path and its errors. compact says the caller encoded result itself,
// valid and compact (the fast path's encodeToolResult): it is then written
// as it is, not checked and copied by json.Compact a second time.
func encodeResult(wireID, result json.RawMessage, compact bool) (*bytes.Buffer, bool) {
	if len(result) == 0 {
		return nil, false
	}
	if len(wireID) == 0 {
		wireID = json.RawMessage("null")
	}
	buf := lineBuffers.Get().(*bytes.Buffer)
	buf.Grow(len(`{"jsonrpc":"2.0","id":,"result":}`) + len(wireID) + len(result) + 1)
	buf.WriteString(`{"jsonrpc":"2.0","id":`)
	buf.Write(wireID)
	buf.WriteString(`,"result":`)
	if compact {
		buf.Write(result)
	} else if err := json.Compact(buf, result); err != nil {
		putLineBuffer(buf)
		return nil, false
	}
	buf.WriteByte('}')
	return buf, true
}
