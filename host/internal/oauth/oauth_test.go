package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/toolhost/toolhost/host/internal/dispatch"
	"github.com/toolhost/toolhost/sdk/wire"
)

// issuer is a local OAuth authorization server: metadata naming its JWKS,
// and the JWKS with an ES256 and an RS256 key. Its JWKS endpoint can be
// made to fail or hang, and its keys rotated.
type issuer struct {
	srv      *httptest.Server
	ec       *ecdsa.PrivateKey
	rsa      *rsa.PrivateKey
	jwksHits atomic.Int32
	metaHits atomic.Int32

	mu      sync.Mutex
	fail    bool          // answer the JWKS with 500
	hang    chan struct{} // when set, the JWKS waits for it to close
	ecKID   string
	withRSA bool
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	is := &issuer{ecKID: "k1", withRSA: true}
	var err error
	if is.ec, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		t.Fatal(err)
	}
	if is.rsa, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		is.metaHits.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": is.srv.URL, "jwks_uri": is.srv.URL + "/jwks"})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		is.jwksHits.Add(1)
		is.mu.Lock()
		fail, hang, kid, withRSA := is.fail, is.hang, is.ecKID, is.withRSA
		is.mu.Unlock()
		if hang != nil {
			select {
			case <-hang:
			case <-r.Context().Done():
				return
			}
		}
		if fail {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		keys := []jose.JSONWebKey{{Key: &is.ec.PublicKey, KeyID: kid, Algorithm: "ES256", Use: "sig"}}
		if withRSA {
			keys = append(keys, jose.JSONWebKey{Key: &is.rsa.PublicKey, KeyID: "r1", Algorithm: "RS256", Use: "sig"})
		}
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: keys})
	})
	is.srv = httptest.NewServer(mux)
	t.Cleanup(is.srv.Close)
	return is
}

func (is *issuer) set(f func(*issuer)) {
	is.mu.Lock()
	defer is.mu.Unlock()
	f(is)
}

const audience = "https://mcp.example.com/mcp"

// claims are a valid token's claims for is.
func (is *issuer) claims(scope string) jwt.MapClaims {
	now := time.Now()
	return jwt.MapClaims{"iss": is.srv.URL, "sub": "alice", "aud": []string{audience}, "scope": scope,
		"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "nbf": now.Add(-time.Minute).Unix()}
}

// sign signs c with method and key, with header fields added.
func sign(t *testing.T, method jwt.SigningMethod, key any, c jwt.MapClaims, header map[string]any) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, c)
	for k, v := range header {
		if v == nil {
			delete(tok.Header, k)
			continue
		}
		tok.Header[k] = v
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newValidator(t *testing.T, opts Options) *Validator {
	t.Helper()
	v, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Close)
	return v
}

// TestHeldTokenChecks is the held list: every token an attacker can make
// without the issuer's private key is refused with 401 (and a valid one
// passes), through the same middleware that guards the MCP path.
func TestHeldTokenChecks(t *testing.T) {
	is := newIssuer(t)
	v := newValidator(t, Options{Issuer: is.srv.URL, Audience: audience})
	attacker, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rsaPubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: must(x509.MarshalPKIXPublicKey(&is.rsa.PublicKey))})
	with := func(f func(jwt.MapClaims)) jwt.MapClaims { c := is.claims("tools:*"); f(c); return c }
	kid := func(k string) map[string]any { return map[string]any{"kid": k} }
	attackerJWK := map[string]any{"kty": "EC", "crv": "P-256",
		"x": b64(attacker.PublicKey.X.FillBytes(make([]byte, 32))), "y": b64(attacker.PublicKey.Y.FillBytes(make([]byte, 32)))}
	tests := []struct {
		name  string
		token string
		want  int
	}{
		{"valid ES256", sign(t, jwt.SigningMethodES256, is.ec, is.claims("tools:*"), kid("k1")), 200},
		{"valid RS256", sign(t, jwt.SigningMethodRS256, is.rsa, is.claims("tools:*"), kid("r1")), 200},
		{"alg none", sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, is.claims("tools:*"), kid("k1")), 401},
		{"HS256 keyed with the issuer's RSA public key", sign(t, jwt.SigningMethodHS256, rsaPubPEM, is.claims("tools:*"), kid("r1")), 401},
		{"RS256 header on the EC key", sign(t, jwt.SigningMethodES256, is.ec, is.claims("tools:*"), map[string]any{"kid": "k1", "alg": "RS256"}), 401},
		{"wrong audience", sign(t, jwt.SigningMethodES256, is.ec, with(func(c jwt.MapClaims) { c["aud"] = "https://other.example/mcp" }), kid("k1")), 401},
		{"no audience", sign(t, jwt.SigningMethodES256, is.ec, with(func(c jwt.MapClaims) { delete(c, "aud") }), kid("k1")), 401},
		{"wrong issuer", sign(t, jwt.SigningMethodES256, is.ec, with(func(c jwt.MapClaims) { c["iss"] = "https://evil.example" }), kid("k1")), 401},
		{"no issuer", sign(t, jwt.SigningMethodES256, is.ec, with(func(c jwt.MapClaims) { delete(c, "iss") }), kid("k1")), 401},
		{"expired", sign(t, jwt.SigningMethodES256, is.ec, with(func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-time.Hour).Unix() }), kid("k1")), 401},
		{"no expiry", sign(t, jwt.SigningMethodES256, is.ec, with(func(c jwt.MapClaims) { delete(c, "exp") }), kid("k1")), 401},
		{"not before in the future", sign(t, jwt.SigningMethodES256, is.ec, with(func(c jwt.MapClaims) { c["nbf"] = time.Now().Add(time.Hour).Unix() }), kid("k1")), 401},
		{"issued in the future", sign(t, jwt.SigningMethodES256, is.ec, with(func(c jwt.MapClaims) { c["iat"] = time.Now().Add(time.Hour).Unix() }), kid("k1")), 401},
		{"a foreign key under the issuer's kid", sign(t, jwt.SigningMethodES256, attacker, is.claims("tools:*"), kid("k1")), 401},
		{"a foreign key with no kid", sign(t, jwt.SigningMethodES256, attacker, is.claims("tools:*"), nil), 401},
		{"embedded jwk", sign(t, jwt.SigningMethodES256, attacker, is.claims("tools:*"), map[string]any{"kid": "k1", "jwk": attackerJWK}), 401},
		{"embedded jwk, no kid", sign(t, jwt.SigningMethodES256, attacker, is.claims("tools:*"), map[string]any{"jwk": attackerJWK}), 401},
		{"unknown kid", sign(t, jwt.SigningMethodES256, attacker, is.claims("tools:*"), kid("made-up")), 401},
		{"not a JWT", "hello", 401},
	}
	h := v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if Subject(r) != "alice" {
			t.Errorf("subject: got %q, want alice", Subject(r))
		}
	}))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{}`))
			r.Header.Set("Authorization", "Bearer "+tt.token)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.want {
				t.Fatalf("got %d %s, want %d", w.Code, w.Body, tt.want)
			}
			if tt.want == 401 {
				if c := w.Header().Get("WWW-Authenticate"); !strings.Contains(c, `error="invalid_token"`) || !strings.Contains(c, "resource_metadata=") {
					t.Errorf("WWW-Authenticate: got %q, want invalid_token and the metadata URL", c)
				}
			}
		})
	}
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{}`))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if c := w.Header().Get("WWW-Authenticate"); w.Code != 401 || !strings.Contains(c, `resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"`) {
		t.Errorf("no token: got %d %q, want 401 naming the metadata", w.Code, c)
	}
}

// waitFor polls cond until it holds, failing with msg after a hang guard.
func waitFor(t *testing.T, cond func() bool, msg string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// TestJWKSUnknownKeyThrottled: tokens naming made-up keys while the
// issuer's JWKS fails cause at most one fetch per interval, not one (or
// two) per request.
func TestJWKSUnknownKeyThrottled(t *testing.T) {
	is := newIssuer(t)
	v := newValidator(t, Options{Issuer: is.srv.URL, Audience: audience})
	good := sign(t, jwt.SigningMethodES256, is.ec, is.claims("tools:*"), map[string]any{"kid": "k1"})
	if _, err := v.Validate(t.Context(), good); err != nil {
		t.Fatal(err)
	}
	is.set(func(is *issuer) { is.fail = true })
	before := is.jwksHits.Load() + is.metaHits.Load()
	for i := range 30 {
		bogus := sign(t, jwt.SigningMethodES256, is.ec, is.claims("tools:*"), map[string]any{"kid": "bogus-" + string(rune('a'+i))})
		if _, err := v.Validate(t.Context(), bogus); err == nil {
			t.Fatal("a token naming an unknown key passed")
		}
	}
	if n := is.jwksHits.Load() + is.metaHits.Load() - before; n > 1 {
		t.Errorf("30 tokens with unknown keys caused %d fetches from the issuer, want at most 1 per interval", n)
	}
	if _, err := v.Validate(t.Context(), good); err != nil {
		t.Errorf("a token with the known key after the flood: %v", err)
	}
}

// TestJWKSHangingIssuerDoesNotBlockKnownKey: while a fetch for an unknown
// key hangs, a token whose key is known is checked at once.
func TestJWKSHangingIssuerDoesNotBlockKnownKey(t *testing.T) {
	is := newIssuer(t)
	v := newValidator(t, Options{Issuer: is.srv.URL, Audience: audience, Client: &http.Client{Timeout: time.Minute}})
	good := sign(t, jwt.SigningMethodES256, is.ec, is.claims("tools:*"), map[string]any{"kid": "k1"})
	if _, err := v.Validate(t.Context(), good); err != nil {
		t.Fatal(err)
	}
	hang := make(chan struct{})
	defer close(hang)
	is.set(func(is *issuer) { is.hang = hang })
	hits := is.jwksHits.Load()
	go func() {
		bogus := sign(t, jwt.SigningMethodES256, is.ec, is.claims("tools:*"), map[string]any{"kid": "bogus"})
		_, _ = v.Validate(context.Background(), bogus)
	}()
	waitFor(t, func() bool { return is.jwksHits.Load() > hits }, "the unknown key's fetch never reached the issuer")
	done := make(chan error, 1)
	go func() { _, err := v.Validate(t.Context(), good); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the known key while a fetch hangs: %v", err)
		}
	case <-time.After(30 * time.Second): // a hang guard: the fetch hangs until the test ends
		t.Fatal("a token with a known key waited for the hanging fetch")
	}
}

// TestJWKSKeysRefresh: the key set is fetched again, so a key the issuer
// withdrew stops verifying and a new one starts.
func TestJWKSKeysRefresh(t *testing.T) {
	is := newIssuer(t)
	v := newValidator(t, Options{Issuer: is.srv.URL, Audience: audience, RefreshInterval: 50 * time.Millisecond})
	old := sign(t, jwt.SigningMethodES256, is.ec, is.claims("tools:*"), map[string]any{"kid": "k1"})
	if _, err := v.Validate(t.Context(), old); err != nil {
		t.Fatal(err)
	}
	is.set(func(is *issuer) { is.ec, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); is.ecKID = "k2" })
	hits := is.jwksHits.Load()
	// Two fetches after the rotation: the second began after the first
	// (which saw the new keys) had replaced the set.
	waitFor(t, func() bool { return is.jwksHits.Load() >= hits+2 }, "the key set was never fetched again")
	if _, err := v.Validate(t.Context(), old); err == nil {
		t.Error("a token signed with a key the issuer withdrew still passes after the refresh")
	}
	fresh := sign(t, jwt.SigningMethodES256, is.ec, is.claims("tools:*"), map[string]any{"kid": "k2"})
	if _, err := v.Validate(t.Context(), fresh); err != nil {
		t.Errorf("a token with the issuer's new key: %v", err)
	}
}

// TestFetchURLsNeedHTTPS: issuer and JWKS URLs are https, or http only on
// loopback — also a jwks_uri the issuer's metadata names.
func TestFetchURLsNeedHTTPS(t *testing.T) {
	for _, tt := range []struct {
		issuer, jwks string
		ok           bool
	}{
		{"https://auth.example.com", "", true},
		{"http://127.0.0.1:9000", "", true},
		{"http://localhost:9000", "http://[::1]:9000/jwks", true},
		{"http://auth.example.com", "", false},
		{"https://auth.example.com", "http://auth.example.com/jwks", false},
		{"http://10.0.0.7", "", false},
		{"ftp://auth.example.com", "", false},
	} {
		_, err := New(Options{Issuer: tt.issuer, JWKSURL: tt.jwks, Audience: audience})
		if (err == nil) != tt.ok {
			t.Errorf("issuer %q jwks %q: got %v, want ok=%v", tt.issuer, tt.jwks, err, tt.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "https") {
			t.Errorf("issuer %q jwks %q: the error %q does not say https is needed", tt.issuer, tt.jwks, err)
		}
	}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": srv.URL, "jwks_uri": "http://keys.example.com/jwks"})
	})
	v := newValidator(t, Options{Issuer: srv.URL, Audience: audience})
	if _, err := v.Validate(t.Context(), "a.b.c"); err == nil || !strings.Contains(err.Error(), "https") {
		t.Errorf("a jwks_uri over http off loopback: got %v, want refused naming https", err)
	}
}

// fakeRunner records the calls that reached it.
type fakeRunner struct{ calls []dispatch.Call }

func (f *fakeRunner) Run(_ context.Context, c dispatch.Call, _ func(*wire.Progress)) dispatch.Outcome {
	f.calls = append(f.calls, c)
	return dispatch.Outcome{JSON: json.RawMessage(`{}`)}
}

// TestScoped: the scope check judges the tool the dispatcher is handed;
// a refusal is a 403 naming the scope to ask for, and the call never
// reaches the dispatcher.
func TestScoped(t *testing.T) {
	is := newIssuer(t)
	v := newValidator(t, Options{Issuer: is.srv.URL, Audience: audience})
	tests := []struct {
		name, scope string
		call        dispatch.Call
		want        int
	}{
		{"openid only", "openid", dispatch.Call{Name: "notes", Action: "sync", Confirmed: true}, 403},
		{"another tool's scope", "openid tools:xlsx", dispatch.Call{Name: "notes", Action: "sync"}, 403},
		{"the tool's scope", "tools:notes", dispatch.Call{Name: "notes", Action: "sync"}, 200},
		{"an agent's scope", "tools:spend-review", dispatch.Call{Name: "spend-review"}, 200},
		{"tools:*", "tools:*", dispatch.Call{Name: "notes", Action: "sync"}, 200},
		{"a scope that only starts like the tool", "tools:note", dispatch.Call{Name: "notes"}, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeRunner{}
			run := Scoped(f)
			var out dispatch.Outcome
			h := v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				out = run.Run(r.Context(), tt.call, nil)
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write([]byte("event: message\ndata: {}\n\n"))
			}))
			r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{}`))
			r.Header.Set("Authorization", "Bearer "+sign(t, jwt.SigningMethodES256, is.ec, is.claims(tt.scope), map[string]any{"kid": "k1"}))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.want {
				t.Fatalf("got %d %s, want %d", w.Code, w.Body, tt.want)
			}
			if tt.want == 403 {
				want := `error="insufficient_scope", scope="tools:` + tt.call.Name + `"`
				if c := w.Header().Get("WWW-Authenticate"); !strings.Contains(c, want) {
					t.Errorf("WWW-Authenticate: got %q, want %q in it", c, want)
				}
				if len(f.calls) != 0 || out.Code() != CodeInsufficientScope {
					t.Errorf("a refused call reached the dispatcher (%v) or was not refused (%v)", f.calls, out)
				}
				return
			}
			if len(f.calls) != 1 || f.calls[0].Subject != "alice" {
				t.Fatalf("the allowed call did not reach the dispatcher with the token's subject: %+v", f.calls)
			}
		})
	}
	f := &fakeRunner{}
	if out := Scoped(f).Run(t.Context(), dispatch.Call{Name: "notes"}, nil); out.IsError() || len(f.calls) != 1 {
		t.Errorf("a call with no token (stdio, the terminal): got %v, want it run", out)
	}
}

func TestMetadata(t *testing.T) {
	v := newValidator(t, Options{Issuer: "https://auth.example.com", Audience: audience})
	for _, path := range []string{MetadataPath, MetadataPath + "/mcp"} {
		h, ok := v.Routes()["GET "+path]
		if !ok {
			t.Fatalf("no route for %s", path)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		var m struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil || m.Resource != audience || len(m.AuthorizationServers) != 1 || m.AuthorizationServers[0] != "https://auth.example.com" {
			t.Errorf("%s: got %s", path, w.Body)
		}
	}
	if _, err := New(Options{Issuer: "https://auth.example.com"}); err == nil || !strings.Contains(err.Error(), "--oauth-audience") {
		t.Errorf("no audience: got %v, want an error naming --oauth-audience", err)
	}
}

// TestValidateErrorsAreInvalidToken: every refusal unwraps to the SDK's
// ErrInvalidToken, so the bearer middleware answers 401, never 500.
func TestValidateErrorsAreInvalidToken(t *testing.T) {
	is := newIssuer(t)
	v := newValidator(t, Options{Issuer: is.srv.URL, Audience: audience})
	for _, tok := range []string{"", "x", "a.b.c", sign(t, jwt.SigningMethodES256, is.ec, jwt.MapClaims{}, map[string]any{"kid": "k1"})} {
		if _, err := v.Validate(t.Context(), tok); !errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("%q: got %v, want ErrInvalidToken", tok, err)
		}
	}
}
