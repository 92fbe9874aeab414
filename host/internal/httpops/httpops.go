// Package httpops is what a team running `host serve --http` behind a load
// balancer expects around the MCP endpoint: liveness and readiness probes
// (/healthz, /readyz), a per-client token-bucket rate limit (429 with
// Retry-After), the client's address taken from X-Forwarded-For only when
// the peer is a configured trusted proxy, and structured access logs on
// stderr. It knows nothing of MCP: Handler wraps whatever serves /mcp.
package httpops

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/hashicorp/go-hclog"
)

// Options configure Handler. Every field may be left zero.
type Options struct {
	// Ready reports whether this replica can serve calls (nil: always);
	// /readyz answers 503 with its error, else 200 with its detail.
	Ready func() (detail any, err error)
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
	// carrying what it learnt.
	Authenticate func(http.Handler) http.Handler
	// Routes are served beside the probes (e.g. the OAuth protected
	// resource metadata), with no authentication and no rate limit.
	Routes map[string]http.Handler
	// AccessLog receives one line per request (nil: none).
	AccessLog hclog.Logger
	// Observe, when set, is told of every request's status (metrics).
	Observe func(status int)
}

// Handler serves /healthz, /readyz and opts.Routes, and everything else
// through authentication and the rate limit to mcp; every request is
// logged to opts.AccessLog.
func Handler(mcp http.Handler, opts Options) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "alive"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if opts.Ready == nil {
			writeJSON(w, http.StatusOK, map[string]any{"status": "ready"})
			return
		}
		detail, err := opts.Ready()
		if err != nil {
			writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "not ready", "reason": err.Error(), "detail": detail})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "detail": detail})
	})
	for pattern, h := range opts.Routes {
		mux.Handle(pattern, h)
	}
	var guarded http.Handler = limited(mcp, opts)
	if opts.Authenticate != nil {
		guarded = opts.Authenticate(guarded)
	}
	mux.Handle("/", guarded)
	return accessLog(mux, opts)
}

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
