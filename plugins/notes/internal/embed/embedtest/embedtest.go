// Package embedtest serves an Embedder over HTTP on loopback, speaking
// the OpenAI-compatible /v1/embeddings protocol or Ollama's /api/embed,
// for the tests of the notes plugin's embedding-server client. Its
// vectors are the wrapped model's own (the bundled sentence model in the
// tests); knobs make it slow, failing or answer with the wrong dimension,
// as real servers do.
package embedtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/plugins/notes/internal/embed"
)

// Server is a running embedding server.
type Server struct {
	// URL is the endpoint: .../v1/embeddings or .../api/embed.
	URL string
	// ModelName is the model the server serves; a request naming another
	// is answered 404 as Ollama and OpenAI do.
	ModelName string

	emb      embed.Embedder
	protocol string

	mu       sync.Mutex
	delay    time.Duration
	status   int
	dims     int
	key      string
	requests int
	texts    int
}

// Start serves emb under the protocol (embed.ProtocolOpenAI or
// embed.ProtocolOllama) until the test ends.
func Start(t testing.TB, emb embed.Embedder, protocol, model string) *Server {
	t.Helper()
	s := &Server{emb: emb, protocol: protocol, ModelName: model}
	path := "/v1/embeddings"
	if protocol == embed.ProtocolOllama {
		path = "/api/embed"
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+path, s.serve)
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	s.URL = ts.URL + path
	return s
}

// SetDelay makes every answer wait d first (a slow server).
func (s *Server) SetDelay(d time.Duration) { s.mu.Lock(); s.delay = d; s.mu.Unlock() }

// SetStatus makes every answer this HTTP status with an error body (0
// restores normal answers).
func (s *Server) SetStatus(code int) { s.mu.Lock(); s.status = code; s.mu.Unlock() }

// SetDims cuts every vector to n numbers (0 restores the model's length).
func (s *Server) SetDims(n int) { s.mu.Lock(); s.dims = n; s.mu.Unlock() }

// RequireKey answers 401 to a request without this bearer token.
func (s *Server) RequireKey(key string) { s.mu.Lock(); s.key = key; s.mu.Unlock() }

// Counts returns how many requests and texts the server has answered.
func (s *Server) Counts() (requests, texts int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests, s.texts
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	delay, status, dims, key := s.delay, s.status, s.dims, s.key
	s.requests++
	s.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
		s.fail(w, http.StatusUnauthorized, "invalid api key")
		return
	}
	if status != 0 {
		s.fail(w, status, "model runner has unexpectedly stopped")
		return
	}
	var req struct {
		Model string `json:"model"`
		Input any    `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		s.fail(w, http.StatusBadRequest, "invalid request: "+err.Error())
		return
	}
	if req.Model != s.ModelName {
		s.fail(w, http.StatusNotFound, fmt.Sprintf("model %q not found, try pulling it first", req.Model))
		return
	}
	var texts []string
	switch in := req.Input.(type) {
	case string:
		texts = []string{in}
	case []any:
		for _, x := range in {
			str, ok := x.(string)
			if !ok {
				s.fail(w, http.StatusBadRequest, "input must be strings")
				return
			}
			texts = append(texts, str)
		}
	default:
		s.fail(w, http.StatusBadRequest, "input must be a string or an array of strings")
		return
	}
	vecs, err := s.emb.Embed(r.Context(), texts)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	for i := range vecs {
		if dims > 0 && dims < len(vecs[i]) {
			vecs[i] = vecs[i][:dims]
		}
	}
	s.mu.Lock()
	s.texts += len(texts)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if s.protocol == embed.ProtocolOllama {
		_ = json.NewEncoder(w).Encode(map[string]any{"model": s.ModelName, "embeddings": vecs})
		return
	}
	type datum struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	data := make([]datum, len(vecs))
	// Answered last to first: the protocol orders by index, not position.
	for i := range vecs {
		j := len(vecs) - 1 - i
		data[i] = datum{Object: "embedding", Index: j, Embedding: vecs[j]}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": s.ModelName, "data": data})
}

func (s *Server) fail(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	if s.protocol == embed.ProtocolOllama {
		_ = json.NewEncoder(w).Encode(map[string]any{"error": msg})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
}
