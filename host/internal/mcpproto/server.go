// Package mcpproto is the MCP protocol layer both of the host's surfaces
// share: the generic surface (package mcpserver: the six tools) and the
// curated one (package surface: named, reviewed tools). It holds what has
// one correct behaviour whatever tools are published, on the official Go
// SDK, plus what the SDK leaves lax — a stdio transport that answers
// malformed lines and keeps serving, -32022 for any modern protocol version
// the server does not list, initialize after server/discover, the tools
// digest in server/discover's _meta, the caller of a call, the result
// shape, Streamable HTTP with its Origin and token checks, and a guard that
// keeps stray prints off the protocol stream.
//
// It imports neither surface, so a change to one cannot reach the other
// through it.
package mcpproto

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/sdk/wire"
)

// DigestMetaKey is the server/discover _meta key carrying the tools digest.
const DigestMetaKey = "toolhost/toolsDigest"

// requestIDMetaKey is the _meta key the transports put on tools/call
// requests to carry the JSON-RPC request id to the handler (the SDK has no
// accessor for it). Whatever a client sends under this key is overwritten.
const requestIDMetaKey = "toolhost/requestId"

// modernVersion is the first protocol version of the modern (sessionless)
// era; initialize never answers with it or anything later.
const modernVersion = "2026-07-28"

// Tool is one published tool and its handler.
type Tool struct {
	Tool    *mcp.Tool
	Handler mcp.ToolHandler
}

// Options configure a Server. Name and Tools are required.
type Options struct {
	// Name and Title are the server's serverInfo name and title.
	Name  string
	Title string
	// Version is the host's version, reported in serverInfo.
	Version string
	// Instructions are the server instructions every client receives.
	Instructions string
	// Tools are the tools the server publishes; they never change while it
	// runs.
	Tools []Tool
	// Logger receives the server's and the SDK's logs (default: none).
	Logger hclog.Logger
}

// Server is an MCP server publishing a fixed list of tools.
type Server struct {
	opts   Options
	mcp    *mcp.Server
	tools  []*mcp.Tool
	digest string
	// versions is the protocol versions the server lists, newest first.
	versions []string
	// sessions maps *mcp.ServerSession to *sessionInfo; wg waits for the
	// goroutines that forget ended sessions.
	sessions sync.Map
	wg       sync.WaitGroup
	// idSeq numbers the markers that stand in for HTTP request ids the SDK
	// would not round-trip exactly.
	idSeq atomic.Int64
	// prompts names the published prompts (prompts.go).
	promptsMu sync.Mutex
	prompts   map[string]bool
	// resources names the published resources and templates (prompts.go).
	resourcesMu sync.Mutex
	resources   map[string]bool
}

// New builds the server and registers its tools. It panics when two tools
// share a name or a tool cannot be encoded: both are programmer errors.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{opts: opts, versions: mcp.SupportedProtocolVersions()}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Title: opts.Title, Version: opts.Version}, &mcp.ServerOptions{
		Instructions: opts.Instructions,
		Logger:       newSlogLogger(opts.Logger.Named("mcp")),
		// The tools never change while the server runs: no listChanged, and
		// no logging (the host logs to stderr; MCP logging is deprecated in
		// 2026-07-28).
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	seen := map[string]bool{}
	for _, t := range opts.Tools {
		if seen[t.Tool.Name] {
			panic(fmt.Sprintf("mcpproto: tool %q published twice", t.Tool.Name))
		}
		seen[t.Tool.Name] = true
		s.mcp.AddTool(t.Tool, boundToCarrier(t.Handler))
		s.tools = append(s.tools, t.Tool)
	}
	// tools/list publishes the tools sorted by name; the digest is over
	// that array.
	slices.SortFunc(s.tools, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	d, err := Digest(s.tools)
	if err != nil {
		panic(err)
	}
	s.digest = d
	s.mcp.AddReceivingMiddleware(s.middleware)
	return s
}

// MCP returns the underlying SDK server (for the HTTP handler and tests).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Tools returns the published tools, sorted by name.
func (s *Server) Tools() []*mcp.Tool { return slices.Clone(s.tools) }

// ToolsDigest returns the sha256 (hex) of the canonical JSON of the
// published tools array: the value server/discover reports under
// DigestMetaKey.
func (s *Server) ToolsDigest() string { return s.digest }

// Versions returns the protocol versions the server lists, newest first.
func (s *Server) Versions() []string { return slices.Clone(s.versions) }

// Run serves one session on t until the client goes away or ctx ends. A
// clean end of input is not an error.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	err := s.mcp.Run(ctx, t)
	s.wg.Wait()
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("mcp: serve: %w", err)
	}
	return nil
}

// Digest is the sha256 (hex) of the canonical JSON of a tools array: keys
// sorted, no whitespace, UTF-8 unescaped.
func Digest(tools []*mcp.Tool) (string, error) {
	raw, err := json.Marshal(tools)
	if err != nil {
		return "", fmt.Errorf("mcp: digest: %w", err)
	}
	canon, err := Canonical(raw)
	if err != nil {
		return "", fmt.Errorf("mcp: digest: %w", err)
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}

// Canonical re-encodes JSON with object keys sorted, no insignificant
// whitespace, and no HTML or non-ASCII escaping.
func Canonical(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("canonical json: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // maps encode with sorted keys
		return nil, fmt.Errorf("canonical json: %w", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// Caller builds the caller of docs/design.md ("The caller"): the client's name and version
// (modern: the request's _meta; legacy: initialize's clientInfo) and the
// request id.
func (s *Server) Caller(req *mcp.CallToolRequest) *wire.Caller {
	// The channel is the host's to say: whatever name the client gives, a
	// call over MCP is never the terminal's.
	c := &wire.Caller{ClientName: "unknown", Channel: wire.ChannelMCP}
	if info := req.ClientInfo(); info != nil && info.Name != "" {
		c.ClientName, c.ClientVersion = info.Name, info.Version
	}
	if meta := req.Params.GetMeta(); meta != nil {
		if id, ok := meta[requestIDMetaKey].(string); ok {
			c.RequestId = id
		}
	}
	if !isModern(req.Params.GetMeta()) {
		if info := s.legacyClientInfo(req.Session); info != nil && info.Name != "" {
			c.ClientName, c.ClientVersion = info.Name, info.Version
		}
	}
	return c
}

// ProgressSender forwards a plugin's progress as notifications/progress
// with the request's token, keeping progress strictly increasing as the
// spec asks. It returns nil when the request asked for no progress.
func ProgressSender(ctx context.Context, req *mcp.CallToolRequest) func(*wire.Progress) {
	token := req.Params.GetProgressToken()
	if token == nil {
		return nil
	}
	ss := req.Session
	last := -1.0
	return func(p *wire.Progress) {
		v := p.GetProgress()
		if v <= last {
			v = last + 1
		}
		last = v
		_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token,
			Progress: v, Total: p.GetTotal(), Message: p.GetMessage()})
	}
}
