package tests

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestOAuthScopesPluginContent: the prompts and resources a tool
// contributes need the tool's scope, like its calls. A token holding only
// openid gets 403 insufficient_scope naming tools:notes on resources/read
// (a fixed resource and a templated page) and prompts/get, and sees no
// notes entries in prompts/list, resources/list and
// resources/templates/list; a tools:notes token reads, renders and lists
// them. Both protocol eras.
func TestOAuthScopesPluginContent(t *testing.T) {
	e := notesContentEnv(t)
	is := startIssuer(t)
	const aud = "http://127.0.0.1/mcp"
	h := startHost(t, e, "--oauth-issuer", is.url, "--oauth-audience", aud)
	hour := time.Now().Add(time.Hour)
	tokens := map[string]string{
		"openid":      "Bearer " + is.sign("mallory", "openid", aud, hour),
		"tools:notes": "Bearer " + is.sign("ann", "tools:notes", aud, hour),
	}
	uses := []struct {
		name, method string
		params       map[string]any
		mcpName      string
		want         string // in the allowed answer
	}{
		{"read index", "resources/read", map[string]any{"uri": "notes://index"}, "notes://index", "# Index"},
		{"read page", "resources/read", map[string]any{"uri": "notes://page/AGENTS.md"}, "notes://page/AGENTS.md", `\"path\":\"AGENTS.md\"`},
		{"get prompt", "prompts/get", map[string]any{"name": "notes/consolidate", "arguments": map[string]any{"scope": "project:atlas"}}, "notes/consolidate", "project:atlas"},
	}
	lists := []struct{ method, want string }{
		{"prompts/list", `"name":"notes/consolidate"`},
		{"resources/list", `"uri":"notes://index"`},
		{"resources/templates/list", `"uriTemplate":"notes://page/{+path}"`},
	}
	for _, modern := range []bool{false, true} {
		era := map[bool]string{false: "legacy", true: "modern"}[modern]
		for scope, auth := range tokens {
			allowed := scope == "tools:notes"
			for i, u := range uses {
				t.Run(era+"/"+scope+"/"+u.name, func(t *testing.T) {
					call := rpcCall{modern: modern, id: i + 1, method: u.method, params: u.params,
						header: map[string]string{"Authorization": auth, "Mcp-Name": u.mcpName}}
					resp, m, err := call.post(t, http.DefaultClient, h.url)
					must(t, err)
					raw, _ := json.Marshal(m)
					if !allowed {
						c := resp.Header.Get("WWW-Authenticate")
						if resp.StatusCode != http.StatusForbidden || !strings.Contains(c, `error="insufficient_scope"`) || !strings.Contains(c, `scope="tools:notes"`) {
							t.Fatalf("got %d %q %s, want 403 insufficient_scope naming tools:notes", resp.StatusCode, c, raw)
						}
						return
					}
					if resp.StatusCode != http.StatusOK || m["error"] != nil || !strings.Contains(string(raw), u.want) {
						t.Fatalf("got %d %s, want a result with %s", resp.StatusCode, raw, u.want)
					}
				})
			}
			for i, l := range lists {
				t.Run(era+"/"+scope+"/"+l.method, func(t *testing.T) {
					call := rpcCall{modern: modern, id: 10 + i, method: l.method, params: map[string]any{},
						header: map[string]string{"Authorization": auth}}
					resp, m, err := call.post(t, http.DefaultClient, h.url)
					must(t, err)
					raw, _ := json.Marshal(m)
					if resp.StatusCode != http.StatusOK || m["result"] == nil {
						t.Fatalf("got %d %s, want a list", resp.StatusCode, raw)
					}
					if has := strings.Contains(string(raw), "notes"); has != allowed {
						t.Errorf("%s lists notes entries: %v, want %v: %s", scope, has, allowed, raw)
					}
					if allowed && !strings.Contains(string(raw), l.want) {
						t.Errorf("answer lacks %s: %s", l.want, raw)
					}
				})
			}
		}
	}
}
