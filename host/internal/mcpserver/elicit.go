package mcpserver

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/host/internal/dispatch"
	"github.com/toolhost/toolhost/host/internal/toolresult"
)

// confirmKey names the gate's question among a result's inputRequests.
const confirmKey = "toolhost/confirm"

// stateTTL is how long a modern client has to answer the gate's question.
const stateTTL = 10 * time.Minute

var (
	errNested    = errors.New("mcp: a nested call cannot ask through an input-required result")
	errNeedInput = errors.New("mcp: the person must be asked first")
	errBadState  = errors.New("mcp: requestState is not this host's, or is for another call, or has expired, or was used already")
)

// personGate is how the gate reaches the person during one tools/call on a
// connection that can carry the question (stdio; the client declared the
// elicitation capability, form mode):
//
//   - legacy era: elicitation/create is sent mid-call, for the call itself
//     and for an agent's nested calls alike;
//   - modern era (2026-07-28), which forbids server requests mid-call: the
//     call answers input_required with the question, and the client's retry
//     carries the person's answer and the signed requestState, bound to the
//     tool, action and args digest and expiring after stateTTL. A nested
//     call never asks this way (the agent is already running).
//
// Everywhere else — over HTTP, where the host is stateless and a retry may
// reach another replica, or when the client cannot elicit — there is no
// personGate and the gate answers approval_required (the *_confirmed flow).
type personGate struct {
	s      *Server
	req    *mcp.CallToolRequest
	modern bool
	// pending is the question a modern call must ask before it can run.
	pending *dispatch.Question
}

// askPerson returns the personGate of a tools/call, or nil when the person
// cannot be asked on its connection.
func (s *Server) askPerson(req *mcp.CallToolRequest) *personGate {
	if noPerson(req) != "" {
		return nil
	}
	// A request whose _meta names a protocol version is of the modern era.
	_, modern := req.Params.GetMeta()[mcp.MetaKeyProtocolVersion]
	return &personGate{s: s, req: req, modern: modern}
}

// noPerson says why the person cannot be asked on the connection of a
// tools/call, or "" when they can.
func noPerson(req *mcp.CallToolRequest) string {
	if why := noRequests(req); why != "" {
		return why
	}
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil {
		return fmt.Sprintf("the MCP client (%s) did not declare the elicitation capability, so it cannot show a question", clientName(req))
	}
	if e := caps.Elicitation; e.Form == nil && e.URL != nil {
		return fmt.Sprintf("the MCP client (%s) offers only url elicitation, which cannot show a question", clientName(req))
	}
	return ""
}

// noRequests says why the host cannot send requests to the client during
// a tools/call, or "" when it can: over HTTP the host is stateless, and
// a request would have nowhere to go.
func noRequests(req *mcp.CallToolRequest) string {
	if req.Session == nil || (req.Extra != nil && req.Extra.Header != nil) {
		return "the call came over HTTP, where the host sends the client no requests of its own"
	}
	return ""
}

// clientName is the name the client gave for itself.
func clientName(req *mcp.CallToolRequest) string {
	if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
		return p.ClientInfo.Name
	}
	return "unnamed"
}

// asker is the dispatch.Asker of the call (nil for a nil personGate).
func (g *personGate) asker() dispatch.Asker {
	if g == nil {
		return nil
	}
	if !g.modern {
		return g.elicit
	}
	return g.answered
}

// elicit asks through elicitation/create and reports an explicit accept.
func (g *personGate) elicit(ctx context.Context, q dispatch.Question) (bool, error) {
	res, err := g.ask(ctx, &mcp.ElicitParams{Mode: "form", Message: question(q), RequestedSchema: confirmSchema()})
	if err != nil {
		if g.s.opts.Logger != nil {
			g.s.opts.Logger.Warn("elicitation failed; answering approval_required", "tool", q.Tool, "action", q.Action, "error", err)
		}
		return false, fmt.Errorf("mcp: elicit: %w", err)
	}
	return res.Action == "accept", nil
}

// ask sends one elicitation/create to the person, mid-call: the gate's own
// question, or a hosted MCP server's (callClient.Elicit).
func (g *personGate) ask(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return g.req.Session.Elicit(ctx, p)
}

// answered decides a modern call from the answer its retry carries, or
// records the question to ask.
func (g *personGate) answered(_ context.Context, q dispatch.Question) (bool, error) {
	if q.Agent != "" {
		return false, errNested
	}
	p := g.req.Params
	if p.RequestState == "" {
		g.pending = &q
		return false, errNeedInput
	}
	if !g.s.validState(p.RequestState, q) || !g.s.spendState(p.RequestState) {
		return false, errBadState
	}
	res, ok := p.InputResponses[confirmKey].(*mcp.ElicitResult)
	if !ok {
		return false, errBadState
	}
	return res.Action == "accept", nil
}

// inputRequired turns the outcome of a modern call that must ask first into
// the input_required result carrying the question; else nil.
func (g *personGate) inputRequired(out dispatch.Outcome) *mcp.CallToolResult {
	if g == nil || g.pending == nil || out.Code() != "approval_required" {
		return nil
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{confirmKey: &mcp.ElicitParams{Mode: "form", Message: question(*g.pending), RequestedSchema: confirmSchema()}},
		RequestState:  g.s.signState(*g.pending, time.Now().Add(stateTTL)),
	}
}

// result is the answer of a run tool: the input-required result when the
// person must be asked first, else the outcome.
func (g *personGate) result(out dispatch.Outcome) *mcp.CallToolResult {
	if r := g.inputRequired(out); r != nil {
		return r
	}
	return toolresult.Of(out)
}

// confirmSchema asks for nothing but the decision itself.
func confirmSchema() map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{}}
}

// state is what a requestState binds: the call, when it expires, and a
// nonce that makes each state one of a kind, so it can be spent once.
type state struct {
	Tool    string `json:"tool"`
	Action  string `json:"action"`
	Args    string `json:"args"` // sha256 of the checked args' JSON
	Expires int64  `json:"expires"`
	Nonce   string `json:"nonce"`
}

func argsDigest(args map[string]any) string {
	b, _ := json.Marshal(args) // map keys are sorted
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// signState is the requestState of a question: the bound call, then an
// HMAC of it under a key that lives as long as this server.
func (s *Server) signState(q dispatch.Question, expires time.Time) string {
	body, _ := json.Marshal(state{Tool: q.Tool, Action: q.Action, Args: argsDigest(q.Args), Expires: expires.Unix(),
		Nonce: base64.RawURLEncoding.EncodeToString(newStateKey()[:16])})
	payload := base64.RawURLEncoding.EncodeToString(body)
	return payload + "." + s.mac(payload)
}

// validState reports whether raw is a requestState this server signed, for
// exactly this call, and not expired.
func (s *Server) validState(raw string, q dispatch.Question) bool {
	payload, mac, ok := strings.Cut(raw, ".")
	if !ok || !hmac.Equal([]byte(mac), []byte(s.mac(payload))) {
		return false
	}
	body, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return false
	}
	var st state
	if json.Unmarshal(body, &st) != nil {
		return false
	}
	return st.Tool == q.Tool && st.Action == q.Action && st.Args == argsDigest(q.Args) && time.Now().Unix() < st.Expires
}

// spendState records a valid requestState as used and reports whether it
// was unused: a person's answer opens one retry, never a replay of it.
// Records are kept until the state would have expired anyway.
func (s *Server) spendState(raw string) bool {
	now := time.Now()
	s.spentMu.Lock()
	defer s.spentMu.Unlock()
	for k, until := range s.spent {
		if now.After(until) {
			delete(s.spent, k)
		}
	}
	if _, used := s.spent[raw]; used {
		return false
	}
	if s.spent == nil {
		s.spent = map[string]time.Time{}
	}
	s.spent[raw] = now.Add(stateTTL)
	return true
}

func (s *Server) mac(payload string) string {
	m := hmac.New(sha256.New, s.stateKey)
	m.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// newStateKey is a fresh random key for signing requestStates.
func newStateKey() []byte {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		panic(fmt.Sprintf("mcp: no randomness for the state key: %v", err)) // crypto/rand never fails on supported platforms
	}
	return k
}

// question is the elicitation message: what will run, with which args, and
// why it cannot be undone.
func question(q dispatch.Question) string {
	var b strings.Builder
	if q.Agent != "" {
		fmt.Fprintf(&b, "The agent %s wants to run %s %s.\n", q.Agent, q.Tool, q.Action)
	} else {
		fmt.Fprintf(&b, "Run %s %s?\n", q.Tool, q.Action)
	}
	args, err := json.MarshalIndent(q.Args, "", "  ")
	if err != nil || len(q.Args) == 0 {
		args = []byte("{}")
	}
	fmt.Fprintf(&b, "Args: %s\n", args)
	fmt.Fprintf(&b, "It cannot be undone: %s.\n", q.Why)
	b.WriteString("Accept to run it; decline or cancel and nothing runs.")
	return b.String()
}
