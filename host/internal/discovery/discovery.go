// Package discovery answers the capabilities question, narrowest first:
// nothing → a compact list; search → the best few actions and skills for
// the words, ranked, with their scores; name + action → one action's args
// and the literal call shape; name → the full schema, or the action index
// when it would be too large. The MCP tool and `host capabilities` both
// call Answer.
package discovery

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// DefaultMaxBytes is HOST_CAPABILITIES_MAX_BYTES' default.
const DefaultMaxBytes = 40000

// Query is what the caller asks; every field is optional.
type Query struct {
	// Kind filters to "tool", "agent" or "skill".
	Kind string `json:"kind,omitempty"`
	// Name is a tool, agent or skill.
	Name string `json:"name,omitempty"`
	// Action is one action of Name.
	Action string `json:"action,omitempty"`
	// Search ranks every action and skill against these words (a task in
	// the user's own words); with Name, only that tool's actions.
	Search string `json:"search,omitempty"`
	// Allow, when set, says which tools and agents the caller may run
	// (OAuth scopes over HTTP): search and the list leave the others out.
	// Skills are always shown. Never read from the client's JSON.
	Allow func(name string) bool `json:"-"`
}

// MaxHits is how many ranked hits a search answers at most.
const MaxHits = 5

// ScoreFloor is the score under which a hit is no good match: a search
// whose best hit scores less answers no matches and says so.
const ScoreFloor = 1.2

// Kinds are the values Query.Kind accepts.
var Kinds = []string{"tool", "agent", "skill"}

// Answer answers q from snap. maxBytes bounds the {name} answer (0 means
// DefaultMaxBytes). A bad query gets an error envelope.
func Answer(snap *registry.Snapshot, q Query, maxBytes int) (map[string]any, *wire.Error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if q.Kind != "" && !slices.Contains(Kinds, q.Kind) {
		return nil, &wire.Error{Code: wire.CodeInvalidArgs, Message: fmt.Sprintf("unknown kind %q", q.Kind),
			DidYouMean: manifests.Suggest(q.Kind, Kinds), NextStep: "kind is tool, agent or skill"}
	}
	switch {
	case q.Action != "" && q.Name == "":
		return nil, (&wire.Error{Code: wire.CodeInvalidArgs, Message: "action needs name: say which tool the action belongs to"}).
			WithNext(wire.Step{Run: wire.StepCapabilities, Args: map[string]any{"search": q.Action}, Why: "to find it"})
	case q.Name != "" && q.Action != "":
		return actionAnswer(snap, q)
	case q.Name != "" && q.Search != "":
		t, _, env := lookup(snap, Query{Name: q.Name, Kind: q.Kind, Allow: q.Allow})
		if env != nil {
			return nil, env
		}
		if t == nil {
			return nil, (&wire.Error{Code: wire.CodeInvalidArgs, Message: fmt.Sprintf("%q is a skill; search within a tool or agent, or leave name out", q.Name)}).
				WithNext(wire.Step{Run: wire.StepSkill, Tool: q.Name})
		}
		return searchAnswer(snap, q), nil
	case q.Name != "":
		return nameAnswer(snap, q, maxBytes)
	case q.Search != "":
		return searchAnswer(snap, q), nil
	default:
		return listAnswer(snap, q), nil
	}
}

func listAnswer(snap *registry.Snapshot, q Query) map[string]any {
	out := map[string]any{}
	var tools, agents, notReady []map[string]any
	for _, t := range snap.Tools {
		k := string(t.Manifest.Kind)
		if q.Kind != "" && q.Kind != k || q.Allow != nil && !q.Allow(t.Name()) {
			continue
		}
		if !t.Ready {
			notReady = append(notReady, map[string]any{"name": t.Name(), "why": t.NotReady})
			continue
		}
		e := map[string]any{"name": t.Name(), "description": oneLine(t.Manifest.Description), "actions": len(t.Manifest.Actions)}
		if k == string(manifests.KindAgent) {
			e["uses"] = t.Manifest.UseNames()
			agents = append(agents, e)
		} else {
			tools = append(tools, e)
		}
	}
	if q.Kind == "" || q.Kind == "tool" {
		out["tools"] = nonNil(tools)
	}
	if q.Kind == "" || q.Kind == "agent" {
		out["agents"] = nonNil(agents)
	}
	if q.Kind == "" || q.Kind == "skill" {
		var skills []map[string]any
		for _, s := range snap.Skills {
			skills = append(skills, map[string]any{"name": s.Name, "description": oneLine(s.Description)})
		}
		out["skills"] = nonNil(skills)
	}
	if len(notReady) > 0 {
		out["not_ready"] = notReady
	}
	out["next_step"] = `call capabilities with {"name":"…"} for a tool's actions, or {"search":"…"} to find an action; then run_tool`
	return out
}

// Search ranks the actions and skills of snap that q's scope admits
// against q.Search, best first (all that scored, not only MaxHits).
func Search(snap *registry.Snapshot, q Query) []Hit {
	return indexOf(snap).search(q.Search, scope{kind: q.Kind, name: q.Name, allow: q.Allow}, 0)
}

func searchAnswer(snap *registry.Snapshot, q Query) map[string]any {
	hits := indexOf(snap).search(q.Search, scope{kind: q.Kind, name: q.Name, allow: q.Allow}, MaxHits)
	list := make([]map[string]any, 0, MaxHits)
	for _, h := range hits {
		if len(list) == MaxHits || h.Score < ScoreFloor {
			break
		}
		e := map[string]any{"kind": h.Kind, "name": h.Name, "description": oneLine(h.Description), "score": math.Round(h.Score*100) / 100}
		if h.Action != "" {
			e["action"] = h.Action
		}
		list = append(list, e)
	}
	out := map[string]any{"search": q.Search, "matches": list}
	switch {
	case len(list) == 0:
		out["next_step"] = "no good match: say the task in other words, or call capabilities with {} to list everything"
	case list[0]["kind"] == "skill":
		out["next_step"] = `call get_skill with {"name":"…"} for a skill, or capabilities with {"name":"…","action":"…"} for an action's args and call shape`
	default:
		out["next_step"] = `call capabilities with {"name":"…","action":"…"} for the best match's args and call shape`
	}
	return out
}

// lookup finds a tool by name for the name queries, honouring kind.
func lookup(snap *registry.Snapshot, q Query) (*registry.Tool, *registry.Skill, *wire.Error) {
	if q.Kind != "skill" {
		if t, _ := snap.Tool(q.Name); t != nil && (q.Kind == "" || q.Kind == string(t.Manifest.Kind)) && (q.Allow == nil || q.Allow(t.Name())) {
			return t, nil, nil
		}
	}
	if q.Kind == "" || q.Kind == "skill" {
		if s, _ := snap.Skill(q.Name); s != nil {
			return nil, s, nil
		}
	}
	var names []string
	for _, t := range snap.Tools {
		if q.Allow == nil || q.Allow(t.Name()) {
			names = append(names, t.Name())
		}
	}
	for _, s := range snap.Skills {
		names = append(names, s.Name)
	}
	return nil, nil, (&wire.Error{Code: wire.CodeUnknownTool, Message: fmt.Sprintf("nothing named %q", q.Name),
		DidYouMean: manifests.Suggest(q.Name, names)}).WithNext(wire.Step{Run: wire.StepCapabilities, Why: "to list everything"})
}

func nameAnswer(snap *registry.Snapshot, q Query, maxBytes int) (map[string]any, *wire.Error) {
	t, s, env := lookup(snap, q)
	if env != nil {
		return nil, env
	}
	if s != nil {
		return map[string]any{"kind": "skill", "name": s.Name, "description": s.Description,
			"next_step": fmt.Sprintf("call get_skill with {\"name\":%q} for the whole skill", s.Name)}, nil
	}
	m := t.Manifest
	actions := make([]map[string]any, 0, len(m.Actions))
	for i := range m.Actions {
		a := &m.Actions[i]
		e := map[string]any{"name": a.Name, "description": a.Description, "input_schema": a.ArgsSchema(),
			"read_only": a.ReadOnly, "run_with": runWith(m, a)}
		if len(a.NarrowWith) > 0 {
			e["narrow_with"] = a.NarrowWith
		}
		actions = append(actions, e)
	}
	full := map[string]any{"kind": string(m.Kind), "name": m.Name, "description": m.Description, "version": m.Version,
		"ready": t.Ready, "actions": actions}
	if m.Kind == manifests.KindAgent {
		full["uses"] = m.UseNames()
	}
	if !t.Ready {
		full["not_ready"] = t.NotReady
	}
	if b, err := json.Marshal(full); err == nil && len(b) <= maxBytes {
		return full, nil
	}
	index := make([]map[string]any, 0, len(m.Actions))
	for _, a := range m.Actions {
		index = append(index, map[string]any{"name": a.Name, "description": oneLine(a.Description)})
	}
	out := map[string]any{"kind": string(m.Kind), "name": m.Name, "description": oneLine(m.Description), "version": m.Version,
		"ready": t.Ready, "actions": index, "truncated": true,
		"next_step": fmt.Sprintf("the full schema is over %d bytes: call capabilities with {\"name\":%q,\"action\":\"…\"} for one action's args, or {\"search\":\"…\"}", maxBytes, m.Name)}
	if b, err := json.Marshal(out); err == nil && len(b) > maxBytes {
		out["actions"] = m.ActionNames() // names alone when even the index is too large
	}
	return out, nil
}

func actionAnswer(snap *registry.Snapshot, q Query) (map[string]any, *wire.Error) {
	t, s, env := lookup(snap, q)
	if env != nil {
		return nil, env
	}
	if s != nil {
		return nil, (&wire.Error{Code: wire.CodeInvalidArgs, Message: fmt.Sprintf("%q is a skill; skills have no actions", q.Name)}).
			WithNext(wire.Step{Run: wire.StepSkill, Tool: q.Name})
	}
	m := t.Manifest
	a := m.Action(q.Action)
	if a == nil {
		return nil, (&wire.Error{Code: wire.CodeUnknownAction, Message: fmt.Sprintf("%s has no action %q", m.Name, q.Action),
			DidYouMean: manifests.Suggest(q.Action, m.ActionNames())}).
			WithNext(wire.Step{Run: wire.StepCapabilities, Tool: m.Name, Why: "to list its actions"})
	}
	args := make([]map[string]any, 0, len(a.Args))
	example := map[string]any{}
	for _, arg := range a.Args {
		e := arg.Schema()
		e["name"], e["required"] = arg.Name, arg.Required
		args = append(args, e)
		if arg.Required {
			example[arg.Name] = placeholder(arg)
		}
	}
	key := "tool"
	if m.Kind == manifests.KindAgent {
		key = "agent"
	}
	out := map[string]any{"name": m.Name, "action": a.Name, "description": a.Description, "read_only": a.ReadOnly,
		"args": args, "run_with": runWith(m, a),
		"call": map[string]any{key: m.Name, "action": a.Name, "args": example}}
	if irr, why := m.Irreversible(a); irr {
		out["irreversible"] = why
	}
	if len(a.NarrowWith) > 0 {
		out["narrow_with"] = a.NarrowWith
	}
	if !t.Ready {
		out["not_ready"] = t.NotReady
	}
	return out, nil
}

// runWith names the MCP tool that runs a without approval_required.
func runWith(m *manifests.Manifest, a *manifests.Action) string {
	if irr, _ := m.Irreversible(a); irr {
		return m.Kind.ConfirmedTool() + " (after the user approves)"
	}
	return m.Kind.RunTool()
}

// placeholder is the value shown for a required arg in the call shape.
func placeholder(a manifests.Arg) any {
	if len(a.Enum) > 0 {
		return a.Enum[0]
	}
	switch a.Type {
	case manifests.TypeInteger, manifests.TypeNumber:
		if a.Minimum != nil {
			return *a.Minimum
		}
		return 0
	case manifests.TypeBoolean:
		return false
	case manifests.TypeArray:
		return []any{}
	case manifests.TypeObject:
		return map[string]any{}
	}
	return "…"
}

// oneLine shortens a description for the narrow answers: its first
// sentence when that fits, else its first 160 characters cut at a word.
func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if i := strings.Index(s, ". "); i > 0 && i < 160 {
		return s[:i+1]
	}
	r := []rune(s)
	if len(r) <= 160 {
		return s
	}
	cut := string(r[:160])
	if i := strings.LastIndex(cut, " "); i > 80 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, ",;:") + "…"
}

func nonNil(l []map[string]any) []map[string]any {
	if l == nil {
		return []map[string]any{}
	}
	return l
}
