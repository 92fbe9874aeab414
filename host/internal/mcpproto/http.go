package mcpproto

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configure ServeHTTP.
type HTTPOptions struct {
	// Addr is host:port; an empty host means 127.0.0.1.
	Addr string
	// Token, when set, is the bearer token every request must carry. It is
	// required when Addr is not a loopback address.
	Token string
	// Logger receives the HTTP server's logs (default: none).
	Logger hclog.Logger
	// Ready, when set, receives the address actually listened on.
	Ready func(addr string)
}

// maxBodyBytes bounds one HTTP request body.
const maxBodyBytes = 16 << 20

// ServeHTTP serves MCP over Streamable HTTP at /mcp (and /) until ctx ends:
// loopback by default, the Origin header checked, and a bearer token
// required off loopback.
func ServeHTTP(ctx context.Context, s *Server, opts HTTPOptions) error {
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	addr, err := listenAddr(opts.Addr, opts.Token)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("mcp: listen: %w", err)
	}
	srv := &http.Server{Handler: s.HTTPHandler(opts.Token), ReadHeaderTimeout: 10 * time.Second}
	if opts.Ready != nil {
		opts.Ready(ln.Addr().String())
	}
	opts.Logger.Info("serving MCP over Streamable HTTP", "addr", "http://"+ln.Addr().String()+"/mcp", "tools_digest", s.digest)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("mcp: http: %w", err)
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
		s.wg.Wait()
		if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("mcp: http: %w", err)
		}
		return nil
	}
}

// listenAddr resolves --http's value: "PORT", ":PORT" and "HOST:PORT"; an
// empty host is 127.0.0.1. A host that is not loopback needs a token.
func listenAddr(addr, token string) (string, error) {
	if !strings.Contains(addr, ":") {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("mcp: http address %q: %w", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if !isLoopbackHost(host) && token == "" {
		return "", fmt.Errorf("mcp: serving HTTP on %s (not loopback) needs a bearer token: set HOST_HTTP_TOKEN", host)
	}
	return net.JoinHostPort(host, port), nil
}

// HTTPHandler is the Streamable HTTP handler: token and Origin checks, the
// request id carried to tools/call handlers, then the SDK's handler.
func (s *Server) HTTPHandler(token string) http.Handler {
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Stateless: true, Logger: newSlogLogger(s.opts.Logger.Named("http"))})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="toolhost"`)
				http.Error(w, "unauthorized: send Authorization: Bearer <HOST_HTTP_TOKEN>", http.StatusUnauthorized)
				return
			}
		}
		if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(origin, r.Host) {
			http.Error(w, fmt.Sprintf("forbidden: Origin %q is not allowed", origin), http.StatusForbidden)
			return
		}
		if r.Method == http.MethodPost && r.Body != nil {
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
			if err != nil {
				http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
				return
			}
			if msg, err := jsonrpc.DecodeMessage(body); err == nil {
				if req, ok := msg.(*jsonrpc.Request); ok {
					if data := unsupportedVersion(req, s.versions); data != nil {
						b, _ := json.Marshal(wireResponse{JSONRPC: "2.0", ID: req.ID.Raw(),
							Error: wireError{Code: CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version", Data: data}})
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(http.StatusBadRequest)
						_, _ = w.Write(b)
						return
					}
				}
				if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() && req.Method == "tools/call" {
					req.Params = withMeta(req.Params, requestIDMetaKey, fmt.Sprint(req.ID.Raw()))
					if b, err := jsonrpc.EncodeMessage(req); err == nil {
						body = b
					}
				}
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		sdk.ServeHTTP(w, r)
	})
}

// originAllowed accepts a loopback origin or the server's own.
func originAllowed(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	return isLoopbackHost(u.Hostname()) || strings.EqualFold(u.Host, host)
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(h, "[]"))
	return ip != nil && ip.IsLoopback()
}
