package mcpproto

import (
	"context"
	"encoding/json"
	"slices"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionInfo is what the server remembers of a session's legacy
// initialize.
type sessionInfo struct {
	clientInfo *mcp.Implementation
}

// legacyClientInfo returns the clientInfo a session's initialize gave, or
// nil.
func (s *Server) legacyClientInfo(ss *mcp.ServerSession) *mcp.Implementation {
	if v, ok := s.sessions.Load(ss); ok {
		return v.(*sessionInfo).clientInfo
	}
	return nil
}

// isModern reports whether a request's _meta selects the modern era.
func isModern(meta map[string]any) bool {
	v, ok := meta[mcp.MetaKeyProtocolVersion].(string)
	return ok && v >= modernVersion
}

// middleware adds to the SDK what the host needs on the receiving side:
// initialize after server/discover (or after modern calls) on the same
// session, initialize always answered with a listed legacy version, the
// client's initialize clientInfo remembered for the caller info, and the
// tools digest in server/discover's _meta.
func (s *Server) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if err := s.undeclaredMethod(ctx, method); err != nil {
			return nil, err
		}
		switch method {
		case "initialize":
			return s.initialize(ctx, next, method, req)
		case "server/discover":
			res, err := next(ctx, method, req)
			if dr, ok := res.(*mcp.DiscoverResult); ok && err == nil {
				if dr.Meta == nil {
					dr.Meta = mcp.Meta{}
				}
				dr.Meta[DigestMetaKey] = s.digest
			}
			return res, err
		case "tools/call":
			res, err := next(ctx, method, req)
			if tr, ok := res.(*mcp.CallToolResult); ok && err == nil {
				if bad := unencodable(tr); bad != "" {
					// go-sdk v1.8.0 drops an answer it cannot encode, and
					// the client waits for ever: answer with an error.
					s.opts.Logger.Error("a tools/call result cannot be encoded", "problem", bad)
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Internal error: the host could not encode this result (" + bad + ")"}
				}
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// unencodable says why a tool result's raw structured content would make
// the SDK drop the answer (or put invalid UTF-8 on the wire), else "".
func unencodable(r *mcp.CallToolResult) string {
	raw, ok := r.StructuredContent.(json.RawMessage)
	if !ok || raw == nil {
		return ""
	}
	switch {
	case !json.Valid(raw):
		return "structured content is not valid JSON"
	case !utf8.Valid(raw):
		return "structured content is not valid UTF-8"
	}
	return ""
}

func (s *Server) initialize(ctx context.Context, next mcp.MethodHandler, method string, req mcp.Request) (mcp.Result, error) {
	ss, _ := req.GetSession().(*mcp.ServerSession)
	params, _ := req.GetParams().(*mcp.InitializeParams)
	if ss == nil || params == nil {
		return next(ctx, method, req)
	}
	info := &sessionInfo{clientInfo: params.ClientInfo}
	if _, dup := s.sessions.LoadOrStore(ss, info); dup {
		// A second initialize is a client error; the SDK says so.
		return next(ctx, method, req)
	}
	// Forget the session when it ends (over stateless HTTP every request
	// is a session of its own).
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		_ = ss.Wait()
		s.sessions.Delete(ss)
	}()
	if ss.InitializeParams() != nil {
		// go-sdk v1.8.0 records server/discover (and any modern call) as
		// the session's initialization, then refuses initialize as a
		// duplicate. Claude Code probes with server/discover and then
		// initializes on the same stdio process, so answer it here, with
		// exactly what the SDK would have said.
		s.opts.Logger.Debug("initialize after server/discover", "client", clientName(params.ClientInfo))
		return &mcp.InitializeResult{
			ProtocolVersion: s.legacyVersion(params.ProtocolVersion),
			Capabilities:    s.capabilities(),
			Instructions:    s.opts.Instructions,
			ServerInfo:      &mcp.Implementation{Name: s.opts.Name, Title: s.opts.Title, Version: s.opts.Version},
		}, nil
	}
	// go-sdk v1.8.0 keeps the *requested* version as the session's and
	// judges the era from it (clientSupportsMultiRoundTrip), so a legacy
	// session that asked for 2099-01-01 got modern result fields. Record
	// the version initialize will answer instead.
	params.ProtocolVersion = s.legacyVersion(params.ProtocolVersion)
	res, err := next(ctx, method, req)
	if ir, ok := res.(*mcp.InitializeResult); ok && err == nil {
		// Never echo a version the server does not list, never a modern one.
		ir.ProtocolVersion = s.legacyVersion(ir.ProtocolVersion)
	}
	return res, err
}

// legacyVersion is the version initialize answers for a requested one: the
// request itself when the server lists it and it is legacy, else the newest
// legacy version the server lists.
func (s *Server) legacyVersion(requested string) string {
	if requested < modernVersion && slices.Contains(s.versions, requested) {
		return requested
	}
	for _, v := range s.versions {
		if v < modernVersion {
			return v
		}
	}
	return "2025-11-25"
}

func clientName(info *mcp.Implementation) string {
	if info == nil {
		return ""
	}
	return info.Name
}
