// Package httpops is what a team running `host serve --http` behind a load
// balancer expects around the MCP endpoint: liveness and readiness probes
// (/healthz, /readyz), a bound on request bodies, a per-client token-bucket
// rate limit (429 with Retry-After), the client's address taken from
// X-Forwarded-For only when the peer is a configured trusted proxy,
// structured access logs on stderr, and servers whose connections time out.
// It knows nothing of MCP: Handler wraps whatever serves the MCP path.
package httpops

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sync/semaphore"
)

// DefaultMCPPath is the path that serves MCP unless Options.MCPPath says.
const DefaultMCPPath = "/mcp"

// DefaultMaxBodyBytes bounds a request body unless Options.MaxBodyBytes
// says.
const DefaultMaxBodyBytes = 16 << 20

// Options configure Handler. Every field may be left zero.
type Options struct {
	// MCPPath is the one path that serves MCP (default /mcp); any other
	// path that is not a probe or a route is 404.
	MCPPath string
	// MaxBodyBytes bounds a request body to the MCP path (default
	// DefaultMaxBodyBytes):
	// a larger declared length is refused before anything is read, and a
	// body read is cut off there.
	MaxBodyBytes int64
	// BodyBudget bounds the body bytes of the requests being served at
	// once (default four times MaxBodyBytes), each counted at its declared
	// length (MaxBodyBytes when it declares none); a request that does not
	// fit waits its turn, and after a while gets 503 with Retry-After.
	BodyBudget int64
	// Ready reports whether this replica can serve calls (nil: always);
	// /readyz answers 200 or 503 and nothing more, so that it can be
	// probed without credentials; why it is not ready goes to Logger.
	Ready func() (detail any, err error)
	// Logger receives why the replica is not ready, when that changes.
	Logger hclog.Logger
	// Limiter, when set, limits each client's requests to the MCP endpoint.
	Limiter *Limiter
	// Proxies are the peers trusted to name the client in X-Forwarded-For.
	Proxies *Proxies
	// Identify, when set, names the client a request comes from (the
	// authenticated subject); "" falls back to the client's address. It
	// runs after the request passed Authenticate.
	Identify func(*http.Request) string
	// Authenticate, when set, wraps the MCP endpoint before the rate
	// limit: it answers a request it refuses, and passes the others on
	// carrying what it learnt. It runs before the body is read.
	Authenticate func(http.Handler) http.Handler
	// Routes are served beside the probes (e.g. the OAuth protected
	// resource metadata), with no authentication and no rate limit.
	Routes map[string]http.Handler
	// AccessLog receives one line per request (nil: none).
	AccessLog hclog.Logger
	// Observe, when set, is told of every request's status (metrics).
	Observe func(status int)
}

// Handler serves /healthz, /readyz and opts.Routes, and the MCP path
// through the body bound, authentication and the rate limit to mcp; every
// other path is 404. Every request is logged to opts.AccessLog.
func Handler(mcp http.Handler, opts Options) http.Handler {
	if opts.MCPPath == "" {
		opts.MCPPath = DefaultMCPPath
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.BodyBudget < opts.MaxBodyBytes {
		opts.BodyBudget = 4 * opts.MaxBodyBytes
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "alive"})
	})
	mux.HandleFunc("GET /readyz", readyz(opts))
	for pattern, h := range opts.Routes {
		mux.Handle(pattern, h)
	}
	var guarded http.Handler = limited(budgeted(mcp, opts), opts)
	if opts.Authenticate != nil {
		guarded = opts.Authenticate(guarded)
	}
	mux.Handle(opts.MCPPath, bounded(guarded, opts.MaxBodyBytes))
	return accessLog(mux, opts)
}

// readyz answers ready or not ready; the reason is logged when it changes,
// never sent: /readyz needs no credentials.
func readyz(opts Options) http.HandlerFunc {
	var mu sync.Mutex
	last := ""
	return func(w http.ResponseWriter, _ *http.Request) {
		var err error
		if opts.Ready != nil {
			_, err = opts.Ready()
		}
		reason := ""
		if err != nil {
			reason = err.Error()
		}
		mu.Lock()
		changed := reason != last
		last = reason
		mu.Unlock()
		if changed && opts.Logger != nil {
			if err != nil {
				opts.Logger.Warn("not ready", "reason", reason)
			} else {
				opts.Logger.Info("ready")
			}
		}
		if err != nil {
			writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "not ready"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"status": "ready"})
	}
}

// bounded refuses a body declared larger than limit before reading any of
// it, and cuts off one that grows past it (413 from whoever reads it).
func bounded(next http.Handler, limit int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > limit {
			w.Header().Set("Connection", "close")
			writeJSON(w, http.StatusRequestEntityTooLarge, map[string]any{"error": fmt.Sprintf(
				"the body is over the host's limit of %d bytes: send less (a large argument belongs in a file the tool reads)", limit)})
			return
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, limit)
		}
		next.ServeHTTP(w, r)
	})
}

// largeBody is the declared size from which a request's body counts as
// large: once the last large request in flight is answered, the memory its
// reading took is handed back to the system.
const largeBody = 1 << 20

// budgeted serves a request once its body fits in opts.BodyBudget with the
// bodies of the requests being served, so a burst of large bodies is
// decoded a few at a time. When the last large body in flight is done the
// heap it grew is returned to the system at once: its bytes were copied by
// the decoders behind this handler, the runtime would otherwise keep them
// for minutes, and a burst of large bodies is rare enough that one
// collection after it costs nothing a client notices.
func budgeted(next http.Handler, opts Options) http.Handler {
	budget := semaphore.NewWeighted(opts.BodyBudget)
	var large atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		weight := r.ContentLength
		if weight < 0 || (weight == 0 && r.Body != nil && r.Body != http.NoBody) {
			weight = opts.MaxBodyBytes
		}
		if weight == 0 {
			next.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), budgetWait)
		err := budget.Acquire(ctx, weight)
		cancel()
		if err != nil {
			w.Header().Set("Retry-After", "1")
			writeJSON(w, http.StatusServiceUnavailable, map[string]any{"error": "busy: too many large requests at once; retry after the Retry-After seconds"})
			return
		}
		if weight >= largeBody {
			large.Add(1)
		}
		defer func() {
			budget.Release(weight)
			if weight >= largeBody && large.Add(-1) == 0 {
				debug.FreeOSMemory()
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// budgetWait is how long a request waits for room in the body budget.
const budgetWait = 30 * time.Second

// limited runs the rate limit keyed by who the client is, then next.
func limited(next http.Handler, opts Options) http.Handler {
	if opts.Limiter == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := ""
		if opts.Identify != nil {
			key = opts.Identify(r)
		}
		if key == "" {
			key = "addr " + opts.Proxies.ClientAddr(r)
		} else {
			key = "subject " + key
		}
		if ok, wait := opts.Limiter.Allow(key); !ok {
			secs := int(wait.Round(time.Second) / time.Second)
			if time.Duration(secs)*time.Second < wait {
				secs++ // never tell a client to come back before its token is there
			}
			w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
			writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": "rate limited: this client sent more than " +
				opts.Limiter.String() + "; retry after the Retry-After seconds"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// ReadHeaderTimeout and IdleTimeout are every HTTP listener's: a client
// gets this long to send a request's headers, and a kept-alive connection
// this long between requests.
const (
	ReadHeaderTimeout = 10 * time.Second
	IdleTimeout       = 2 * time.Minute
)

// Timeouts are a server's connection timeouts.
type Timeouts struct {
	ReadHeader, Idle time.Duration
}

// DefaultTimeouts are ReadHeaderTimeout and IdleTimeout.
var DefaultTimeouts = Timeouts{ReadHeader: ReadHeaderTimeout, Idle: IdleTimeout}

// NewServer is an http.Server for h whose connections time out: t's zero
// fields take DefaultTimeouts'.
func NewServer(h http.Handler, t Timeouts) *http.Server {
	if t.ReadHeader <= 0 {
		t.ReadHeader = ReadHeaderTimeout
	}
	if t.Idle <= 0 {
		t.Idle = IdleTimeout
	}
	return &http.Server{Handler: h, ReadHeaderTimeout: t.ReadHeader, IdleTimeout: t.Idle}
}
