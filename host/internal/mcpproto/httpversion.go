package mcpproto

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CodeHeaderMismatch is the JSON-RPC error (with HTTP 400) for a modern
// request whose Mcp-Protocol-Version header is missing or differs from the
// protocol version in its _meta (SEP-2575).
const CodeHeaderMismatch = mcp.CodeHeaderMismatch

// protocolVersionHeader is the HTTP header naming a request's protocol
// version.
const protocolVersionHeader = "Mcp-Protocol-Version"

// headerMismatch says why a call's Mcp-Protocol-Version header does not
// match the version its _meta carries, else "". Only a request whose _meta
// names a version is judged: a legacy request carries none, and the
// header alone then says which legacy version it speaks. The header is
// judged before the version itself, so a request naming an unlisted version
// in its body and another in its header learns of the mismatch first (the
// version it meant is the one to retry with).
func headerMismatch(req *jsonrpc.Request, header http.Header) string {
	var params struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(req.Params, &params) != nil {
		return ""
	}
	raw, ok := params.Meta[mcp.MetaKeyProtocolVersion]
	if !ok {
		return ""
	}
	var meta string
	_ = json.Unmarshal(raw, &meta)
	got := header.Get(protocolVersionHeader)
	switch {
	case got == "":
		return fmt.Sprintf("Header mismatch: the request's _meta names protocol version %s but the %s header is missing: send the header with the same version", raw, protocolVersionHeader)
	case got != meta:
		return fmt.Sprintf("Header mismatch: the %s header says %q but the request's _meta says %s: send the same version in both", protocolVersionHeader, got, raw)
	}
	return ""
}
