package surface

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/host/internal/mcpproto"
	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/registry"
)

// ArgsDigest is the sha256 (hex) of the canonical JSON of an action's args
// schema (manifests.Action.ArgsSchema): it changes whenever an arg is
// added, removed, renamed, retyped or re-described, so a published tool
// written against the old args is re-reviewed.
func ArgsDigest(a *manifests.Action) string {
	raw, err := json.Marshal(a.ArgsSchema())
	if err != nil {
		panic(fmt.Sprintf("surface: encode args schema: %v", err)) // plain data: a programmer error
	}
	canon, err := mcpproto.Canonical(raw)
	if err != nil {
		panic(fmt.Sprintf("surface: canonical args schema: %v", err))
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:])
}

// Finding is one disagreement between a published tool and the registry.
type Finding struct {
	// Tool is the published tool's name.
	Tool string
	// Blocking findings stop `host serve --surface` (the tool cannot be
	// published: its action is gone or irreversible); the others fail
	// `host surface check` only.
	Blocking bool
	Message  string
}

// String renders "published tool NAME: message".
func (f Finding) String() string { return "published tool " + f.Tool + ": " + f.Message }

// Resolved is a published tool with the action it runs, as the registry
// holds it now.
type Resolved struct {
	*Tool
	Manifest *manifests.Manifest
	Action   *manifests.Action
}

// Resolve looks every published tool up in snap and reports what disagrees:
// a tool or action that is gone, an irreversible action (blocking), manifest
// args changed since the recorded digest, and a manifest that no longer
// accepts every call the published schema allows.
func Resolve(d *Declaration, snap *registry.Snapshot) ([]*Resolved, []Finding) {
	var out []*Resolved
	var findings []Finding
	add := func(t *Tool, blocking bool, format string, a ...any) {
		findings = append(findings, Finding{Tool: t.Name, Blocking: blocking, Message: fmt.Sprintf(format, a...)})
	}
	for _, t := range d.Tools {
		rt, suggestions := snap.Tool(t.ToolName)
		if rt == nil {
			add(t, true, "no tool %q in the registry%s", t.ToolName, didYouMean(suggestions))
			continue
		}
		if rt.Manifest.Kind != manifests.KindTool {
			add(t, true, "%q is %s, not a tool: the surface publishes tool actions", t.ToolName, rt.Manifest.Kind)
			continue
		}
		a := rt.Manifest.Action(t.Action)
		if a == nil {
			add(t, true, "%s has no action %q (renamed or removed?)%s; re-declare the published tool or remove it with a major surface_version bump",
				t.ToolName, t.Action, didYouMean(manifests.Suggest(t.Action, rt.Manifest.ActionNames())))
			continue
		}
		if irr, why := rt.Manifest.Irreversible(a); irr {
			add(t, true, "%s %s is irreversible (%s): the curated surface publishes reversible actions only and has no *_confirmed twin; leave it to the generic surface's run_tool_confirmed",
				t.ToolName, t.Action, why)
			continue
		}
		out = append(out, &Resolved{Tool: t, Manifest: rt.Manifest, Action: a})
		if got := ArgsDigest(a); got != t.ArgsDigest {
			add(t, false, "the manifest args of %s %s changed since it was reviewed (args_digest %s recorded, now %s): re-review the published args against %s, then record the new digest",
				t.ToolName, t.Action, short(t.ArgsDigest), short(got), rt.Manifest.Path)
		}
		for _, msg := range accepts(t, a) {
			add(t, false, "%s", msg)
		}
	}
	return out, findings
}

// accepts reports every call the published tool allows that the action's
// manifest would refuse: an arg it does not have, a type, enum or bound it
// does not accept, a required arg the published tool neither requires nor
// fixes, a fixed value it refuses.
func accepts(t *Tool, a *manifests.Action) []string {
	var out []string
	where := fmt.Sprintf("%s %s", t.ToolName, t.Action)
	for i := range t.Args {
		p := &t.Args[i]
		m := a.Arg(p.Name)
		if m == nil {
			out = append(out, fmt.Sprintf("publishes arg %q, which %s does not take%s", p.Name, where, didYouMean(manifests.Suggest(p.Name, a.ArgNames()))))
			continue
		}
		if p.Type != m.Type && (p.Type != manifests.TypeInteger || m.Type != manifests.TypeNumber) {
			out = append(out, fmt.Sprintf("publishes arg %q as %s, but %s takes %s", p.Name, p.Type, where, m.Type))
			continue
		}
		if len(m.Enum) > 0 {
			if len(p.Enum) == 0 {
				out = append(out, fmt.Sprintf("publishes arg %q without the enum %s requires", p.Name, where))
			}
			for _, v := range p.Enum {
				if !inEnum(m, v) {
					out = append(out, fmt.Sprintf("publishes %v for arg %q, which %s no longer accepts", v, p.Name, where))
				}
			}
		}
		if m.Minimum != nil && (p.Minimum == nil || *p.Minimum < *m.Minimum) {
			out = append(out, fmt.Sprintf("publishes arg %q with a lower minimum than %s's %v", p.Name, where, *m.Minimum))
		}
		if m.Maximum != nil && (p.Maximum == nil || *p.Maximum > *m.Maximum) {
			out = append(out, fmt.Sprintf("publishes arg %q with a higher maximum than %s's %v", p.Name, where, *m.Maximum))
		}
		if m.Items != nil && !reflect.DeepEqual(normal(p.Items), normal(m.Items)) {
			out = append(out, fmt.Sprintf("publishes arg %q with items other than %s's", p.Name, where))
		}
		if p.Default != nil {
			if _, err := single(m).Check(mustJSON(map[string]any{p.Name: p.Default})); err != nil {
				out = append(out, fmt.Sprintf("publishes default %v for arg %q, which %s refuses: %v", p.Default, p.Name, where, err))
			}
		}
	}
	for i := range a.Args {
		m := &a.Args[i]
		_, fixed := t.Fixed[m.Name]
		published := slices.IndexFunc(t.Args, func(p manifests.Arg) bool { return p.Name == m.Name })
		if m.Required && !fixed && (published < 0 || !t.Args[published].Required) {
			out = append(out, fmt.Sprintf("%s requires arg %q, which the published tool neither requires nor fixes", where, m.Name))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(t.Fixed)) {
		m := a.Arg(k)
		if m == nil {
			out = append(out, fmt.Sprintf("fixes arg %q, which %s does not take%s", k, where, didYouMean(manifests.Suggest(k, a.ArgNames()))))
			continue
		}
		if _, err := single(m).Check(mustJSON(map[string]any{k: t.Fixed[k]})); err != nil {
			out = append(out, fmt.Sprintf("fixes arg %q to %v, which %s refuses: %v", k, t.Fixed[k], where, err))
		}
	}
	return out
}

// single is an action taking only a, for checking one value against it.
func single(a *manifests.Arg) *manifests.Action {
	c := *a
	c.Required = false
	return &manifests.Action{Args: []manifests.Arg{c}}
}

func inEnum(a *manifests.Arg, v any) bool {
	_, err := single(a).Check(mustJSON(map[string]any{a.Name: v}))
	return err == nil
}

// normal is v through JSON, so values from YAML and from a manifest compare
// equal when they mean the same.
func normal(v any) any {
	var out any
	_ = json.Unmarshal(mustJSON(v), &out)
	return out
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("surface: encode %v: %v", v, err))
	}
	return b
}

func didYouMean(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", s[0])
}

func short(d string) string {
	if len(d) > 12 {
		return d[:12] + "…"
	}
	if d == "" {
		return "(none)"
	}
	return d
}

// MCPTool is the published tool as tools/list shows it: the declared name,
// title, description and input schema, with annotations from the action's
// manifest (readOnlyHint from read_only; destructiveHint false, since only
// reversible actions are published; idempotentHint for read-only actions;
// openWorldHint false, as the plugins work on local data).
func (r *Resolved) MCPTool() *mcp.Tool {
	f := false
	return &mcp.Tool{
		Name:        r.Name,
		Title:       r.Title,
		Description: strings.TrimSpace(r.Description),
		InputSchema: r.InputSchema(),
		Annotations: &mcp.ToolAnnotations{Title: r.Title, ReadOnlyHint: r.Action.ReadOnly, DestructiveHint: &f,
			IdempotentHint: r.Action.ReadOnly, OpenWorldHint: &f},
	}
}

// Tools returns the published tools list, sorted by name, as tools/list
// gives it.
func Tools(resolved []*Resolved) []*mcp.Tool {
	out := make([]*mcp.Tool, len(resolved))
	for i, r := range resolved {
		out[i] = r.MCPTool()
	}
	slices.SortFunc(out, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	return out
}
