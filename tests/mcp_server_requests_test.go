package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serverRequestsAnswered: a hosted server's elicitation/create reaches the
// person only through the MCP client of the call (its answer goes back to
// the server), and is refused, saying why, when that client cannot ask;
// its sampling/createMessage is refused unless the manifest says
// sampling: allow (everything's does, rugpull's does not), then reaches a
// client that can sample. The audit log
// records each request the host passed on or refused.
func serverRequestsAnswered(t *testing.T, e *env) {
	// Elicitation: the client's handler is asked the server's question, and
	// the person's answer returns to the server.
	var mu sync.Mutex
	var asked, sampled []string
	running := make(chan struct{}, 1)
	asks := &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			mu.Lock()
			sampled = append(sampled, r.Params.Messages[0].Content.(*mcp.TextContent).Text)
			mu.Unlock()
			return &mcp.CreateMessageResult{Role: "assistant", Model: "e2e-model", Content: &mcp.TextContent{Text: "sampled by the client"}}, nil
		},
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			select {
			case running <- struct{}{}:
			default:
			}
		},
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			asked = append(asked, r.Params.Message)
			mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada Lovelace", "check": true}}, nil
		},
	}
	person := goClient(t, e, legacyEra, asks)
	_, text, isErr := runToolResult(t, person, "everything", "trigger-elicitation-request", map[string]any{})
	if isErr || !strings.Contains(text, "- Name: Ada Lovelace") {
		t.Errorf("everything trigger-elicitation-request with a client that asks the person: %v %q, want the person's answer back", isErr, text)
	}
	mu.Lock()
	if len(asked) != 1 || !strings.Contains(asked[0], "Please provide inputs") {
		t.Errorf("the person was asked %q, want the server's one question", asked)
	}
	mu.Unlock()

	// While another call of the server runs, its question could belong to
	// either call (a request over stdio does not say which): refused rather
	// than asking the person of another call.
	long := make(chan struct{})
	go func() {
		defer close(long)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		params := &mcp.CallToolParams{Name: "run_tool", Arguments: map[string]any{"tool": "everything",
			"action": "trigger-long-running-operation", "args": map[string]any{"duration": 4, "steps": 4}}}
		params.SetProgressToken("long")
		_, _ = person.CallTool(ctx, params)
	}()
	select {
	case <-running: // its first progress: the call is in the server
	case <-long:
		t.Fatal("the long-running operation ended without progress")
	}
	_, text, isErr = runToolResult(t, person, "everything", "trigger-elicitation-request", map[string]any{})
	if !isErr || !strings.Contains(text, "2 calls of this server were running") {
		t.Errorf("everything trigger-elicitation-request while another call runs: %v %q, want it refused saying why", isErr, text)
	}
	<-long

	// A client that cannot ask the person, and one of the 2026-07-28
	// protocol, which takes no request in the middle of a call: refused,
	// saying why; nobody answers for the person.
	mute := goClient(t, e, legacyEra, nil)
	_, text, isErr = runToolResult(t, mute, "everything", "trigger-elicitation-request", map[string]any{})
	if !isErr || !strings.Contains(text, "did not declare the elicitation capability") {
		t.Errorf("everything trigger-elicitation-request with a client that cannot ask: %v %q, want it refused saying why", isErr, text)
	}
	_, text, isErr = runToolResult(t, goClient(t, e, "", asks), "everything", "trigger-elicitation-request", map[string]any{})
	if !isErr || !strings.Contains(text, "speaks the 2026-07-28 protocol") {
		t.Errorf("everything trigger-elicitation-request with a 2026-07-28 client: %v %q, want it refused saying why", isErr, text)
	}
	mu.Lock()
	if len(asked) != 1 {
		t.Errorf("the person was asked %d times, want once (only by the client that can ask mid-call)", len(asked))
	}
	mu.Unlock()

	// Sampling, not allowed by rugpull's manifest: the server is not
	// offered it, and when it asks anyway it is refused, told how a person
	// allows it; the client's model is never asked.
	_, text, isErr = runToolResult(t, person, "rugpull", "ask-model", map[string]any{"q": "hi"})
	if !isErr || !strings.Contains(text, "sampling is not allowed for the plugin rugpull") || !strings.Contains(text, "sampling: allow") ||
		!strings.Contains(text, "(sampling offered: false)") {
		t.Errorf("rugpull ask-model without sampling: allow: %v %q, want it refused, not offered, naming the key that allows it", isErr, text)
	}
	mu.Lock()
	if len(sampled) != 0 {
		t.Errorf("the client's model was asked %q without the manifest allowing it", sampled)
	}
	mu.Unlock()

	// Allowed by everything's manifest: the server is offered sampling
	// (and so lists its tool that asks), and its request reaches the
	// client's model, whose answer goes back.
	_, text, isErr = runToolResult(t, person, "everything", "trigger-sampling-request", map[string]any{"prompt": "hi", "maxTokens": 5})
	if isErr || !strings.Contains(text, "sampled by the client") {
		t.Errorf("everything trigger-sampling-request with sampling: allow: %v %q, want the client's answer", isErr, text)
	}
	mu.Lock()
	if len(sampled) != 1 || !strings.Contains(sampled[0], "hi") {
		t.Errorf("the client's model was asked %q, want the server's one prompt", sampled)
	}
	mu.Unlock()
	// Allowed, but the client cannot sample: refused, saying why.
	if _, text, isErr := runToolResult(t, mute, "everything", "trigger-sampling-request", map[string]any{"prompt": "hi"}); !isErr || !strings.Contains(text, "did not declare the sampling capability") {
		t.Errorf("everything trigger-sampling-request with a client that cannot sample: %v %q, want it refused saying why", isErr, text)
	}

	// The audit log has each request the host passed on or refused.
	var got []string
	for _, en := range auditEntries(t, e) {
		if en.Request != "" {
			got = append(got, en.Tool+" "+en.Action+" "+en.Request+" "+en.Outcome)
		}
	}
	want := []string{
		"everything trigger-elicitation-request elicitation/create accept",
		"everything trigger-elicitation-request elicitation/create refused",
		"everything trigger-elicitation-request elicitation/create refused",
		"everything trigger-sampling-request sampling/createMessage ok",
		"everything trigger-sampling-request sampling/createMessage refused",
	}
	if !slices.Equal(got, want) {
		t.Errorf("audited server requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// legacyEra is the protocol version before 2026-07-28, whose servers may
// send requests in the middle of a call.
const legacyEra = "2025-11-25"

// auditEntry is the part of an audit log line the tests read.
type auditEntry struct {
	Tool, Action, Request, Outcome, Reason string
}

// auditEntries reads e's audit log.
func auditEntries(t *testing.T, e *env) []auditEntry {
	t.Helper()
	state := ""
	for _, kv := range e.vars {
		if v, ok := strings.CutPrefix(kv, "XDG_STATE_HOME="); ok {
			state = v
		}
	}
	f, err := os.Open(filepath.Join(state, "toolhost", "audit.jsonl"))
	must(t, err)
	defer f.Close()
	var out []auditEntry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var en auditEntry
		must(t, json.Unmarshal(sc.Bytes(), &en))
		out = append(out, en)
	}
	must(t, sc.Err())
	return out
}
