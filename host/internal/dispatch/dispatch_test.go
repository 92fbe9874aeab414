package dispatch

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/host/internal/supervisor"
	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// liveHost is the host's core running in this process: a watching registry,
// a supervisor and a dispatcher, as `host serve` wires them.
type liveHost struct {
	plugins string
	reg     *registry.Registry
	d       *Dispatcher
	changes <-chan struct{}
}

func newLiveHost(t *testing.T) *liveHost {
	t.Helper()
	plugins := t.TempDir()
	reg := registry.New(registry.Options{PluginDirs: []string{plugins}, Debounce: 50 * time.Millisecond, Rescan: time.Hour})
	changes := reg.Changes()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = reg.Watch(ctx) }()
	sup := supervisor.New(supervisor.Options{CacheDir: t.TempDir()})
	t.Cleanup(func() { cancel(); <-done; sup.Close() })
	return &liveHost{plugins: plugins, reg: reg, changes: changes, d: &Dispatcher{Registry: reg, Runner: sup}}
}

// waitFor waits until cond holds on the current snapshot, failing after a
// generous limit (a liveness bound, not a speed assertion).
func (h *liveHost) waitFor(t *testing.T, what string, cond func(*registry.Snapshot) bool) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for !cond(h.reg.Snapshot()) {
		select {
		case <-h.changes:
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatalf("the watcher never saw: %s; snapshot %+v", what, h.reg.Snapshot())
		}
	}
}

func (h *liveHost) run(action string, args string) Outcome {
	return h.d.Run(context.Background(), Call{Kind: manifests.KindTool, Name: "testtool", Action: action, Args: json.RawMessage(args),
		Caller: &wire.Caller{ClientName: "test"}}, nil)
}

func field(t *testing.T, o Outcome, key string) any {
	t.Helper()
	if o.IsError() {
		t.Fatalf("call failed: %s", o.Body())
	}
	var m map[string]any
	if err := json.Unmarshal(o.JSON, &m); err != nil {
		t.Fatal(err)
	}
	return m[key]
}

func TestLiveRegistryLifecycle(t *testing.T) {
	h := newLiveHost(t)
	hasTool := func(s *registry.Snapshot) bool { tool, _ := s.Tool("testtool"); return tool != nil && tool.Ready }

	// Drop a plugin folder in: it becomes callable.
	staging := t.TempDir()
	testplugin.Install(t, staging, "1")
	if err := os.Rename(filepath.Join(staging, "testtool"), filepath.Join(h.plugins, "testtool")); err != nil {
		t.Fatal(err)
	}
	h.waitFor(t, "the dropped-in plugin", hasTool)
	if got := field(t, h.run("echo", `{"text":"hi"}`), "text"); got != "hi" {
		t.Fatalf("got %v", got)
	}

	// A second, broken plugin is listed as broken; the first still works.
	brokenDir := filepath.Join(h.plugins, "broken")
	os.MkdirAll(brokenDir, 0o755)
	os.WriteFile(filepath.Join(brokenDir, "tool.yaml"), []byte("name: broken\nactions:\n  - name: Bad_Name\n"), 0o644)
	h.waitFor(t, "the broken manifest", func(s *registry.Snapshot) bool { return len(s.Broken) == 1 })
	if b := h.reg.Snapshot().Broken[0]; !strings.Contains(b.Error, "tool.yaml:") {
		t.Fatalf("broken manifest error lacks file:line: %s", b.Error)
	}
	if got := field(t, h.run("echo", `{"text":"still"}`), "text"); got != "still" {
		t.Fatalf("got %v", got)
	}

	// Edit the manifest: the change shows.
	manifest := filepath.Join(h.plugins, "testtool", "tool.yaml")
	b, _ := os.ReadFile(manifest)
	os.WriteFile(manifest, []byte(strings.Replace(string(b), "version: 1.0.0", "version: 1.1.0", 1)), 0o644)
	h.waitFor(t, "the edited version", func(s *registry.Snapshot) bool {
		tool, _ := s.Tool("testtool")
		return tool != nil && tool.Manifest.Version == "1.1.0"
	})

	// Break its manifest: listed as broken, others unaffected; then mend it.
	os.WriteFile(manifest, []byte("name: testtool\nentrypoint: testtool\nactions: [\n"), 0o644)
	h.waitFor(t, "testtool broken", func(s *registry.Snapshot) bool {
		tool, _ := s.Tool("testtool")
		return tool == nil && len(s.Broken) == 2
	})
	if o := h.run("echo", `{"text":"x"}`); o.Code() != wire.CodeNotReady || !strings.Contains(string(o.Body()), "its manifest is broken") {
		t.Fatalf("broken tool: got %s, want not_ready naming the manifest's error", o.Body())
	}
	os.WriteFile(manifest, b, 0o644)
	h.waitFor(t, "testtool mended", hasTool)

	// Replace the binary while a call runs: that call finishes on the old
	// binary, the next one runs the new.
	done := make(chan Outcome, 1)
	started := make(chan struct{})
	var once sync.Once
	go func() {
		done <- h.d.Run(context.Background(), Call{Name: "testtool", Action: "slow", Args: json.RawMessage(`{"ms":800}`)},
			func(*wire.Progress) { once.Do(func() { close(started) }) })
	}()
	select { // wait until the old binary is running the call
	case <-started:
	case o := <-done:
		t.Fatalf("slow call ended before it started: %s", o.Body())
	}
	testplugin.CopyBinary(t, testplugin.Build(t, "2"), filepath.Join(h.plugins, "testtool", "testtool"))
	h.waitFor(t, "the new binary", func(s *registry.Snapshot) bool {
		tool, _ := s.Tool("testtool")
		return tool != nil && tool.SHA256 != "" && tool.Ready && tool.SHA256 != shaOf(t, testplugin.Build(t, "1"))
	})
	if v := field(t, h.run("version", `{}`), "version"); v != "2" {
		t.Fatalf("next call ran version %v, want 2", v)
	}
	if v := field(t, <-done, "version"); v != "1" {
		t.Fatalf("in-flight call ran version %v, want 1", v)
	}

	// Remove it: gone.
	os.RemoveAll(filepath.Join(h.plugins, "testtool"))
	h.waitFor(t, "testtool removed", func(s *registry.Snapshot) bool { tool, _ := s.Tool("testtool"); return tool == nil })
	if o := h.run("echo", `{"text":"x"}`); o.Code() != wire.CodeUnknownTool {
		t.Fatalf("removed tool still callable: %s", o.Body())
	}
}

func shaOf(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", sha256.Sum256(b))
}

func TestRunAnswersThemselves(t *testing.T) {
	h := newLiveHost(t)
	testplugin.Install(t, h.plugins, "1")
	h.reg.Scan()
	tests := []struct {
		name, tool, action, args string
		confirmed, deny          bool
		code                     wire.Code
		didYouMean               string
		surface                  string
	}{
		{"unknown tool", "testtol", "echo", `{}`, false, false, wire.CodeUnknownTool, "testtool", ""},
		{"underscored action", "testtool", "delete_thing", `{}`, false, false, wire.CodeUnknownAction, "delete-thing", ""},
		{"snake arg", "testtool", "echo", `{"text":"a","max_results":3}`, false, false, wire.CodeInvalidArgs, "max-results", ""},
		{"camel arg", "testtool", "echo", `{"text":"a","maxResults":3}`, false, false, wire.CodeInvalidArgs, "max-results", ""},
		{"missing required", "testtool", "echo", `{}`, false, false, wire.CodeInvalidArgs, "", ""},
		{"irreversible plain", "testtool", "delete-thing", `{"text":"a"}`, false, false, wire.CodeApprovalRequired, "", ""},
		{"irreversible confirmed", "testtool", "delete-thing", `{"text":"a"}`, true, false, "", "", ""},
		{"irreversible denied", "testtool", "delete-thing", `{"text":"a"}`, true, true, wire.CodeDenied, "", ""},
		{"irreversible on a curated surface", "testtool", "delete-thing", `{"text":"a"}`, false, false, wire.CodeDenied, "", "chat"},
		{"curated surface cannot confirm", "testtool", "delete-thing", `{"text":"a"}`, true, false, wire.CodeDenied, "", "chat"},
		{"reversible on a curated surface", "testtool", "echo", `{"text":"a"}`, false, false, "", "", "chat"},
		{"too large", "testtool", "big", `{"bytes":50000}`, false, false, wire.CodeResultTooLarge, "", ""},
		{"plugin code", "testtool", "fail", `{}`, false, false, "thing_not_found", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.d.DenyIrreversible = tt.deny
			o := h.d.Run(context.Background(), Call{Name: tt.tool, Action: tt.action, Args: json.RawMessage(tt.args), Confirmed: tt.confirmed, Surface: tt.surface}, nil)
			if o.Code() != tt.code {
				t.Fatalf("got %s, want code %q", o.Body(), tt.code)
			}
			if tt.didYouMean != "" && !strings.Contains(string(o.Body()), `"did_you_mean":["`+tt.didYouMean) {
				t.Fatalf("got %s, want did_you_mean %s first", o.Body(), tt.didYouMean)
			}
			if tt.name == "missing required" && !strings.Contains(string(o.Body()), `"schema"`) {
				t.Fatalf("missing arg answer lacks the schema: %s", o.Body())
			}
			if tt.code == wire.CodeResultTooLarge {
				// The manifest's narrow_with ([bytes]) in the details and the
				// next step, so the caller knows which arg asks for less.
				var body struct {
					Error struct {
						NextStep string `json:"next_step"`
						Details  struct {
							NarrowWith []string `json:"narrow_with"`
							Bytes      int      `json:"bytes"`
							MaxBytes   int      `json:"max_bytes"`
						} `json:"details"`
					} `json:"error"`
				}
				if err := json.Unmarshal(o.Body(), &body); err != nil {
					t.Fatal(err)
				}
				d := body.Error.Details
				if !slices.Equal(d.NarrowWith, []string{"bytes"}) || body.Error.NextStep != "call again with bytes to ask for less" ||
					d.MaxBytes != DefaultMaxResultBytes || d.Bytes <= d.MaxBytes {
					t.Fatalf("result_too_large does not name narrow_with and the sizes: %s", o.Body())
				}
			}
		})
	}
	h.d.DenyIrreversible = false
}

func TestAgentCallsThroughTheHostUnderTheGate(t *testing.T) {
	plugins := t.TempDir()
	testplugin.Install(t, plugins, "1")
	testplugin.InstallAgent(t, plugins)
	reg := registry.New(registry.Options{PluginDirs: []string{plugins}})
	reg.Scan()
	d := agentHost(t, reg)

	relay := func(kind manifests.Kind, name, action string, confirmedOuter, confirmedInner bool) Outcome {
		args, _ := json.Marshal(map[string]any{"tool": "testtool", "action": action, "args": map[string]any{"text": "via agent"}, "confirmed": confirmedInner})
		return d.Run(context.Background(), Call{Kind: kind, Name: name, Action: "relay", Args: args, Confirmed: confirmedOuter,
			Caller: &wire.Caller{ClientName: "test"}}, nil)
	}
	// A nested reversible call works and carries the agent's name.
	o := relay(manifests.KindAgent, "testagent", "echo", false, false)
	relayed := field(t, o, "relayed").(map[string]any)
	if relayed["text"] != "via agent" || relayed["caller"].(map[string]any)["agent"] != "testagent" {
		t.Fatalf("got %s", o.Body())
	}
	// A nested irreversible call is refused unless the agent's own call was confirmed.
	if o := relay(manifests.KindAgent, "testagent", "delete-thing", false, true); o.Code() != wire.CodeApprovalRequired {
		t.Fatalf("unconfirmed agent ran an irreversible call: %s", o.Body())
	}
	if o := relay(manifests.KindAgent, "testagent", "delete-thing", true, true); o.IsError() {
		t.Fatalf("confirmed agent could not run it: %s", o.Body())
	}
	// A plain tool gets no host client; run_tool on an agent is pointed to run_agent.
	if o := relay(manifests.KindTool, "testtool", "echo", false, false); o.Code() != "no_host" {
		t.Fatalf("got %s", o.Body())
	}
	if o := relay(manifests.KindTool, "testagent", "echo", false, false); o.Code() != wire.CodeUnknownTool || !strings.Contains(string(o.Body()), "run_agent") {
		t.Fatalf("got %s", o.Body())
	}
}

// TestAgentCallingItselfIsRefusedAtOnce: an agent that calls itself,
// directly or through another agent, would wait for a concurrency slot its
// own ancestor holds; it is refused at once with denied instead of hanging
// until its timeout (issue 9, defect 6).
func TestAgentCallingItselfIsRefusedAtOnce(t *testing.T) {
	plugins := t.TempDir()
	testplugin.Install(t, plugins, "1")
	for _, name := range []string{"testagent", "otheragent"} {
		dir := filepath.Join(plugins, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		// Concurrency 1: a self-call could only ever wait for its own slot.
		m := strings.Replace(testplugin.AgentManifest, "name: testagent", "name: "+name, 1)
		m = strings.Replace(m, "concurrency: 2", "concurrency: 1", 1)
		// Each may call the other and itself (uses), so only the cycle check refuses.
		m = strings.Replace(m, "uses: [testtool]", "uses: [testtool, testagent, otheragent]", 1)
		if err := os.WriteFile(filepath.Join(dir, "tool.yaml"), []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
		testplugin.CopyBinary(t, testplugin.Build(t, "1"), filepath.Join(dir, "testtool"))
	}
	reg := registry.New(registry.Options{PluginDirs: []string{plugins}})
	if snap := reg.Scan(); len(snap.Tools) != 3 {
		t.Fatalf("want 3 plugins, got %+v %+v", snap.Tools, snap.Broken)
	}
	d := agentHost(t, reg)

	echo := map[string]any{"tool": "testtool", "action": "echo", "args": map[string]any{"text": "x"}}
	for _, tc := range []struct {
		name  string
		args  map[string]any
		chain string
	}{
		{"directly", map[string]any{"tool": "testagent", "action": "echo", "args": map[string]any{"text": "x"}}, "testagent>testagent"},
		{"through another agent", map[string]any{"tool": "otheragent", "action": "relay", "args": map[string]any{"tool": "testagent", "action": "echo", "args": map[string]any{"text": "x"}}}, "testagent>otheragent>testagent"},
		{"another agent is fine", map[string]any{"tool": "otheragent", "action": "relay", "args": echo}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args, _ := json.Marshal(tc.args)
			o := d.Run(context.Background(), Call{Kind: manifests.KindAgent, Name: "testagent", Action: "relay", Args: args,
				Caller: &wire.Caller{ClientName: "test"}}, nil)
			if tc.chain == "" {
				field(t, o, "relayed")
				return
			}
			if o.Code() != wire.CodeDenied || !strings.Contains(o.Err.Message, tc.chain) || !strings.Contains(o.Err.Message, "may not call itself") {
				t.Fatalf("got %s, want denied naming the chain %s", o.Body(), tc.chain)
			}
		})
	}
}

// TestAgentUsesAndThePersonAsked checks the two rules a nested call meets
// besides the gate: the agent's manifest must declare what it calls
// (uses), and an Asker (the person, through MCP elicitation) decides an
// irreversible call, top level or nested, instead of approval_required.
func TestAgentUsesAndThePersonAsked(t *testing.T) {
	plugins := t.TempDir()
	testplugin.Install(t, plugins, "1")
	agentDir := testplugin.InstallAgent(t, plugins)
	// othertool is the same binary under another name, not in testagent's uses.
	other := filepath.Join(plugins, "othertool")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "tool.yaml"), []byte(strings.Replace(testplugin.Manifest, "name: testtool", "name: othertool", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	testplugin.CopyBinary(t, testplugin.Build(t, "1"), filepath.Join(other, "testtool"))
	reg := registry.New(registry.Options{PluginDirs: []string{plugins}})
	reg.Scan()
	d := agentHost(t, reg)

	// asked records every question; answer is what the person says.
	var mu sync.Mutex
	var asked []Question
	asker := func(answer bool, err error) Asker {
		return func(_ context.Context, q Question) (bool, error) {
			mu.Lock()
			asked = append(asked, q)
			mu.Unlock()
			return answer, err
		}
	}
	relay := func(tool, action string, ask Asker, deny bool) Outcome {
		d.DenyIrreversible = deny
		defer func() { d.DenyIrreversible = false }()
		args, _ := json.Marshal(map[string]any{"tool": tool, "action": action, "args": map[string]any{"text": "via agent"}})
		return d.Run(context.Background(), Call{Kind: manifests.KindAgent, Name: "testagent", Action: "relay", Args: args,
			Caller: &wire.Caller{ClientName: "test"}, Ask: ask}, nil)
	}
	tests := []struct {
		name       string
		tool       string
		action     string
		ask        Asker
		deny       bool
		wantCode   wire.Code // "" for success
		wantText   string    // in the answer
		wantAsked  int
		wantByUser bool // the question names the agent
	}{
		{"declared", "testtool", "echo", nil, false, "", "via agent", 0, false},
		{"undeclared refused, naming the manifest", "othertool", "echo", nil, false, wire.CodeDenied, filepath.Join(agentDir, "tool.yaml"), 0, false},
		{"undeclared refused before asking", "othertool", "delete-thing", asker(true, nil), false, wire.CodeDenied, "uses: [testtool]", 0, false},
		{"nested irreversible, nobody to ask", "testtool", "delete-thing", nil, false, wire.CodeApprovalRequired, "", 0, false},
		{"nested irreversible, person accepts", "testtool", "delete-thing", asker(true, nil), false, "", "via agent", 1, true},
		{"nested irreversible, person declines", "testtool", "delete-thing", asker(false, nil), false, wire.CodeDenied, "declined to run testtool delete-thing", 1, true},
		{"asking fails: approval_required", "testtool", "delete-thing", asker(false, context.Canceled), false, wire.CodeApprovalRequired, "", 1, true},
		{"deny wins over asking", "testtool", "delete-thing", asker(true, nil), true, wire.CodeDenied, "HOST_DENY_IRREVERSIBLE", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			asked = nil
			mu.Unlock()
			o := relay(tt.tool, tt.action, tt.ask, tt.deny)
			if o.Code() != tt.wantCode || !strings.Contains(string(o.Body()), tt.wantText) {
				t.Fatalf("got %s, want code %q with %q", o.Body(), tt.wantCode, tt.wantText)
			}
			// A refusal the person gave names the agent that asked, so they
			// know which agent to stop trusting.
			if tt.wantCode == wire.CodeDenied && tt.wantAsked > 0 && !strings.Contains(string(o.Body()), "asked for by the agent testagent") {
				t.Fatalf("the refusal does not name the agent that asked: %s", o.Body())
			}
			mu.Lock()
			defer mu.Unlock()
			if len(asked) != tt.wantAsked {
				t.Fatalf("asked %d times, want %d: %+v", len(asked), tt.wantAsked, asked)
			}
			if tt.wantByUser {
				q := asked[0]
				if q.Agent != "testagent" || q.Tool != "testtool" || q.Action != "delete-thing" || q.Args["text"] != "via agent" || q.Why == "" {
					t.Fatalf("question: got %+v", q)
				}
			}
		})
	}

	// At the top level the Asker decides too; a confirmed call is not asked.
	for _, c := range []struct {
		ask       Asker
		confirmed bool
		code      wire.Code
		asked     int
	}{{asker(true, nil), false, "", 1}, {asker(false, nil), false, wire.CodeDenied, 1}, {asker(false, nil), true, "", 0}} {
		asked = nil
		o := d.Run(context.Background(), Call{Name: "testtool", Action: "delete-thing", Args: json.RawMessage(`{"text":"top"}`), Confirmed: c.confirmed, Ask: c.ask}, nil)
		if o.Code() != c.code || len(asked) != c.asked {
			t.Fatalf("top level (confirmed %v): got %s after %d questions, want code %q after %d", c.confirmed, o.Body(), len(asked), c.code, c.asked)
		}
		// A top-level refusal was the person's own call: no agent to name.
		if body := string(o.Body()); c.code == wire.CodeDenied && (!strings.Contains(body, "the person declined to run testtool delete-thing") || strings.Contains(body, "asked for by")) {
			t.Fatalf("top-level refusal: got %s, want the person's refusal naming no agent", body)
		}
	}
}

// TestWrongKindNamesBoth checks a tool called as an agent and an agent
// called as a tool: unknown_tool saying what the name is, and the run tool
// that takes it as the next step.
func TestWrongKindNamesBoth(t *testing.T) {
	plugins := t.TempDir()
	testplugin.Install(t, plugins, "1")
	testplugin.InstallAgent(t, plugins)
	reg := registry.New(registry.Options{PluginDirs: []string{plugins}})
	reg.Scan()
	d := &Dispatcher{Registry: reg}
	tests := []struct {
		name    string
		kind    manifests.Kind
		call    string
		message string
		next    string
	}{
		{"a tool called as an agent", manifests.KindAgent, "testtool", `"testtool" is a tool, not an agent`, `call run_tool with "testtool"`},
		{"an agent called as a tool", manifests.KindTool, "testagent", `"testagent" is an agent, not a tool`, `call run_agent with "testagent"`},
		{"no kind is a tool", "", "testagent", `"testagent" is an agent, not a tool`, `call run_agent with "testagent"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, _, o := d.Resolve(Call{Kind: tt.kind, Name: tt.call, Args: json.RawMessage(`{}`)})
			if o == nil {
				t.Fatalf("%s resolved as %q", tt.call, tt.kind)
			}
			if e := bodyError(t, *o); e.Code != wire.CodeUnknownTool || e.Message != tt.message || e.NextStep != tt.next {
				t.Fatalf("got %s, want unknown_tool saying %s, next step %s", o.Body(), tt.message, tt.next)
			}
		})
	}
}

// agentHost returns a Dispatcher over reg whose supervisor gives agents a
// host client, so their nested calls come back through the dispatcher.
func agentHost(t *testing.T, reg *registry.Registry) *Dispatcher {
	t.Helper()
	d := &Dispatcher{Registry: reg}
	sup := supervisor.New(supervisor.Options{CacheDir: t.TempDir(), HostServer: d.HostServer})
	t.Cleanup(sup.Close)
	d.Runner = sup
	return d
}

// errorBody is the error envelope of o as a client reads it: decoded
// from the JSON body, so a test sees what rendering dropped or renamed.
type errorBody struct {
	Code     wire.Code `json:"code"`
	Message  string    `json:"message"`
	NextStep string    `json:"next_step"`
}

// bodyError decodes o's rendered error envelope.
func bodyError(t *testing.T, o Outcome) errorBody {
	t.Helper()
	var body struct {
		Error errorBody `json:"error"`
	}
	if err := json.Unmarshal(o.Body(), &body); err != nil {
		t.Fatal(err)
	}
	return body.Error
}
