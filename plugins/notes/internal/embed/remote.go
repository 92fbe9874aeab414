package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The user's own embedding server: an OpenAI-compatible /v1/embeddings
// endpoint (LM Studio, llama.cpp's server, vLLM, OpenAI itself) or
// Ollama's /api/embed, named by environment variables.
const (
	// EnvURL names the endpoint, e.g. http://127.0.0.1:11434/api/embed.
	EnvURL = "NOTES_EMBED_URL"
	// EnvURLModel names the model the endpoint is asked for.
	EnvURLModel = "NOTES_EMBED_URL_MODEL"
	// EnvKeyFile names a file holding an API key, sent as a bearer token.
	EnvKeyFile = "NOTES_EMBED_KEY_FILE"
	// EnvAllowHost names the one host other than loopback the endpoint may
	// be on: the user's explicit yes to sending note text off the machine.
	EnvAllowHost = "NOTES_EMBED_ALLOW_HOST"
	// EnvTimeout bounds each request (a Go duration; default
	// defaultRemoteTimeout).
	EnvTimeout = "NOTES_EMBED_TIMEOUT"
)

// defaultRemoteTimeout bounds one request to the endpoint when
// NOTES_EMBED_TIMEOUT is not set.
const defaultRemoteTimeout = 15 * time.Second

// Protocols an endpoint speaks.
const (
	ProtocolOpenAI = "openai"
	ProtocolOllama = "ollama"
)

// RemoteConfig says which endpoint and model to use.
type RemoteConfig struct {
	URL       string
	Model     string
	KeyFile   string
	AllowHost string
	Timeout   time.Duration
}

// RemoteConfigFromEnv reads the configuration from the environment; ok is
// false when NOTES_EMBED_URL is not set.
func RemoteConfigFromEnv() (c RemoteConfig, ok bool, err error) {
	c = RemoteConfig{URL: os.Getenv(EnvURL), Model: os.Getenv(EnvURLModel), KeyFile: os.Getenv(EnvKeyFile),
		AllowHost: os.Getenv(EnvAllowHost), Timeout: defaultRemoteTimeout}
	if c.URL == "" {
		return c, false, nil
	}
	if s := os.Getenv(EnvTimeout); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return c, true, fmt.Errorf("embed: %s=%q is not a positive duration (write it like 20s)", EnvTimeout, s)
		}
		c.Timeout = d
	}
	return c, true, nil
}

// Remote is an Embedder that asks an embedding server.
type Remote struct {
	url      string
	model    string
	protocol string
	key      string
	client   *http.Client

	mu   sync.Mutex
	dims int // learned from the first answer
}

// NewRemote checks c and returns an Embedder for it. The endpoint must be
// on a loopback address unless c.AllowHost names its host; the check is
// made again on every connection, so a name that resolves elsewhere is
// refused too.
func NewRemote(c RemoteConfig) (*Remote, error) {
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("embed: %s=%q is not an http(s) URL; give the endpoint, e.g. http://127.0.0.1:11434/api/embed", EnvURL, c.URL)
	}
	r := &Remote{url: c.URL, model: c.Model}
	switch p := strings.TrimSuffix(u.Path, "/"); {
	case strings.HasSuffix(p, "/api/embed"):
		r.protocol = ProtocolOllama
	case strings.HasSuffix(p, "/embeddings"):
		r.protocol = ProtocolOpenAI
	default:
		return nil, fmt.Errorf("embed: %s=%q ends in neither /v1/embeddings (OpenAI-compatible) nor /api/embed (Ollama); give the endpoint's full path", EnvURL, c.URL)
	}
	if c.Model == "" {
		return nil, fmt.Errorf("embed: %s is set but %s is not; name the model the endpoint serves (e.g. nomic-embed-text)", EnvURL, EnvURLModel)
	}
	host := u.Hostname()
	allowed := c.AllowHost != "" && strings.EqualFold(c.AllowHost, host)
	if !allowed && !loopbackName(host) {
		return nil, fmt.Errorf("embed: %s=%q is not on this machine; note text is sent only to a loopback address unless %s=%s says so", EnvURL, c.URL, EnvAllowHost, host)
	}
	if c.KeyFile != "" {
		raw, err := os.ReadFile(c.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("embed: read the key file %s names: %w", EnvKeyFile, err)
		}
		r.key = strings.TrimSpace(string(raw))
		if r.key == "" {
			return nil, fmt.Errorf("embed: the key file %s names (%s) is empty", EnvKeyFile, c.KeyFile)
		}
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = defaultRemoteTimeout
	}
	dialer := &net.Dialer{Timeout: timeout}
	if !allowed {
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			h, _, err := net.SplitHostPort(address)
			if ip := net.ParseIP(h); err != nil || ip == nil || !ip.IsLoopback() {
				return fmt.Errorf("embed: %s resolved to %s, not a loopback address; set %s to allow it", host, address, EnvAllowHost)
			}
			return nil
		}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = dialer.DialContext
	r.client = &http.Client{
		Transport: tr,
		Timeout:   timeout,
		// A redirect could lead note text to another host: refused.
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return errors.New("embed: the endpoint answered with a redirect; give the final URL in " + EnvURL)
		},
	}
	return r, nil
}

func loopbackName(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Model names the vectors this endpoint makes: the protocol and the model
// name, so a change of model starts a new set of stored vectors.
func (r *Remote) Model() string { return r.protocol + ":" + r.model }

// Dims is the length of the vectors seen so far (0 before the first answer).
func (r *Remote) Dims() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dims
}

// URL is the endpoint asked.
func (r *Remote) URL() string { return r.url }

// Protocol is ProtocolOpenAI or ProtocolOllama.
func (r *Remote) Protocol() string { return r.protocol }

// Embed asks the endpoint for one vector per text and returns them at
// unit length. An answer with the wrong number of vectors, vectors of
// differing lengths or a length other than earlier answers' is an error.
func (r *Remote) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	body, err := json.Marshal(map[string]any{"model": r.model, "input": texts})
	if err != nil {
		return nil, fmt.Errorf("embed: encode request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("embed: request %s: %w", r.url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if r.key != "" {
		req.Header.Set("Authorization", "Bearer "+r.key)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("embed: ask %s: %w", r.url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, fmt.Errorf("embed: read the answer of %s: %w", r.url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("embed: %s answered %s: %s", r.url, resp.Status, excerpt(raw))
	}
	vecs, err := r.decode(raw)
	if err != nil {
		return nil, fmt.Errorf("embed: the answer of %s: %w", r.url, err)
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("embed: %s returned %d vectors for %d texts", r.url, len(vecs), len(texts))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	want := r.dims
	for i, v := range vecs {
		if want == 0 {
			want = len(v)
		}
		if len(v) != want || len(v) == 0 {
			return nil, fmt.Errorf("embed: %s returned a vector of %d numbers where the model gave %d; check that %s names one embedding model", r.url, len(v), want, EnvURLModel)
		}
		if !normalize(v) {
			return nil, fmt.Errorf("embed: %s returned a zero or non-finite vector for text %d", r.url, i+1)
		}
	}
	r.dims = want
	return vecs, nil
}

func (r *Remote) decode(raw []byte) ([][]float32, error) {
	if r.protocol == ProtocolOllama {
		var a struct {
			Embeddings [][]float32 `json:"embeddings"`
		}
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("not Ollama's embed answer: %w", err)
		}
		return a.Embeddings, nil
	}
	var a struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("not an OpenAI embeddings answer: %w", err)
	}
	out := make([][]float32, len(a.Data))
	for _, d := range a.Data {
		if d.Index < 0 || d.Index >= len(out) || out[d.Index] != nil {
			return nil, fmt.Errorf("data index %d is out of order or repeated", d.Index)
		}
		out[d.Index] = d.Embedding
	}
	return out, nil
}

// normalize scales v to unit length; false when it has none.
func normalize(v []float32) bool {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	n := math.Sqrt(s)
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return false
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / n)
	}
	return true
}

func excerpt(raw []byte) string {
	s := strings.Join(strings.Fields(string(raw)), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	if s == "" {
		s = "(no body)"
	}
	return s
}
