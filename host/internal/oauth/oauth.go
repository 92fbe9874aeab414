// Package oauth is the host's OAuth 2.1 resource-server mode, as the MCP
// authorization spec describes it: every request to the MCP endpoint
// carries a JWT access token issued by a configured authorization server;
// the host checks its signature against the issuer's JWKS, its issuer,
// audience (this server) and expiry, and maps its scopes to the tools it
// may call. It serves the protected-resource metadata (RFC 9728) at
// /.well-known/oauth-protected-resource and points to it from
// WWW-Authenticate on every 401 and 403.
//
// Scopes: "tools:*" allows every tool; "tools:NAME" allows the tool or
// agent NAME (run_tool's and run_agent's tool/agent argument, or a curated
// surface's published tool name). capabilities and get_skill need only a
// valid token; capabilities shows only the tools and agents the scopes
// allow (FromContext gives the handler the claims).
package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// MetadataPath is where the protected-resource metadata is served.
const MetadataPath = "/.well-known/oauth-protected-resource"

// AllTools is the scope allowing every tool; ToolScopePrefix+NAME allows one.
const (
	AllTools        = "tools:*"
	ToolScopePrefix = "tools:"
)

// algorithms are the signature algorithms accepted (never "none").
var algorithms = []jose.SignatureAlgorithm{jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA}

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
	// Now is the clock (default time.Now).
	Now func() time.Time
	// MaxBodyBytes bounds the request body read to find the tool a call
	// names (default 16 MiB).
	MaxBodyBytes int64
}

// Validator checks access tokens and guards the MCP endpoint.
type Validator struct {
	opts Options

	mu        sync.Mutex
	keys      *jose.JSONWebKeySet
	fetchedAt time.Time
}

// Claims is what the host takes from a valid token.
type Claims struct {
	Subject string
	Scopes  []string
	Expiry  time.Time
}

// New checks opts; keys are fetched on first use (and again when a token
// names a key not seen yet), so the host starts while the issuer is down.
func New(opts Options) (*Validator, error) {
	if opts.Issuer == "" || opts.Audience == "" {
		return nil, errors.New("oauth: resource-server mode needs both --oauth-issuer (the authorization server's issuer URL) and --oauth-audience (this server's MCP URL)")
	}
	for _, u := range []string{opts.Issuer, opts.Audience, opts.JWKSURL} {
		if u == "" {
			continue
		}
		if p, err := url.Parse(u); err != nil || p.Host == "" || (p.Scheme != "https" && p.Scheme != "http") {
			return nil, fmt.Errorf("oauth: %q is not an absolute http(s) URL", u)
		}
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxBodyBytes == 0 {
		opts.MaxBodyBytes = 16 << 20
	}
	return &Validator{opts: opts}, nil
}

// MetadataURL is the absolute URL of the protected-resource metadata.
func (v *Validator) MetadataURL() string {
	u, _ := url.Parse(v.opts.Audience)
	return u.Scheme + "://" + u.Host + MetadataPath
}

// Routes are the metadata routes: the well-known path alone and with the
// resource's path appended (RFC 9728 §3.1).
func (v *Validator) Routes() map[string]http.Handler {
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"resource":                 v.opts.Audience,
			"authorization_servers":    []string{v.opts.Issuer},
			"bearer_methods_supported": []string{"header"},
			"scopes_supported":         []string{AllTools},
			"resource_name":            "toolhost",
		})
	})
	routes := map[string]http.Handler{"GET " + MetadataPath: h}
	if u, _ := url.Parse(v.opts.Audience); strings.Trim(u.Path, "/") != "" {
		routes["GET "+MetadataPath+"/"+strings.Trim(u.Path, "/")] = h
	}
	return routes
}

// Validate checks a compact JWT and returns its claims.
func (v *Validator) Validate(ctx context.Context, token string) (*Claims, error) {
	tok, err := jwt.ParseSigned(token, algorithms)
	if err != nil {
		return nil, fmt.Errorf("oauth: the token is not a signed JWT: %w", err)
	}
	if len(tok.Headers) != 1 {
		return nil, errors.New("oauth: the token must carry exactly one signature")
	}
	key, err := v.key(ctx, tok.Headers[0].KeyID)
	if err != nil {
		return nil, err
	}
	var std jwt.Claims
	var extra struct {
		Scope string   `json:"scope"`
		Scp   []string `json:"scp"`
	}
	if err := tok.Claims(key, &std, &extra); err != nil {
		return nil, fmt.Errorf("oauth: the token's signature does not verify with the issuer's key %q: %w", tok.Headers[0].KeyID, err)
	}
	if std.Expiry == nil {
		return nil, errors.New("oauth: the token has no expiry (exp)")
	}
	if err := std.ValidateWithLeeway(jwt.Expected{Issuer: v.opts.Issuer, AnyAudience: jwt.Audience{v.opts.Audience},
		Time: v.opts.Now()}, 30*time.Second); err != nil {
		return nil, fmt.Errorf("oauth: %w (want iss %q, aud containing %q)", err, v.opts.Issuer, v.opts.Audience)
	}
	scopes := append(strings.Fields(extra.Scope), extra.Scp...)
	return &Claims{Subject: std.Subject, Scopes: scopes, Expiry: std.Expiry.Time()}, nil
}

// Allows reports whether the token's scopes allow calling tool.
func (c *Claims) Allows(tool string) bool {
	return slices.Contains(c.Scopes, AllTools) || slices.Contains(c.Scopes, ToolScopePrefix+tool)
}

// key returns the issuer's key kid, fetching the key set when it is not
// known yet (at most once every 10 seconds, so a flood of made-up key ids
// cannot turn the host against the issuer).
func (v *Validator) key(ctx context.Context, kid string) (*jose.JSONWebKey, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	find := func() *jose.JSONWebKey {
		if v.keys == nil {
			return nil
		}
		for _, k := range v.keys.Keys {
			if (kid == "" || k.KeyID == kid) && k.Use != "enc" {
				return &k
			}
		}
		return nil
	}
	if k := find(); k != nil {
		return k, nil
	}
	if now := v.opts.Now(); v.keys == nil || now.Sub(v.fetchedAt) >= 10*time.Second {
		keys, err := v.fetchKeys(ctx)
		if err != nil {
			return nil, err
		}
		v.keys, v.fetchedAt = keys, now
	}
	if k := find(); k != nil {
		return k, nil
	}
	return nil, fmt.Errorf("oauth: the issuer's key set has no signing key %q", kid)
}

// fetchKeys reads the issuer's JWKS, finding its URL from the issuer's
// metadata unless configured.
func (v *Validator) fetchKeys(ctx context.Context) (*jose.JSONWebKeySet, error) {
	jwksURL := v.opts.JWKSURL
	if jwksURL == "" {
		base := strings.TrimRight(v.opts.Issuer, "/")
		var lastErr error
		for _, p := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
			var meta struct {
				JWKSURI string `json:"jwks_uri"`
			}
			if lastErr = v.getJSON(ctx, base+p, &meta); lastErr == nil && meta.JWKSURI != "" {
				jwksURL = meta.JWKSURI
				break
			}
		}
		if jwksURL == "" {
			return nil, fmt.Errorf("oauth: the issuer %s names no jwks_uri in its metadata (set --oauth-jwks): %v", v.opts.Issuer, lastErr)
		}
	}
	var set jose.JSONWebKeySet
	if err := v.getJSON(ctx, jwksURL, &set); err != nil {
		return nil, err
	}
	return &set, nil
}

func (v *Validator) getJSON(ctx context.Context, u string, dst any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("oauth: fetch %s: %w", u, err)
	}
	resp, err := v.opts.Client.Do(req)
	if err != nil {
		return fmt.Errorf("oauth: fetch %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("oauth: fetch %s: HTTP %d", u, resp.StatusCode)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(dst); err != nil {
		return fmt.Errorf("oauth: fetch %s: %w", u, err)
	}
	return nil
}

type claimsKey struct{}

// FromContext returns the claims of the token a request carried, from the
// context of a request Authenticate passed or of a handler it reached
// (the MCP SDK keeps a request's context values for its handlers); nil
// when there was no token (OAuth is off).
func FromContext(ctx context.Context) *Claims {
	c, _ := ctx.Value(claimsKey{}).(*Claims)
	return c
}

// Subject is the authenticated subject of a request Authenticate passed
// ("" when none).
func Subject(r *http.Request) string {
	if c, ok := r.Context().Value(claimsKey{}).(*Claims); ok {
		return c.Subject
	}
	return ""
}

// Authenticate guards one request to the MCP endpoint: a missing or
// invalid token gets 401, a tools/call of a tool the scopes do not allow
// 403, both with WWW-Authenticate naming the metadata. It returns nil when
// it answered, else the request carrying the claims.
func (v *Validator) Authenticate(w http.ResponseWriter, r *http.Request) *http.Request {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || strings.TrimSpace(token) == "" {
		v.refuse(w, http.StatusUnauthorized, "", "", "unauthorized: send Authorization: Bearer <access token from "+v.opts.Issuer+">")
		return nil
	}
	claims, err := v.Validate(r.Context(), strings.TrimSpace(token))
	if err != nil {
		v.refuse(w, http.StatusUnauthorized, "invalid_token", "", "unauthorized: "+err.Error())
		return nil
	}
	if r.Method == http.MethodPost && r.Body != nil {
		body, err := io.ReadAll(io.LimitReader(r.Body, v.opts.MaxBodyBytes+1))
		if err != nil {
			http.Error(w, "bad request: the body could not be read", http.StatusBadRequest)
			return nil
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if tool := calledTool(body); tool != "" && !claims.Allows(tool) {
			v.refuse(w, http.StatusForbidden, "insufficient_scope", ToolScopePrefix+tool,
				fmt.Sprintf("forbidden: the token's scopes %q do not allow the tool %q: ask for scope %q", claims.Scopes, tool, ToolScopePrefix+tool))
			return nil
		}
	}
	return r.WithContext(context.WithValue(r.Context(), claimsKey{}, claims))
}

// refuse answers 401 or 403 with the WWW-Authenticate challenge.
func (v *Validator) refuse(w http.ResponseWriter, status int, code, scope, msg string) {
	ch := fmt.Sprintf(`Bearer resource_metadata=%q`, v.MetadataURL())
	if code != "" {
		ch += fmt.Sprintf(`, error=%q`, code)
	}
	if scope != "" {
		ch += fmt.Sprintf(`, scope=%q`, scope)
	}
	w.Header().Set("WWW-Authenticate", ch)
	http.Error(w, msg, status)
}

// runTools are the generic tools whose target is named in their arguments.
var runTools = map[string]string{"run_tool": "tool", "run_tool_confirmed": "tool", "run_agent": "agent", "run_agent_confirmed": "agent"}

// calledTool is the tool a tools/call body would run: run_tool's tool (or
// run_agent's agent) argument, the published name on any other tool, ""
// for capabilities and get_skill, which only describe, and for anything
// that is not a tools/call.
func calledTool(body []byte) string {
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name      string                     `json:"name"`
			Arguments map[string]json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != "tools/call" {
		return ""
	}
	switch name := msg.Params.Name; name {
	case "capabilities", "get_skill":
		return ""
	default:
		if arg, ok := runTools[name]; ok {
			var target string
			if json.Unmarshal(msg.Params.Arguments[arg], &target) != nil || target == "" {
				return name // no target named: the dispatcher says what is missing, but only to a token allowed every tool
			}
			return target
		}
		return name
	}
}
