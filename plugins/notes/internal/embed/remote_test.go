package embed_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/plugins/notes/internal/embed"
	"github.com/toolhost/toolhost/plugins/notes/internal/embed/embedtest"
)

var (
	bundledOnce sync.Once
	bundled     *embed.USE
	bundledErr  error
)

// bundledModel is the model `make notes-model` installs, loaded once.
func bundledModel(t *testing.T) *embed.USE {
	t.Helper()
	bundledOnce.Do(func() {
		bundled, bundledErr = embed.LoadUSE(filepath.Join("..", "..", "model", filepath.FromSlash(embed.PackagePath)))
	})
	if bundledErr != nil {
		t.Fatal(bundledErr)
	}
	return bundled
}

var protocols = []string{embed.ProtocolOpenAI, embed.ProtocolOllama}

// TestRemoteGivesTheServersVectors: through either protocol the client
// returns the vectors the server's model makes, in the order asked.
func TestRemoteGivesTheServersVectors(t *testing.T) {
	use := bundledModel(t)
	texts := []string{"Stash the changes in a dirty working directory away.", "The espresso machine needs descaling.", "Use binary search to find the commit that introduced a bug."}
	want, err := use.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range protocols {
		t.Run(p, func(t *testing.T) {
			srv := embedtest.Start(t, use, p, "use-lite")
			r, err := embed.NewRemote(embed.RemoteConfig{URL: srv.URL, Model: "use-lite"})
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Model(); got != p+":use-lite" {
				t.Errorf("Model() = %q, want %q", got, p+":use-lite")
			}
			got, err := r.Embed(context.Background(), texts)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(texts) {
				t.Fatalf("%d vectors for %d texts", len(got), len(texts))
			}
			for i := range got {
				if c := embed.Cosine(got[i], want[i]); c < 0.9999 {
					t.Errorf("text %d: cosine %.6f to the model's own vector, want 1", i, c)
				}
			}
			if r.Dims() != use.Dims() {
				t.Errorf("Dims() = %d after an answer, want %d", r.Dims(), use.Dims())
			}
		})
	}
}

// TestRemoteFailures: each way a server goes wrong is an error naming
// what happened, never a vector.
func TestRemoteFailures(t *testing.T) {
	use := bundledModel(t)
	ctx := context.Background()
	for _, p := range protocols {
		t.Run(p, func(t *testing.T) {
			tests := []struct {
				name    string
				setup   func(s *embedtest.Server) embed.RemoteConfig
				wantErr string
			}{
				{"server error", func(s *embedtest.Server) embed.RemoteConfig {
					s.SetStatus(http.StatusInternalServerError)
					return embed.RemoteConfig{URL: s.URL, Model: "use-lite"}
				}, "500 Internal Server Error: {"},
				{"slow", func(s *embedtest.Server) embed.RemoteConfig {
					s.SetDelay(2 * time.Second)
					return embed.RemoteConfig{URL: s.URL, Model: "use-lite", Timeout: 100 * time.Millisecond}
				}, "Client.Timeout exceeded"},
				{"unknown model", func(s *embedtest.Server) embed.RemoteConfig {
					return embed.RemoteConfig{URL: s.URL, Model: "nomic-embed-text"}
				}, "404 Not Found"},
				{"missing key", func(s *embedtest.Server) embed.RemoteConfig {
					s.RequireKey("sk-local-test")
					return embed.RemoteConfig{URL: s.URL, Model: "use-lite"}
				}, "401 Unauthorized"},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					srv := embedtest.Start(t, use, p, "use-lite")
					r, err := embed.NewRemote(tt.setup(srv))
					if err != nil {
						t.Fatal(err)
					}
					vecs, err := r.Embed(ctx, []string{"hello"})
					if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
						t.Fatalf("Embed = %d vectors, error %v; want an error with %q", len(vecs), err, tt.wantErr)
					}
				})
			}
			t.Run("wrong dimension", func(t *testing.T) {
				srv := embedtest.Start(t, use, p, "use-lite")
				r, err := embed.NewRemote(embed.RemoteConfig{URL: srv.URL, Model: "use-lite"})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := r.Embed(ctx, []string{"first answer sets the length"}); err != nil {
					t.Fatal(err)
				}
				srv.SetDims(256)
				_, err = r.Embed(ctx, []string{"a shorter vector now"})
				if err == nil || !strings.Contains(err.Error(), "returned a vector of 256 numbers where the model gave 512") {
					t.Fatalf("error %v, want the wrong dimension named", err)
				}
			})
			t.Run("key file", func(t *testing.T) {
				srv := embedtest.Start(t, use, p, "use-lite")
				srv.RequireKey("sk-local-test")
				key := filepath.Join(t.TempDir(), "key")
				if err := os.WriteFile(key, []byte("sk-local-test\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				r, err := embed.NewRemote(embed.RemoteConfig{URL: srv.URL, Model: "use-lite", KeyFile: key})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := r.Embed(ctx, []string{"with the key"}); err != nil {
					t.Fatalf("with the key file: %v", err)
				}
			})
		})
	}
}

// TestRemoteConfig: the endpoint is on loopback unless the user names its
// host; a URL of neither protocol, a missing model or key file is refused
// with what to set.
func TestRemoteConfig(t *testing.T) {
	tests := []struct {
		name    string
		c       embed.RemoteConfig
		wantErr string
	}{
		{"loopback ollama", embed.RemoteConfig{URL: "http://127.0.0.1:11434/api/embed", Model: "nomic-embed-text"}, ""},
		{"localhost openai", embed.RemoteConfig{URL: "http://localhost:1234/v1/embeddings", Model: "bge-small"}, ""},
		{"ipv6 loopback", embed.RemoteConfig{URL: "http://[::1]:8080/v1/embeddings", Model: "m"}, ""},
		{"another host", embed.RemoteConfig{URL: "https://embeddings.example.com/v1/embeddings", Model: "m"}, "NOTES_EMBED_ALLOW_HOST=embeddings.example.com"},
		{"another host allowed", embed.RemoteConfig{URL: "https://embeddings.example.com/v1/embeddings", Model: "m", AllowHost: "embeddings.example.com"}, ""},
		{"a different host allowed", embed.RemoteConfig{URL: "https://embeddings.example.com/v1/embeddings", Model: "m", AllowHost: "other.example.com"}, "not on this machine"},
		{"unknown path", embed.RemoteConfig{URL: "http://127.0.0.1:11434/", Model: "m"}, "neither /v1/embeddings"},
		{"not http", embed.RemoteConfig{URL: "ftp://127.0.0.1/api/embed", Model: "m"}, "not an http(s) URL"},
		{"no model", embed.RemoteConfig{URL: "http://127.0.0.1:11434/api/embed"}, "NOTES_EMBED_URL_MODEL is not"},
		{"missing key file", embed.RemoteConfig{URL: "http://127.0.0.1:11434/api/embed", Model: "m", KeyFile: "/nonexistent/key"}, "read the key file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := embed.NewRemote(tt.c)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("NewRemote: %v, want it accepted", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("NewRemote: %v, want an error with %q", err, tt.wantErr)
			}
		})
	}
}

// TestRemoteRefusesARedirect: a redirect could carry note text to another
// host, so it is an error, not followed.
func TestRemoteRefusesARedirect(t *testing.T) {
	use := bundledModel(t)
	target := embedtest.Start(t, use, embed.ProtocolOllama, "use-lite")
	mux := http.NewServeMux()
	mux.HandleFunc("/api/embed", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL, http.StatusTemporaryRedirect)
	})
	srv := httptestServer(t, mux)
	r, err := embed.NewRemote(embed.RemoteConfig{URL: srv + "/api/embed", Model: "use-lite"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Embed(context.Background(), []string{"hello"}); err == nil || !strings.Contains(err.Error(), "redirect") {
		t.Fatalf("error %v, want the redirect refused", err)
	}
	if n, _ := target.Counts(); n != 0 {
		t.Fatalf("the redirect's target was asked %d times, want 0", n)
	}
}

func httptestServer(t *testing.T, h http.Handler) string {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s.URL
}
