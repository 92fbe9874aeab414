package mcpserver

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/host/internal/dispatch"
)

// TestRequestStateIsBoundAndSigned: the requestState of the gate's
// input-required result opens only the call it was made for, on the server
// that signed it, before it expires.
func TestRequestStateIsBoundAndSigned(t *testing.T) {
	s, other := New(Options{}), New(Options{})
	q := dispatch.Question{Tool: "notes", Action: "forget", Args: map[string]any{"id": "n1", "reason": "wrong"}, Why: "w"}
	good := s.signState(q, time.Now().Add(time.Minute))
	payload, mac, _ := strings.Cut(good, ".")
	tests := []struct {
		name  string
		state string
		q     dispatch.Question
		want  bool
	}{
		{"the call it was made for", good, q, true},
		{"args in another order are the same args", good, dispatch.Question{Tool: "notes", Action: "forget", Args: map[string]any{"reason": "wrong", "id": "n1"}}, true},
		{"other args", good, dispatch.Question{Tool: "notes", Action: "forget", Args: map[string]any{"id": "n2", "reason": "wrong"}}, false},
		{"another action", good, dispatch.Question{Tool: "notes", Action: "undo", Args: q.Args}, false},
		{"another tool", good, dispatch.Question{Tool: "mailer", Action: "forget", Args: q.Args}, false},
		{"expired", s.signState(q, time.Now().Add(-time.Second)), q, false},
		{"signed by another server", other.signState(q, time.Now().Add(time.Minute)), q, false},
		{"payload changed", strings.ToUpper(payload[:1]) + payload[1:] + "." + mac, q, false},
		{"no mac", payload, q, false},
		{"garbage", "not a state", q, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.validState(tt.state, tt.q); got != tt.want {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestRequestStateIsSingleUse: the person's answer a modern retry carries
// opens that one retry; the same requestState sent again — a replay, with
// the answer accepted — is refused, and a fresh state for the same call
// still works.
func TestRequestStateIsSingleUse(t *testing.T) {
	s := New(Options{})
	q := dispatch.Question{Tool: "notes", Action: "forget", Args: map[string]any{"id": "n1"}, Why: "w"}
	retry := func(state string) (bool, error) {
		g := &personGate{s: s, modern: true, req: &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{
			RequestState: state, InputResponses: mcp.InputResponseMap{confirmKey: &mcp.ElicitResult{Action: "accept"}}}}}
		return g.answered(context.Background(), q)
	}
	state := s.signState(q, time.Now().Add(time.Minute))
	if ok, err := retry(state); !ok || err != nil {
		t.Fatalf("first retry: got %v, %v; want it accepted", ok, err)
	}
	if ok, err := retry(state); ok || !errors.Is(err, errBadState) {
		t.Fatalf("replayed requestState: got %v, %v; want it refused (%v)", ok, err, errBadState)
	}
	if ok, err := retry(s.signState(q, time.Now().Add(time.Minute))); !ok || err != nil {
		t.Fatalf("a fresh state for the same call: got %v, %v; want it accepted", ok, err)
	}
}
