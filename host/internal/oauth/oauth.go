// Package oauth is the host's OAuth 2.1 resource-server mode, as the MCP
// authorization spec describes it: every request to the MCP endpoint
// carries a JWT access token issued by a configured authorization server;
// the host checks its signature against the issuer's JWKS, its issuer,
// audience (this server), expiry, not-before and issued-at, and maps its
// scopes to the tools it may call. It serves the protected-resource
// metadata (RFC 9728) at /.well-known/oauth-protected-resource and points
// to it from WWW-Authenticate on every 401 and 403.
//
// The bearer check and the metadata are the go-sdk's auth package; tokens
// are parsed and checked by golang-jwt, with keys from keyfunc's JWKS
// cache. The scope check runs on the call the dispatcher is about to run
// (Scoped), never on the raw request body.
//
// Scopes: "tools:*" allows every tool; "tools:NAME" allows the tool or
// agent NAME — the one that runs: run_tool's and run_agent's tool or
// agent, or the tool behind a curated surface's published name.
// capabilities, get_skill, tools/list and the other methods that only
// describe need only a valid token; capabilities shows only the tools and
// agents the scopes allow (ToolFilter). The prompts and resources a tool
// contributes (notes/…, notes://…) need the tool's scope too (Check), and
// their lists show only those of allowed tools.
package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/time/rate"

	"github.com/toolhost/toolhost/host/internal/dispatch"
	"github.com/toolhost/toolhost/sdk/wire"
)

// MetadataPath is where the protected-resource metadata is served.
const MetadataPath = "/.well-known/oauth-protected-resource"

// AllTools is the scope allowing every tool; ToolScopePrefix+NAME allows one.
const (
	AllTools        = "tools:*"
	ToolScopePrefix = "tools:"
)

// CodeInsufficientScope is the error code of a call the token's scopes do
// not allow.
const CodeInsufficientScope wire.Code = "insufficient_scope"

// algorithms are the signature algorithms accepted: asymmetric only, so a
// token signed with HMAC over the issuer's public key, or with "none",
// never verifies.
var algorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// leeway is the clock skew allowed on exp, nbf and iat.
const leeway = 30 * time.Second

// maxKeySetBytes bounds the issuer's metadata and JWKS documents.
const maxKeySetBytes = 1 << 20

// Options configure a Validator. Issuer and Audience are required.
type Options struct {
	// Issuer is the authorization server: tokens' iss must equal it.
	Issuer string
	// Audience is this server's resource identifier (its MCP URL, e.g.
	// https://mcp.example.com/mcp): tokens' aud must contain it. It is the
	// metadata's "resource".
	Audience string
	// JWKSURL is where the issuer's keys are (default: its jwks_uri,
	// read from the issuer's /.well-known/oauth-authorization-server or
	// /.well-known/openid-configuration).
	JWKSURL string
	// Client fetches the metadata and keys (default: 10s timeout).
	Client *http.Client
	// RefreshInterval is how often the key set is fetched again, so that
	// a key the issuer withdrew stops verifying (default 15 minutes).
	RefreshInterval time.Duration
	// UnknownKeyInterval is the least time between two fetches caused by
	// a token naming a key not in the set, whether the last fetch worked
	// or not (default 10 seconds).
	UnknownKeyInterval time.Duration
	// Now is the clock tokens are judged by (default time.Now).
	Now func() time.Time
}

// Validator checks access tokens and guards the MCP endpoint. Close stops
// its key refreshes.
type Validator struct {
	opts   Options
	parser *jwt.Parser
	ctx    context.Context
	cancel context.CancelFunc

	// keys is the JWKS cache once fetched; reading it takes no lock, so a
	// fetch that hangs never delays a token whose key is known.
	keys atomic.Pointer[keySet]
	// first serialises the first fetch (finding the JWKS URL), tried
	// again at most once every UnknownKeyInterval after a failure.
	first     sync.Mutex
	lastFirst time.Time
	firstErr  error
	// unknown allows one fetch per UnknownKeyInterval for a token naming
	// a key not in the set; a token arriving in between is refused at
	// once, never queued behind the fetch.
	unknown *rate.Limiter
	jwksURL string
}

// keySet is one fetched JWKS, refreshed in the background until stop.
type keySet struct {
	kf   keyfunc.Keyfunc
	stop context.CancelFunc
}

// New checks opts. Keys are fetched on first use, so the host starts while
// the issuer is down. Issuer and JWKS URLs must be https, except on
// loopback.
func New(opts Options) (*Validator, error) {
	if opts.Issuer == "" || opts.Audience == "" {
		return nil, errors.New("oauth: resource-server mode needs both --oauth-issuer (the authorization server's issuer URL) and --oauth-audience (this server's MCP URL)")
	}
	for _, u := range []struct{ flag, url string }{{"--oauth-issuer", opts.Issuer}, {"--oauth-jwks", opts.JWKSURL}} {
		if u.url != "" {
			if err := checkFetchURL(u.url); err != nil {
				return nil, fmt.Errorf("oauth: %s: %w", u.flag, err)
			}
		}
	}
	if p, err := url.Parse(opts.Audience); err != nil || p.Host == "" || (p.Scheme != "https" && p.Scheme != "http") {
		return nil, fmt.Errorf("oauth: --oauth-audience %q is not an absolute http(s) URL", opts.Audience)
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 10 * time.Second}
	}
	opts.Client = boundedClient(opts.Client)
	if opts.RefreshInterval <= 0 {
		opts.RefreshInterval = 15 * time.Minute
	}
	if opts.UnknownKeyInterval <= 0 {
		opts.UnknownKeyInterval = 10 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	v := &Validator{opts: opts, jwksURL: opts.JWKSURL, unknown: rate.NewLimiter(rate.Every(opts.UnknownKeyInterval), 1)}
	v.ctx, v.cancel = context.WithCancel(context.Background())
	v.parser = jwt.NewParser(jwt.WithValidMethods(algorithms), jwt.WithIssuer(opts.Issuer), jwt.WithAudience(opts.Audience),
		jwt.WithExpirationRequired(), jwt.WithIssuedAt(), jwt.WithLeeway(leeway), jwt.WithTimeFunc(opts.Now))
	return v, nil
}

// Close stops the background key refreshes.
func (v *Validator) Close() { v.cancel() }

// checkFetchURL accepts an absolute https URL, or http on loopback only: a
// key set fetched in the clear can be swapped on the way.
func checkFetchURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not an absolute URL", raw)
	}
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return nil
	case u.Scheme == "http":
		return fmt.Errorf("%q is http:// off loopback: the issuer's keys must come over https (use https://%s%s)", raw, u.Host, u.Path)
	}
	return fmt.Errorf("%q is not an https URL", raw)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// boundedClient is c refusing redirects to URLs checkFetchURL refuses and
// reading at most maxKeySetBytes of any answer.
func boundedClient(c *http.Client) *http.Client {
	cc := *c
	next := cc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	cc.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(r)
		if err == nil {
			resp.Body = struct {
				io.Reader
				io.Closer
			}{io.LimitReader(resp.Body, maxKeySetBytes), resp.Body}
		}
		return resp, err
	})
	cc.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("too many redirects")
		}
		return checkFetchURL(r.URL.String())
	}
	return &cc
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// MetadataURL is the absolute URL of the protected-resource metadata.
func (v *Validator) MetadataURL() string {
	u, _ := url.Parse(v.opts.Audience)
	return u.Scheme + "://" + u.Host + MetadataPath
}

// Routes are the metadata routes: the well-known path alone and with the
// resource's path appended (RFC 9728 §3.1).
func (v *Validator) Routes() map[string]http.Handler {
	h := auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               v.opts.Audience,
		AuthorizationServers:   []string{v.opts.Issuer},
		BearerMethodsSupported: []string{"header"},
		ScopesSupported:        []string{AllTools},
		ResourceName:           "toolhost",
	})
	routes := map[string]http.Handler{"GET " + MetadataPath: h}
	if u, _ := url.Parse(v.opts.Audience); strings.Trim(u.Path, "/") != "" {
		routes["GET "+MetadataPath+"/"+strings.Trim(u.Path, "/")] = h
	}
	return routes
}

// tokenClaims are the claims the host reads.
type tokenClaims struct {
	jwt.RegisteredClaims
	Scope string   `json:"scope"`
	Scp   []string `json:"scp"`
}

// Validate checks a compact JWT and returns what the host takes from it.
// Every error wraps auth.ErrInvalidToken.
func (v *Validator) Validate(ctx context.Context, token string) (*auth.TokenInfo, error) {
	ks, err := v.keySet(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", auth.ErrInvalidToken, err)
	}
	var c tokenClaims
	_, err = v.parser.ParseWithClaims(token, &c, ks.kf.KeyfuncCtx(ctx))
	if errors.Is(err, jwkset.ErrKeyNotFound) && v.unknown.Allow() {
		// The issuer may have published a new key since the last fetch.
		if ks, ferr := v.fetch(); ferr == nil {
			c = tokenClaims{}
			_, err = v.parser.ParseWithClaims(token, &c, ks.kf.KeyfuncCtx(ctx))
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: oauth: %w (want a token signed with a key of %s, iss %q, aud containing %q)",
			auth.ErrInvalidToken, err, v.opts.Issuer, v.opts.Issuer, v.opts.Audience)
	}
	return &auth.TokenInfo{Scopes: append(strings.Fields(c.Scope), c.Scp...), Expiration: c.ExpiresAt.Time,
		UserID: c.Subject}, nil
}

// keySet returns the JWKS cache, fetching it on first use (finding its
// URL in the issuer's metadata unless configured).
func (v *Validator) keySet(ctx context.Context) (*keySet, error) {
	if ks := v.keys.Load(); ks != nil {
		return ks, nil
	}
	v.first.Lock()
	defer v.first.Unlock()
	if ks := v.keys.Load(); ks != nil {
		return ks, nil
	}
	if !v.lastFirst.IsZero() && time.Since(v.lastFirst) < v.opts.UnknownKeyInterval {
		return nil, fmt.Errorf("oauth: the issuer's keys are not available: %w", v.firstErr)
	}
	v.lastFirst = time.Now()
	if v.jwksURL == "" {
		u, err := v.discover(ctx)
		if err != nil {
			v.firstErr = err
			return nil, err
		}
		v.jwksURL = u
	}
	ks, err := v.fetch()
	v.firstErr = err
	return ks, err
}

// fetch reads the key set now and makes it the one tokens are checked
// with; it is then fetched again every RefreshInterval (replacing the
// keys, so a withdrawn key stops verifying) until the next fetch or Close.
func (v *Validator) fetch() (*keySet, error) {
	ctx, stop := context.WithCancel(v.ctx)
	store, err := jwkset.NewStorageFromHTTP(v.jwksURL, jwkset.HTTPClientStorageOptions{
		Client:          v.opts.Client,
		Ctx:             ctx,
		HTTPTimeout:     v.opts.Client.Timeout,
		RefreshInterval: v.opts.RefreshInterval,
	})
	if err != nil {
		stop()
		return nil, fmt.Errorf("oauth: fetch the issuer's keys from %s: %w", v.jwksURL, err)
	}
	// Keys published for encryption never verify a token.
	kf, err := keyfunc.New(keyfunc.Options{Ctx: ctx, Storage: store, UseWhitelist: []jwkset.USE{jwkset.UseSig, ""}})
	if err != nil {
		stop()
		return nil, fmt.Errorf("oauth: the issuer's keys: %w", err)
	}
	ks := &keySet{kf: kf, stop: stop}
	if old := v.keys.Swap(ks); old != nil {
		old.stop()
	}
	return ks, nil
}

// discover finds the issuer's jwks_uri in its metadata (RFC 8414, or
// OpenID Connect discovery).
func (v *Validator) discover(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, v.opts.Client.Timeout)
	defer cancel()
	base := strings.TrimRight(v.opts.Issuer, "/")
	var errs []error
	for _, p := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		var meta struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		if err := v.getJSON(ctx, base+p, &meta); err != nil {
			errs = append(errs, err)
			continue
		}
		if meta.Issuer != "" && strings.TrimRight(meta.Issuer, "/") != base {
			errs = append(errs, fmt.Errorf("%s names the issuer %q, not %q", base+p, meta.Issuer, v.opts.Issuer))
			continue
		}
		if meta.JWKSURI == "" {
			continue
		}
		if err := checkFetchURL(meta.JWKSURI); err != nil {
			return "", fmt.Errorf("oauth: the issuer's jwks_uri: %w", err)
		}
		return meta.JWKSURI, nil
	}
	return "", fmt.Errorf("oauth: the issuer %s names no jwks_uri in its metadata (set --oauth-jwks): %w", v.opts.Issuer, errors.Join(errs...))
}

// getJSON reads one JSON document.
func (v *Validator) getJSON(ctx context.Context, u string, dst any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("fetch %s: %w", u, err)
	}
	resp, err := v.opts.Client.Do(req)
	if err != nil {
		return fmt.Errorf("fetch %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("fetch %s: HTTP %d", u, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(dst); err != nil {
		return fmt.Errorf("fetch %s: %w", u, err)
	}
	return nil
}

// Subject is the authenticated subject of a request Middleware passed
// ("" when none).
func Subject(r *http.Request) string { return SubjectOf(r.Context()) }

// SubjectOf is the authenticated subject ctx carries ("" when none).
func SubjectOf(ctx context.Context) string {
	if ti := auth.TokenInfoFromContext(ctx); ti != nil {
		return ti.UserID
	}
	return ""
}

// Middleware guards the MCP endpoint: the go-sdk's bearer check with this
// validator (401 with WWW-Authenticate naming the metadata, and
// error="invalid_token" when a token was sent), and a 403 insufficient_scope
// answer for a call Scoped refused. It reads no body.
func (v *Validator) Middleware(next http.Handler) http.Handler {
	bearer := auth.RequireBearerToken(func(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		return v.Validate(ctx, token)
	}, &auth.RequireBearerTokenOptions{ResourceMetadataURL: v.MetadataURL(), ClockSkew: leeway})
	guarded := bearer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ref := &refusal{}
		sw := &scopeWriter{ResponseWriter: w, ref: ref, v: v}
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), refusalKey{}, ref)))
		sw.finish()
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			w = &challengeWriter{ResponseWriter: w}
		}
		guarded.ServeHTTP(w, r)
	})
}

// challengeWriter adds error="invalid_token" to a 401's challenge (RFC
// 6750 §3.1: a token was sent and did not pass).
type challengeWriter struct{ http.ResponseWriter }

func (w *challengeWriter) WriteHeader(code int) {
	if code == http.StatusUnauthorized {
		if c := w.Header().Get("WWW-Authenticate"); c != "" && !strings.Contains(c, "error=") {
			w.Header().Set("WWW-Authenticate", c+`, error="invalid_token"`)
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

// Flush passes streaming answers through.
func (w *challengeWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *challengeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// refusal is where Scoped leaves the scope a call needed, for the HTTP
// answer of the request that carried it.
type refusal struct {
	mu    sync.Mutex
	scope string
	msg   string
}

func (r *refusal) get() (scope, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.scope, r.msg
}

type refusalKey struct{}

// scopeWriter turns the answer to a call Scoped refused into a 403 with
// the challenge naming the scope to ask for. The refusal comes before the
// tool runs, so nothing of the answer has been written yet.
type scopeWriter struct {
	http.ResponseWriter
	ref     *refusal
	v       *Validator
	decided bool
	refused bool
}

func (w *scopeWriter) decide() {
	if w.decided {
		return
	}
	w.decided = true
	scope, msg := w.ref.get()
	if scope == "" {
		return
	}
	w.refused = true
	h := w.ResponseWriter.Header()
	h.Del("Content-Length")
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q, error="insufficient_scope", scope=%q`, w.v.MetadataURL(), scope))
	w.ResponseWriter.WriteHeader(http.StatusForbidden)
	_, _ = io.WriteString(w.ResponseWriter, msg+"\n")
}

func (w *scopeWriter) WriteHeader(code int) {
	if w.decide(); !w.refused {
		w.ResponseWriter.WriteHeader(code)
	}
}

func (w *scopeWriter) Write(p []byte) (int, error) {
	if w.decide(); w.refused {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// Flush passes streaming answers through.
func (w *scopeWriter) Flush() {
	if w.decide(); w.refused {
		return
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// finish answers a refusal the handler wrote nothing for.
func (w *scopeWriter) finish() { w.decide() }

// Unwrap gives http.ResponseController the underlying writer.
func (w *scopeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Allows reports whether scopes allow running tool (a tool or agent name).
func Allows(scopes []string, tool string) bool {
	return slices.Contains(scopes, AllTools) || slices.Contains(scopes, ToolScopePrefix+tool)
}

// Scoped wraps next so that a call carrying a token (one that came through
// Middleware) runs only when the token's scopes allow the tool or agent
// the call runs — the one the dispatcher was handed, after the SDK parsed
// the request. Calls with no token (stdio, the terminal, HOST_HTTP_TOKEN)
// pass unchanged.
func Scoped(next dispatch.CallRunner) dispatch.CallRunner { return scoped{next: next} }

type scoped struct{ next dispatch.CallRunner }

func (s scoped) Run(ctx context.Context, call dispatch.Call, onProgress func(*wire.Progress)) dispatch.Outcome {
	if refused := Check(ctx, call.Name); refused != nil {
		return dispatch.Fail(refused)
	}
	if ti := auth.TokenInfoFromContext(ctx); ti != nil {
		call.Subject = ti.UserID
	}
	return s.next.Run(ctx, call, onProgress)
}

// Check judges a request about to reach tool's plugin (a call, or one of
// the prompts and resources the tool contributes): nil when the request
// carried no token (stdio, the terminal, HOST_HTTP_TOKEN) or its scopes
// allow tool; else the insufficient_scope error, recorded so that
// Middleware answers the request 403.
func Check(ctx context.Context, tool string) *wire.Error {
	ti := auth.TokenInfoFromContext(ctx)
	if ti == nil || Allows(ti.Scopes, tool) {
		return nil
	}
	scope := ToolScopePrefix + tool
	msg := fmt.Sprintf("forbidden: the token's scopes %q do not allow %q: ask the authorization server for scope %q (or %q)",
		ti.Scopes, tool, scope, AllTools)
	if ref, ok := ctx.Value(refusalKey{}).(*refusal); ok {
		ref.mu.Lock()
		ref.scope, ref.msg = scope, msg
		ref.mu.Unlock()
	}
	return &wire.Error{Code: CodeInsufficientScope, Message: msg, NextStep: fmt.Sprintf("get a token with scope %q", scope)}
}

// ToolFilter reports, for a request that carried a token, which tools and
// agents its scopes allow (capabilities shows only those); nil when the
// request carried none (stdio, the terminal, HOST_HTTP_TOKEN).
func ToolFilter(ctx context.Context) func(tool string) bool {
	ti := auth.TokenInfoFromContext(ctx)
	if ti == nil {
		return nil
	}
	return func(tool string) bool { return Allows(ti.Scopes, tool) }
}
