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
	"strconv"
	"strings"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/host/internal/httpops"
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
	// Stop, when closed, stops accepting requests; ServeHTTP returns once
	// every request in flight is answered, or ctx ends (then the requests
	// left are cut off). Nil: ctx's end stops it.
	Stop <-chan struct{}
	// Wrap, when set, is given the MCP handler and returns what the
	// listener serves (the operations around it: probes, rate limit,
	// authentication, access log; package httpops).
	Wrap func(mcp http.Handler) http.Handler
	// Authenticated says Wrap authenticates every MCP request (OAuth), so
	// serving off loopback needs no Token.
	Authenticated bool
	// TLSCert and TLSKey, when set, are PEM files: the listener serves
	// HTTPS.
	TLSCert, TLSKey string
}

// maxHeaderBytes bounds one request's headers (431 beyond).
const maxHeaderBytes = 64 << 10

// maxBodyBytes bounds one HTTP request body.
const maxBodyBytes = 16 << 20

// ServeHTTP serves MCP over Streamable HTTP at /mcp (and /) until Stop
// closes (or ctx ends): loopback by default, the Origin header checked, and
// a bearer token required off loopback.
func ServeHTTP(ctx context.Context, s *Server, opts HTTPOptions) error {
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	if (opts.TLSCert == "") != (opts.TLSKey == "") {
		return errors.New("mcp: TLS needs both --tls-cert and --tls-key")
	}
	addr, err := listenAddrAuth(opts.Addr, opts.Token != "" || opts.Authenticated)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("mcp: listen: %w", err)
	}
	var h http.Handler = s.HTTPHandler(opts.Token)
	if opts.Wrap != nil {
		h = opts.Wrap(h)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: httpops.ReadHeaderTimeout, IdleTimeout: httpops.IdleTimeout, MaxHeaderBytes: maxHeaderBytes}
	if opts.Ready != nil {
		opts.Ready(ln.Addr().String())
	}
	scheme := "http"
	if opts.TLSCert != "" {
		scheme = "https"
	}
	opts.Logger.Info("serving MCP over Streamable HTTP", "addr", scheme+"://"+ln.Addr().String()+"/mcp", "tools_digest", s.digest)
	errc := make(chan error, 1)
	go func() {
		if opts.TLSCert != "" {
			errc <- srv.ServeTLS(ln, opts.TLSCert, opts.TLSKey)
			return
		}
		errc <- srv.Serve(ln)
	}()
	stop := opts.Stop
	if stop == nil {
		stop = ctx.Done()
	}
	select {
	case err := <-errc:
		return fmt.Errorf("mcp: http: %w", err)
	case <-ctx.Done():
	case <-stop:
	}
	// Stop listening, let the requests in flight finish; when ctx ends
	// first, cut them off.
	if err := srv.Shutdown(ctx); err != nil {
		_ = srv.Close()
	}
	s.wg.Wait()
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("mcp: http: %w", err)
	}
	return nil
}

// listenAddr resolves --http's value: "PORT", ":PORT" and "HOST:PORT"; an
// empty host is 127.0.0.1. A host that is not loopback needs a token.
func listenAddr(addr, token string) (string, error) {
	return listenAddrAuth(addr, token != "")
}

// listenAddrAuth is listenAddr where authenticated says whether requests
// must prove who sends them (a token, or OAuth).
func listenAddrAuth(addr string, authenticated bool) (string, error) {
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
	if !isLoopbackHost(host) && !authenticated {
		return "", fmt.Errorf("mcp: serving HTTP on %s (not loopback) needs a bearer token: set HOST_HTTP_TOKEN (or use OAuth: --oauth-issuer and --oauth-audience)", host)
	}
	return net.JoinHostPort(host, port), nil
}

// HTTPHandler is the Streamable HTTP handler: token and Origin checks, the
// request id carried to tools/call handlers, then the SDK's handler.
func (s *Server) HTTPHandler(token string) http.Handler {
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Stateless: true, Logger: newSlogLogger(s.opts.Logger.Named("http")),
			// The body is bounded here (maxBodyBytes) so that a large
			// argument reaches the dispatcher, which names the args limit.
			MaxRequestBodyBytes: maxBodyBytes})
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
				writeJSONError(w, http.StatusRequestEntityTooLarge, nil, jsonrpc.CodeInvalidRequest,
					fmt.Sprintf("Invalid Request: the body is over the host's limit of %d bytes: send less (a large argument belongs in a file the tool reads)", maxBodyBytes))
				return
			}
			body, w = s.prepareBody(w, r.Header, body)
			if body == nil {
				return // answered
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		defer func() {
			// The SDK's handler must never drop the connection without an
			// answer; a panic in it is a host bug, logged and answered.
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.opts.Logger.Error("HTTP handler panicked", "panic", v)
				writeJSONError(w, http.StatusInternalServerError, nil, jsonrpc.CodeInternalError, "Internal error: the host could not handle this request")
			}
		}()
		sdk.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), carrierKey{}, r.Context())))
		if iw, ok := w.(*idWriter); ok {
			iw.finish()
		}
	})
}

// carrierKey is the context key under which HTTPHandler hands the HTTP
// request's own context to the tools/call handler (the SDK keeps context
// values, not cancellation, when it runs a handler).
type carrierKey struct{}

// boundToCarrier makes a tool call over HTTP end when its HTTP request
// does. The host serves HTTP stateless, with no event store: once the client
// closes the connection the answer can never be delivered, and a
// notifications/cancelled POSTed on its own cannot reach the call, so the
// disconnect is the only cancellation a client has, in either era (the
// 2026-07-28 revision says so; for the older ones, whose advice that a
// disconnect is not a cancel rests on resumable sessions, it is the same
// fact). Over stdio there is no carrier and h runs as it is.
func boundToCarrier(h mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		carrier, ok := ctx.Value(carrierKey{}).(context.Context)
		if !ok {
			return h(ctx, req)
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stop := context.AfterFunc(carrier, cancel)
		defer stop()
		return h(ctx, req)
	}
}

// prepareBody applies the host's rules to a POST body before the SDK sees
// it: a batch is refused as on stdio, a modern request whose
// Mcp-Protocol-Version header differs from its _meta version gets -32020, one
// naming an unlisted version -32022, a tools/call carries its id to the handler, and an
// id the SDK would not round-trip exactly (1.5, 1e30, 2^53+1) is swapped
// for a marker the returned writer swaps back. It returns nil when it
// answered the request itself.
func (s *Server) prepareBody(w http.ResponseWriter, header http.Header, body []byte) ([]byte, http.ResponseWriter) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		writeJSONError(w, http.StatusBadRequest, nil, jsonrpc.CodeInvalidRequest, batchRefused)
		return nil, w
	}
	msg, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		return body, w // the SDK answers what it cannot decode
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() {
		return body, w
	}
	wireID := rawID(body)
	if msg := headerMismatch(req, header); msg != "" {
		writeJSONError(w, http.StatusBadRequest, wireID, CodeHeaderMismatch, msg)
		return nil, w
	}
	if data := unsupportedVersion(metaOf(req.Params), s.versions); data != nil {
		writeJSONError(w, http.StatusBadRequest, wireID, CodeUnsupportedProtocolVersion, "Unsupported protocol version", data)
		return nil, w
	}
	changed := false
	if req.Method == "tools/call" {
		req.Params = withMeta(req.Params, requestIDMetaKey, idText(wireID))
		changed = true
	}
	if !exactID(wireID) {
		marker := fmt.Sprintf("toolhost-id-%d", s.idSeq.Add(1))
		req.ID, _ = jsonrpc.MakeID(marker)
		w = newIDWriter(w, `"id":"`+marker+`"`, `"id":`+string(wireID))
		changed = true
	}
	if changed {
		if b, err := jsonrpc.EncodeMessage(req); err == nil {
			body = b
		}
	}
	return body, w
}

// exactID reports whether the SDK gives a raw id back unchanged: a string,
// or an integer written plainly that a float64 holds exactly (the SDK
// decodes ids as float64, then converts them to int64).
func exactID(raw json.RawMessage) bool {
	if len(raw) == 0 || raw[0] == '"' {
		return true
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil && strconv.FormatInt(n, 10) == string(raw) && n <= 1<<53 && n >= -(1<<53)
}

// writeJSONError answers an HTTP request with a JSON-RPC error.
func writeJSONError(w http.ResponseWriter, status int, id json.RawMessage, code int64, message string, data ...json.RawMessage) {
	var d json.RawMessage
	if len(data) > 0 {
		d = data[0]
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(errorLine(id, code, message, d))
}

// idWriter replaces one marker with the client's raw id in everything the
// SDK writes, holding back only a tail that may be the start of the marker
// (an SSE event ends in "\n\n", so nothing is held across a flush).
type idWriter struct {
	http.ResponseWriter
	old, new []byte
	held     []byte
}

func newIDWriter(w http.ResponseWriter, old, new string) *idWriter {
	return &idWriter{ResponseWriter: w, old: []byte(old), new: []byte(new)}
}

func (w *idWriter) Write(p []byte) (int, error) {
	buf := append(w.held, p...)
	buf = bytes.ReplaceAll(buf, w.old, w.new)
	keep := 0
	for n := min(len(w.old)-1, len(buf)); n > 0; n-- {
		if bytes.HasSuffix(buf, w.old[:n]) {
			keep = n
			break
		}
	}
	w.held = append([]byte(nil), buf[len(buf)-keep:]...)
	if _, err := w.ResponseWriter.Write(buf[:len(buf)-keep]); err != nil {
		return 0, err
	}
	return len(p), nil
}

// finish writes what is held.
func (w *idWriter) finish() {
	if len(w.held) > 0 {
		_, _ = w.ResponseWriter.Write(w.held)
		w.held = nil
	}
}

// Flush writes what is held and flushes.
func (w *idWriter) Flush() {
	w.finish()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *idWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

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
