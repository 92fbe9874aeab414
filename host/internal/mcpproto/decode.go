package mcpproto

import (
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sjson "github.com/segmentio/encoding/json"
)

// wireRequest is the top level of one inbound line, as the SDK's
// jsonrpc.DecodeMessage reads it, with the id kept raw.
type wireRequest struct {
	VersionTag string          `json:"jsonrpc"`
	ID         json.RawMessage `json:"id,omitempty"`
	Method     json.RawMessage `json:"method"`
	Params     json.RawMessage `json:"params,omitempty"`
}

// decodeFlags are the SDK decoder's: field names match exactly.
const decodeFlags = sjson.DontMatchCaseInsensitiveStructFields

// maxDepth is the SDK's bound on a message's nesting.
const maxDepth = 1000

// errNotFast sends a line down the SDK's own decoder.
var errNotFast = errors.New("not a plain request")

// decodeRequest decodes a request line exactly as jsonrpc.DecodeMessage
// does (the same JSON library and flags, the same checks), in one pass over
// the line and without the 32 KiB read buffer the SDK's decoder allocates
// per message, and returns the client's id as raw JSON too. Anything else
// — a response, an invalid message — gives errNotFast, and the caller uses
// jsonrpc.DecodeMessage, whose errors the client sees.
func decodeRequest(line []byte) (*jsonrpc.Request, json.RawMessage, error) {
	if !depthWithin(line, maxDepth) {
		return nil, nil, errNotFast
	}
	var w wireRequest
	if _, err := sjson.Parse(line, &w, decodeFlags); err != nil || w.VersionTag != "2.0" || len(w.Method) == 0 {
		return nil, nil, errNotFast
	}
	var idValue any
	if len(w.ID) > 0 {
		if _, err := sjson.Parse(w.ID, &idValue, decodeFlags); err != nil {
			return nil, nil, errNotFast
		}
	}
	id, err := jsonrpc.MakeID(idValue)
	if err != nil {
		return nil, nil, errNotFast
	}
	var method string
	if _, err := sjson.Parse(w.Method, &method, decodeFlags); err != nil {
		return nil, nil, errNotFast
	}
	var wireID json.RawMessage
	if len(w.ID) > 0 {
		switch w.ID[0] {
		case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			wireID = w.ID
		}
	}
	return &jsonrpc.Request{Method: method, ID: id, Params: w.Params}, wireID, nil
}

// depthWithin reports whether data's objects and arrays nest at most max
// deep (brackets inside strings not counted), as the SDK checks.
func depthWithin(data []byte, max int) bool {
	depth, inString, escaped := 0, false, false
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > max {
				return false
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return true
}
