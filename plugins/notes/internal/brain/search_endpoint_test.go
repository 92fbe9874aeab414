package brain

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/plugins/notes/internal/embed"
	"github.com/toolhost/toolhost/plugins/notes/internal/embed/embedtest"
)

var (
	serverModelOnce sync.Once
	serverModel     *embed.USE
	serverModelErr  error
)

// endpoint starts an embedding server speaking protocol with the bundled
// model's vectors and points the brain at it, as a user would with
// NOTES_EMBED_URL and NOTES_EMBED_URL_MODEL.
func endpoint(t *testing.T, protocol string) *embedtest.Server {
	t.Helper()
	if raceDetector {
		t.Skip("search by meaning runs without -race (make test runs it so)")
	}
	serverModelOnce.Do(func() { serverModel, serverModelErr = embed.LoadUSE(installedModel) })
	if serverModelErr != nil {
		t.Fatal(serverModelErr)
	}
	srv := embedtest.Start(t, serverModel, protocol, "use-lite")
	t.Setenv(embed.EnvURL, srv.URL)
	t.Setenv(embed.EnvURLModel, "use-lite")
	return srv
}

func warningCodes(res map[string]any) []string {
	var codes []string
	for _, w := range list(res, "warnings") {
		codes = append(codes, w.(map[string]any)["code"].(string))
	}
	return codes
}

func warningText(res map[string]any, code string) string {
	for _, w := range list(res, "warnings") {
		if m := w.(map[string]any); m["code"] == code {
			return m["message"].(string)
		}
	}
	return ""
}

// TestSearchByMeaningThroughEndpoint: with NOTES_EMBED_URL set, search by meaning
// uses the user's server through either protocol (the bundled model is
// turned off, so only the server can bridge the vocabulary gap), and
// status says which model serves.
func TestSearchByMeaningThroughEndpoint(t *testing.T) {
	requireGit(t)
	for _, p := range []string{embed.ProtocolOpenAI, embed.ProtocolOllama} {
		t.Run(p, func(t *testing.T) {
			e := newEnv(t)
			srv := endpoint(t, p)
			meaningNotes(e)
			res := e.ok("search", map[string]any{"query": "coffee maker maintenance", "types": kinds})
			if got := str(res, "mode_used"); got != "hybrid" {
				t.Fatalf("mode_used %q, want hybrid (%v)", got, res["warnings"])
			}
			if !strings.Contains(str(res, "mode_reason"), p+":use-lite") {
				t.Errorf("mode_reason %q does not name the endpoint's model", str(res, "mode_reason"))
			}
			if hits := paths(list(res, "hits")); len(hits) == 0 || hits[0] != "wiki/concepts/espresso.md" {
				t.Fatalf("hits %v, want the espresso note first", hits)
			}
			if _, texts := srv.Counts(); texts == 0 {
				t.Fatal("the server embedded nothing")
			}
			st := e.ok("status", nil)
			emb, _ := st["embeddings"].(map[string]any)
			if emb["source"] != "endpoint" || emb["model"] != p+":use-lite" || emb["url"] != srv.URL || emb["dims"] != float64(512) {
				t.Fatalf("status embeddings %v, want the endpoint, its model and 512 dims", emb)
			}
		})
	}
}

// TestSearchByMeaningEndpointFails: a server that fails, is too slow or
// answers with the wrong dimension leaves search answering by keyword,
// saying so; status names the failure until a search by meaning works.
func TestSearchByMeaningEndpointFails(t *testing.T) {
	requireGit(t)
	tests := []struct {
		name     string
		timeout  string // NOTES_EMBED_TIMEOUT; a slow server is slow from the start
		breakIt  func(s *embedtest.Server)
		wantText string
	}{
		{"server error", "", func(s *embedtest.Server) { s.SetStatus(http.StatusInternalServerError) }, "500 Internal Server Error"},
		{"slow", "500ms", func(s *embedtest.Server) { s.SetDelay(2 * time.Second) }, "Client.Timeout exceeded"},
		{"wrong dimension", "", func(s *embedtest.Server) { s.SetDims(384) }, "vector of 384 numbers where the model gave 512"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			srv := endpoint(t, embed.ProtocolOllama)
			t.Setenv(embed.EnvTimeout, tt.timeout)
			meaningNotes(e)
			if tt.timeout == "" {
				// A first search sets the dimension and embeds the notes.
				if res := e.ok("search", map[string]any{"query": "espresso", "types": kinds}); str(res, "mode_used") != "hybrid" {
					t.Fatalf("before the failure: mode_used %q (%v)", str(res, "mode_used"), res["warnings"])
				}
			}
			tt.breakIt(srv)
			res := e.ok("search", map[string]any{"query": "espresso machine", "types": kinds})
			if got := str(res, "mode_used"); got != "keyword" {
				t.Fatalf("mode_used %q, want keyword", got)
			}
			msg := warningText(res, "embedding_failed")
			if !strings.Contains(msg, tt.wantText) || !strings.Contains(msg, "keyword search was used") {
				t.Fatalf("embedding_failed warning %q (warnings %v), want it to say %q and that keyword search was used", msg, warningCodes(res), tt.wantText)
			}
			if hits := paths(list(res, "hits")); len(hits) == 0 || hits[0] != "wiki/concepts/espresso.md" {
				t.Fatalf("hits %v, want the espresso note by keyword", hits)
			}
			emb := e.ok("status", nil)["embeddings"].(map[string]any)
			if le, _ := emb["last_error"].(string); !strings.Contains(le, tt.wantText) {
				t.Fatalf("status last_error %q, want it to say %q", le, tt.wantText)
			}
			if tt.timeout != "" {
				return // the bundled model needs more than the short timeout for the notes
			}
			srv.SetStatus(0)
			srv.SetDims(0)
			if res := e.ok("search", map[string]any{"query": "coffee maker maintenance", "types": kinds}); str(res, "mode_used") != "hybrid" {
				t.Fatalf("after the server recovered: mode_used %q (%v)", str(res, "mode_used"), res["warnings"])
			}
			if le := e.ok("status", nil)["embeddings"].(map[string]any)["last_error"]; le != nil {
				t.Fatalf("status last_error %v after a search by meaning worked, want none", le)
			}
		})
	}
}

// TestSearchByMeaningEndpointOffMachine: an endpoint on another host is not asked
// unless the user names that host; search says why it used keywords and
// status counts it as a problem.
func TestSearchByMeaningEndpointOffMachine(t *testing.T) {
	requireGit(t)
	e := newEnv(t)
	t.Setenv(embed.EnvURL, "https://embeddings.example.com/v1/embeddings")
	t.Setenv(embed.EnvURLModel, "text-embedding-3-small")
	meaningNotes(e)
	res := e.ok("search", map[string]any{"query": "espresso machine", "types": kinds})
	if got := str(res, "mode_used"); got != "keyword" {
		t.Fatalf("mode_used %q, want keyword", got)
	}
	if msg := warningText(res, "mode_unavailable"); !strings.Contains(msg, "NOTES_EMBED_ALLOW_HOST=embeddings.example.com") {
		t.Fatalf("mode_unavailable %q, want it to name NOTES_EMBED_ALLOW_HOST", msg)
	}
	st := e.ok("status", nil)
	if st["healthy"] != false || !strings.Contains(strings.Join(strs(list(st, "problems")), " "), "embedding endpoint is not usable") {
		t.Fatalf("status healthy %v problems %v, want the endpoint named as a problem", st["healthy"], st["problems"])
	}
}

func strs(xs []any) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i], _ = x.(string)
	}
	return out
}
