package oauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// issuer is a local OAuth authorization server: metadata naming its JWKS,
// and the JWKS with one ES256 key. Tokens are signed with it.
type issuer struct {
	srv       *httptest.Server
	key       *ecdsa.PrivateKey
	kid       string
	jwksHits  atomic.Int32
	signer    jose.Signer
	otherSign jose.Signer // a key the issuer never published
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	is := &issuer{kid: "k1"}
	var err error
	if is.key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		t.Fatal(err)
	}
	is.signer = mustSigner(t, is.key, is.kid)
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	is.otherSign = mustSigner(t, other, is.kid)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": is.srv.URL, "jwks_uri": is.srv.URL + "/jwks"})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		is.jwksHits.Add(1)
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &is.key.PublicKey, KeyID: is.kid, Algorithm: "ES256", Use: "sig"}}})
	})
	is.srv = httptest.NewServer(mux)
	t.Cleanup(is.srv.Close)
	return is
}

func mustSigner(t *testing.T, k *ecdsa.PrivateKey, kid string) jose.Signer {
	t.Helper()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k}, (&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", kid))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// token signs claims (with scope) using s.
func token(t *testing.T, s jose.Signer, c jwt.Claims, scope string) string {
	t.Helper()
	raw, err := jwt.Signed(s).Claims(c).Claims(map[string]any{"scope": scope}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

const audience = "https://mcp.example.com/mcp"

var now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func TestValidate(t *testing.T) {
	is := newIssuer(t)
	v, err := New(Options{Issuer: is.srv.URL, Audience: audience, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	good := jwt.Claims{Issuer: is.srv.URL, Subject: "alice", Audience: jwt.Audience{audience},
		Expiry: jwt.NewNumericDate(now.Add(time.Hour)), IssuedAt: jwt.NewNumericDate(now)}
	with := func(f func(*jwt.Claims)) jwt.Claims { c := good; f(&c); return c }
	tests := []struct {
		name    string
		token   string
		wantErr string
	}{
		{"valid", token(t, is.signer, good, "tools:xlsx tools:notes"), ""},
		{"expired", token(t, is.signer, with(func(c *jwt.Claims) { c.Expiry = jwt.NewNumericDate(now.Add(-time.Hour)) }), ""), "expired"},
		{"no expiry", token(t, is.signer, with(func(c *jwt.Claims) { c.Expiry = nil }), ""), "no expiry"},
		{"another audience", token(t, is.signer, with(func(c *jwt.Claims) { c.Audience = jwt.Audience{"https://other.example/mcp"} }), ""), "audience"},
		{"another issuer", token(t, is.signer, with(func(c *jwt.Claims) { c.Issuer = "https://evil.example" }), ""), "issuer"},
		{"signed with a key the issuer never published", token(t, is.otherSign, good, ""), "does not verify"},
		{"not a JWT", "hello", "not a signed JWT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := v.Validate(t.Context(), tt.token)
			if tt.wantErr == "" {
				if err != nil || c.Subject != "alice" || !c.Allows("xlsx") || c.Allows("usage") {
					t.Fatalf("got %+v, %v; want alice allowed xlsx, not usage", c, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got %v, want an error saying %q", err, tt.wantErr)
			}
		})
	}
	if hits := is.jwksHits.Load(); hits != 1 {
		t.Errorf("the key set was fetched %d times, want once (cached)", hits)
	}
}

func TestAuthenticate(t *testing.T) {
	is := newIssuer(t)
	v, _ := New(Options{Issuer: is.srv.URL, Audience: audience, Now: func() time.Time { return now }})
	claims := jwt.Claims{Issuer: is.srv.URL, Subject: "bob", Audience: jwt.Audience{audience}, Expiry: jwt.NewNumericDate(now.Add(time.Hour))}
	notesOnly := token(t, is.signer, claims, "tools:notes")
	all := token(t, is.signer, claims, AllTools)
	call := func(name, args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
	}
	tests := []struct {
		name, auth, body string
		want             int
		challenge        string // in WWW-Authenticate
	}{
		{"no token", "", call("capabilities", `{}`), 401, `resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"`},
		{"bad token", "Bearer nope", call("capabilities", `{}`), 401, `error="invalid_token"`},
		{"capabilities with any valid token", "Bearer " + notesOnly, call("capabilities", `{}`), 200, ""},
		{"run_tool of an allowed tool", "Bearer " + notesOnly, call("run_tool", `{"tool":"notes","action":"search"}`), 200, ""},
		{"run_tool of another tool", "Bearer " + notesOnly, call("run_tool", `{"tool":"xlsx","action":"read-sheet"}`), 403, `error="insufficient_scope", scope="tools:xlsx"`},
		{"run_agent of another agent", "Bearer " + notesOnly, call("run_agent", `{"agent":"spend-review"}`), 403, `scope="tools:spend-review"`},
		{"a curated tool by its published name", "Bearer " + notesOnly, call("xlsx_read_sheet", `{}`), 403, `scope="tools:xlsx_read_sheet"`},
		{"tools:* allows everything", "Bearer " + all, call("run_tool_confirmed", `{"tool":"xlsx"}`), 200, ""},
		{"tools/list with any valid token", "Bearer " + notesOnly, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 200, ""},
	}
	var passed atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r = v.Authenticate(w, r); r == nil {
			return
		}
		if Subject(r) != "bob" {
			t.Errorf("subject: got %q, want bob", Subject(r))
		}
		passed.Add(1)
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(tt.body))
			if tt.auth != "" {
				r.Header.Set("Authorization", tt.auth)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.want {
				t.Fatalf("got %d %s, want %d", w.Code, w.Body, tt.want)
			}
			if got := w.Header().Get("WWW-Authenticate"); !strings.Contains(got, tt.challenge) {
				t.Errorf("WWW-Authenticate: got %q, want it to contain %q", got, tt.challenge)
			}
		})
	}
}

func TestMetadata(t *testing.T) {
	v, _ := New(Options{Issuer: "https://auth.example.com", Audience: audience})
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
