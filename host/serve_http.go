package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolhost/toolhost/host/internal/httpops"
	"github.com/toolhost/toolhost/host/internal/metrics"
	"github.com/toolhost/toolhost/host/internal/oauth"
	"github.com/toolhost/toolhost/registry"
)

// httpFlags are `host serve`'s operations flags for --http.
type httpFlags struct {
	tlsCert, tlsKey string
	metricsAddr     string
	rateLimit       float64
	rateBurst       int
	trustedProxies  []string
	oauthIssuer     string
	oauthAudience   string
	oauthJWKS       string
}

func (f *httpFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.tlsCert, "tls-cert", "", "with --http: serve HTTPS with this PEM certificate (and --tls-key)")
	fl.StringVar(&f.tlsKey, "tls-key", "", "with --http: the PEM private key of --tls-cert")
	fl.StringVar(&f.metricsAddr, "metrics", "", "with --http: serve Prometheus metrics at /metrics on this address, a listener of its own (loopback by default)")
	fl.Float64Var(&f.rateLimit, "rate-limit", 0, "with --http: requests a second each client may send to /mcp (0: no limit); beyond it 429 with Retry-After")
	fl.IntVar(&f.rateBurst, "rate-burst", 0, "with --rate-limit: requests a client may send at once (default twice the rate, at least 1)")
	fl.StringSliceVar(&f.trustedProxies, "trusted-proxy", nil, "with --http: a load balancer's address or CIDR prefix whose X-Forwarded-For names the client (repeatable)")
	fl.StringVar(&f.oauthIssuer, "oauth-issuer", "", "with --http: OAuth 2.1 resource-server mode: accept JWT access tokens from this issuer (its JWKS checks them)")
	fl.StringVar(&f.oauthAudience, "oauth-audience", "", "with --oauth-issuer: this server's resource URL (e.g. https://mcp.example.com/mcp); tokens' aud must contain it")
	fl.StringVar(&f.oauthJWKS, "oauth-jwks", "", "with --oauth-issuer: the issuer's JWKS URL (default: jwks_uri from its metadata)")
}

// opsConfig is the HTTP operations built from the flags: the options for
// mcpproto.ServeHTTP and the metrics (nil when --metrics is not set).
type opsConfig struct {
	wrap          func(http.Handler) http.Handler
	authenticated bool
	metrics       *metrics.Metrics
}

// build checks the flags and builds what serving needs. a's supervisor
// reports launches and crashes to the metrics.
func (f *httpFlags) build(a *app) (*opsConfig, error) {
	if f.rateLimit < 0 {
		return nil, fmt.Errorf("serve: --rate-limit %g: must be 0 (off) or more", f.rateLimit)
	}
	proxies, err := httpops.ParseProxies(f.trustedProxies)
	if err != nil {
		return nil, fmt.Errorf("serve: --trusted-proxy: %w", err)
	}
	cfg := &opsConfig{}
	opts := httpops.Options{Proxies: proxies, AccessLog: a.logger.Named("access"), Ready: readiness(a), Logger: a.logger.Named("readyz")}
	if f.rateLimit > 0 {
		burst := f.rateBurst
		if burst <= 0 {
			burst = max(int(2*f.rateLimit), 1)
		}
		opts.Limiter = httpops.NewLimiter(f.rateLimit, burst, nil)
	}
	if f.oauthIssuer != "" || f.oauthAudience != "" {
		v, err := oauth.New(oauth.Options{Issuer: f.oauthIssuer, Audience: f.oauthAudience, JWKSURL: f.oauthJWKS})
		if err != nil {
			return nil, fmt.Errorf("serve: %w", err)
		}
		opts.Authenticate, opts.Routes, opts.Identify = v.Middleware, v.Routes(), oauth.Subject
		cfg.authenticated = true
		a.closers = append(a.closers, v.Close)
	}
	if f.metricsAddr != "" {
		cfg.metrics = metrics.New(a.metricNames)
		opts.Observe = cfg.metrics.HTTPStatus
		a.observe(cfg.metrics)
	}
	cfg.wrap = func(mcp http.Handler) http.Handler { return httpops.Handler(mcp, opts) }
	return cfg, nil
}

// metricNames lets only the registry's tool, agent and action names be
// metric labels.
func (a *app) metricNames(tool, action string) (knownTool, knownAction bool) {
	snap := a.registry.Snapshot()
	if snap == nil {
		return false, false
	}
	for _, t := range snap.Tools {
		if t.Name() == tool {
			return true, t.Manifest.Action(action) != nil
		}
	}
	return false, false
}

// readiness is /readyz: the registry has been scanned and offers at least
// one tool that can run, and plugins can be launched — their run copies
// are made under a writable cache folder (a read-only root with no volume
// there is the usual container mistake). A single tool that is not ready
// does not take the replica out: every replica runs the same image, so it
// would take them all out; /readyz lists it instead.
func readiness(a *app) func() (any, error) {
	return func() (any, error) {
		snap := a.registry.Snapshot()
		if snap == nil {
			return nil, errors.New("the plugin registry is not loaded yet")
		}
		ready, notReady := 0, map[string]string{}
		for _, t := range snap.Tools {
			if t.Ready {
				ready++
			} else {
				notReady[t.Name()] = t.NotReady
			}
		}
		detail := map[string]any{"tools_ready": ready, "not_ready": notReady, "broken_manifests": len(snap.Broken)}
		if ready == 0 {
			return detail, fmt.Errorf("no plugin can run (%d found, none ready)", len(snap.Tools))
		}
		if err := writable(registry.DefaultRunDir()); err != nil {
			return detail, fmt.Errorf("plugins cannot be launched: their run copies go under %s: %w", registry.DefaultRunDir(), err)
		}
		return detail, nil
	}
}

// writable checks that a file can be made in dir (made if missing).
func writable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".readyz-*")
	if err != nil {
		return err
	}
	name := f.Name()
	_ = f.Close()
	return os.Remove(filepath.Clean(name))
}

// serveMetrics serves m at /metrics on addr until ctx ends.
func serveMetrics(ctx context.Context, a *app, addr string, m *metrics.Metrics) (func(), error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		addr = "127.0.0.1:" + addr
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("serve: --metrics: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	srv := httpops.NewServer(mux, httpops.DefaultTimeouts)
	a.logger.Info("serving Prometheus metrics", "addr", "http://"+ln.Addr().String()+"/metrics")
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	return func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		<-done
	}, nil
}
