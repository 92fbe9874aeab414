package brain

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/sdk"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/plugins/notes/internal/embed"
)

func TestMain(m *testing.M) {
	logCreated = func(string) {}
	os.Exit(m.Run())
}

// clock is a settable test clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// env is one temp brain behind a Service, driven through the plugin's
// handlers the way the host drives them.
type env struct {
	t     *testing.T
	s     *Service
	root  string
	clock *clock
}

// isolate points HOME and the XDG folders at temp dirs so nothing touches
// the real user's files.
func isolate(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	t.Setenv("NOTES_BRAIN", "")
	// Search by meaning embeds every section a search finds pending, which
	// under -race costs seconds a section: tests that want it say so
	// (search_meaning_test.go, the retrieval evaluation).
	t.Setenv("NOTES_EMBED_MODEL", "off")
	for _, k := range []string{embed.EnvURL, embed.EnvURLModel, embed.EnvKeyFile, embed.EnvAllowHost, embed.EnvTimeout} {
		t.Setenv(k, "")
	}
}

func newEnv(t *testing.T) *env {
	t.Helper()
	isolate(t)
	e := &env{t: t, root: filepath.Join(t.TempDir(), "brain"), clock: &clock{now: time.Date(2026, 11, 13, 12, 0, 0, 0, time.UTC)}}
	e.s = &Service{Root: e.root, Configure: func(b *Brain) {
		b.Now = e.clock.Now
		// Writers hold the lock from their decision to their index
		// update; under -race on a loaded machine a queue of them
		// waits minutes, never the test's fault.
		b.LockTimeout = 5 * time.Minute
	}}
	t.Cleanup(func() { e.s.Close() })
	return e
}

func (e *env) brain() *Brain {
	e.t.Helper()
	b, _, err := e.s.Brain(context.Background())
	if err != nil {
		e.t.Fatalf("open brain: %v", err)
	}
	return b
}

// call runs action with args as client claude-code and returns the result
// as a map, or the error envelope.
func (e *env) call(action string, args map[string]any) (map[string]any, *sdk.Error) {
	e.t.Helper()
	return e.callAs("claude-code", action, args)
}

func (e *env) callAs(client, action string, args map[string]any) (map[string]any, *sdk.Error) {
	e.t.Helper()
	return e.callWith(sdk.Caller{ClientName: client, ClientVersion: "1.0.0", RequestID: "7"}, action, args)
}

// okConfirmed runs a call that came through a *_confirmed tool.
func (e *env) okConfirmed(action string, args map[string]any) map[string]any {
	e.t.Helper()
	m, err := e.callWith(sdk.Caller{ClientName: "claude-code", Confirmed: true}, action, args)
	if err != nil {
		e.t.Fatalf("%s: %v", action, err)
	}
	return m
}

// callWith runs action as the host would: args the manifest refuses get
// the host's invalid_args answer, and the handler sees tool.yaml's
// defaults filled in (the handlers do not repeat them).
func (e *env) callWith(caller sdk.Caller, action string, args map[string]any) (map[string]any, *sdk.Error) {
	e.t.Helper()
	req, err := sdk.NewRequestFor(action, args)
	var refused *sdk.Error
	if errors.As(err, &refused) {
		return nil, refused
	}
	if err != nil {
		e.t.Fatal(err)
	}
	req.Caller = caller
	h, ok := e.s.Plugin().Actions[action]
	if !ok {
		e.t.Fatalf("no action %s", action)
	}
	res, err := h(context.Background(), req)
	if err != nil {
		return nil, sdk.AsError(err)
	}
	raw, err := json.Marshal(res.Data)
	if err != nil {
		e.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		e.t.Fatalf("result is not a JSON object: %s", raw)
	}
	return m, nil
}

// ok runs a call that must succeed.
func (e *env) ok(action string, args map[string]any) map[string]any {
	e.t.Helper()
	m, err := e.call(action, args)
	if err != nil {
		e.t.Fatalf("%s %v: %v (next: %s, details: %v)", action, args, err, err.NextStep, err.Details)
	}
	return m
}

// fails runs a call that must fail with code.
func (e *env) fails(code sdk.Code, action string, args map[string]any) *sdk.Error {
	e.t.Helper()
	m, err := e.call(action, args)
	if err == nil {
		e.t.Fatalf("%s %v: got result %v, want error %s", action, args, m, code)
	}
	if err.Code != code {
		e.t.Fatalf("%s %v: got error %s (%s), want %s", action, args, err.Code, err.Message, code)
	}
	return err
}

func (e *env) git(args ...string) string {
	e.t.Helper()
	out, err := gitRunner{dir: e.root}.run(context.Background(), args...)
	if err != nil {
		e.t.Fatalf("git %v: %v", args, err)
	}
	return out
}

func (e *env) head() string {
	e.brain()
	return strings.TrimSpace(e.git("rev-parse", "HEAD"))
}

// clean asserts nothing is uncommitted in the brain.
func (e *env) clean() {
	e.t.Helper()
	if st := e.git("status", "--porcelain"); st != "" {
		e.t.Fatalf("brain has uncommitted changes:\n%s", st)
	}
}

// unchanged asserts a refused write left the brain as it was: still at
// head, nothing uncommitted; what names the write in the failure.
func (e *env) unchanged(head, what string) {
	e.t.Helper()
	if got := e.head(); got != head {
		e.t.Fatalf("%s committed (HEAD %s, want %s)", what, got, head)
	}
	e.clean()
}

func (e *env) file(rel string) string {
	e.t.Helper()
	raw, err := os.ReadFile(filepath.Join(e.root, filepath.FromSlash(rel)))
	if err != nil {
		e.t.Fatalf("read %s: %v", rel, err)
	}
	return string(raw)
}

func (e *env) exists(rel string) bool {
	_, err := os.Lstat(filepath.Join(e.root, filepath.FromSlash(rel)))
	return err == nil
}

// writeHuman writes a file as a person would and commits it outside the
// tool.
func (e *env) writeHuman(rel, content string) {
	e.t.Helper()
	e.brain()
	abs := filepath.Join(e.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	e.git("add", "-A")
	e.git("commit", "-q", "-m", "by hand: "+rel)
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func list(m map[string]any, key string) []any {
	l, _ := m[key].([]any)
	return l
}

func obj(m map[string]any, key string) map[string]any {
	o, _ := m[key].(map[string]any)
	return o
}

func paths(items []any) []string {
	var out []string
	for _, it := range items {
		out = append(out, str(it.(map[string]any), "path"))
	}
	return out
}

// requireGit fails the test under make test (TOOLHOST_REQUIRE_TOOLS=1)
// when git is missing, else skips it.
func requireGit(t *testing.T) {
	t.Helper()
	testplugin.NeedGit(t)
}

func writeFileT(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o644)
}
