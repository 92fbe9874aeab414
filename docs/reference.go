package docs

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// schemaNode is the part of a JSON Schema the reference reads.
type schemaNode struct {
	Ref                  string                 `json:"$ref"`
	Type                 any                    `json:"type"`
	Enum                 []any                  `json:"enum"`
	Default              any                    `json:"default"`
	Description          string                 `json:"description"`
	Pattern              string                 `json:"pattern"`
	Minimum              *float64               `json:"minimum"`
	Maximum              *float64               `json:"maximum"`
	MinItems             *int                   `json:"minItems"`
	Required             []string               `json:"required"`
	Properties           map[string]*schemaNode `json:"properties"`
	Items                *schemaNode            `json:"items"`
	Defs                 map[string]*schemaNode `json:"$defs"`
	Title                string                 `json:"title"`
	AdditionalProperties *bool                  `json:"additionalProperties"`
}

// propertyOrder reads the order in which an object's properties are written
// in the schema file, so the reference lists fields as the schema does.
func propertyOrder(raw json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// ManifestReference renders the tool.yaml reference (Markdown) from the
// JSON Schema in manifests/tool.schema.json: one table per object (the
// manifest, a secret, an action, an arg), one row per field in the order
// the schema declares them, with its type, whether it is required, its
// default and its description.
func ManifestReference(schema []byte) (string, error) {
	var root schemaNode
	if err := json.Unmarshal(schema, &root); err != nil {
		return "", fmt.Errorf("docs: read schema: %w", err)
	}
	var raw struct {
		Properties json.RawMessage            `json:"properties"`
		Defs       map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(schema, &raw); err != nil {
		return "", fmt.Errorf("docs: read schema: %w", err)
	}
	var b strings.Builder
	b.WriteString("<!-- Generated from manifests/tool.schema.json by `go generate ./docs`; do not edit. -->\n\n")
	b.WriteString("# tool.yaml reference\n\n")
	fmt.Fprintf(&b, "%s Every field below comes from the JSON Schema in [`manifests/tool.schema.json`](../manifests/tool.schema.json), "+
		"which editors can use to check a manifest as it is typed; the host's own parser (`manifests.Parse`) applies the same rules "+
		"and names the file, line and field of every problem.\n\n", root.Description)
	sections := []struct {
		title, def, intro string
	}{
		{"The manifest", "", "The top level of `tool.yaml`. `actions` is required too, unless `protocol` is `mcp`."},
		{"A secret (`secrets[]`)", "secret", "A credential the host reads from its own environment and passes to this plugin only."},
		{"An action (`actions[]`)", "action", "One thing the tool does. Action names are returned verbatim: a caller's `read_sheet` gets a did-you-mean, never a silent mapping."},
		{"An MCP server's action (`actions[]` with `protocol: mcp`)", "mcp_action", "An override of one of the server's tools, by the name the server lists it under: a person's judgement wins over what the server says. " +
			"The tools themselves, their args from each input schema and their reversibility from the MCP annotations (readOnlyHint; destructiveHint, true when absent), come from the server and are pinned at approval."},
		{"An arg (`actions[].args[]`)", "arg", "One argument of an action; `host call --arg NAME=VALUE` and plugin CLI flags are typed by it."},
	}
	for _, s := range sections {
		node, props := &root, raw.Properties
		if s.def != "" {
			node = root.Defs[s.def]
			if node == nil {
				return "", fmt.Errorf("docs: schema has no $defs.%s", s.def)
			}
			var sub struct {
				Properties json.RawMessage `json:"properties"`
			}
			if err := json.Unmarshal(raw.Defs[s.def], &sub); err != nil {
				return "", fmt.Errorf("docs: read $defs.%s: %w", s.def, err)
			}
			props = sub.Properties
		}
		order, err := propertyOrder(props)
		if err != nil {
			return "", fmt.Errorf("docs: read the properties of %s: %w", s.title, err)
		}
		fmt.Fprintf(&b, "## %s\n\n%s", s.title, s.intro)
		if node.AdditionalProperties != nil && !*node.AdditionalProperties {
			b.WriteString(" Any other key is an error (with a did-you-mean).")
		}
		b.WriteString("\n\n| field | type | required | default | what |\n|---|---|---|---|---|\n")
		for _, name := range order {
			p := node.Properties[name]
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", name, typeText(&root, p), yesNo(slices.Contains(node.Required, name)),
				defaultText(p), cell(descriptionOf(&root, p, s.def+"."+name)))
		}
		b.WriteString("\n")
	}
	b.WriteString("## Formats\n\n")
	names := make([]string, 0, len(root.Defs))
	for n, d := range root.Defs {
		if d.Pattern != "" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "- **%s**: matches `%s`%s\n", n, root.Defs[n].Pattern, formatNote(n))
	}
	return b.String(), nil
}

// formatNote says in words what a named format's pattern means.
func formatNote(name string) string {
	switch name {
	case "kebab":
		return " — lowercase words joined by single hyphens (`read-sheet`, `max-results`)."
	case "duration":
		return " — a Go duration (`30s`, `1m30s`, `1h`)."
	}
	return "."
}

// resolve follows a local $ref.
func resolve(root, n *schemaNode) *schemaNode {
	if n == nil || n.Ref == "" {
		return n
	}
	name, ok := strings.CutPrefix(n.Ref, "#/$defs/")
	if !ok || root.Defs[name] == nil {
		return n
	}
	return root.Defs[name]
}

func typeText(root, p *schemaNode) string {
	if p.Ref != "" {
		name := strings.TrimPrefix(p.Ref, "#/$defs/")
		return name
	}
	if len(p.Enum) > 0 {
		var vs []string
		for _, v := range p.Enum {
			vs = append(vs, fmt.Sprintf("`%v`", v))
		}
		return "one of " + strings.Join(vs, ", ")
	}
	t := ""
	switch v := p.Type.(type) {
	case string:
		t = v
	case []any:
		var ts []string
		for _, x := range v {
			ts = append(ts, fmt.Sprint(x))
		}
		t = strings.Join(ts, " or ")
	default:
		t = "any"
	}
	if t == "array" && p.Items != nil {
		it := resolve(root, p.Items)
		switch {
		case p.Items.Ref != "":
			t = "list of " + strings.TrimPrefix(p.Items.Ref, "#/$defs/")
		case it.Type != nil:
			t = "list of " + typeText(root, it)
		}
	}
	if p.Pattern != "" && p.Ref == "" && t == "string" {
		t += fmt.Sprintf(" matching `%s`", p.Pattern)
	}
	if p.Minimum != nil || p.Maximum != nil {
		lo, hi := "", ""
		if p.Minimum != nil {
			lo = fmt.Sprint(*p.Minimum)
		}
		if p.Maximum != nil {
			hi = fmt.Sprint(*p.Maximum)
		}
		t += fmt.Sprintf(" (%s to %s)", orDots(lo), orDots(hi))
	}
	return cell(t)
}

func orDots(s string) string {
	if s == "" {
		return "…"
	}
	return s
}

// plainWords describes the fields the schema leaves without a description,
// keyed by section and field.
var plainWords = map[string]string{
	"secret.name":        "The secret's name, kebab-case, as `host list` and errors show it.",
	"secret.description": "What the secret is and where a person gets one.",
	"action.name":        "The action's name, kebab-case, unique within the tool.",
	"action.description": "What the action does and returns, written for a model choosing an action.",
	"action.args":        "The action's arguments; a call with any other arg is refused with a did-you-mean.",
	"arg.name":           "The arg's name, kebab-case, unique within the action.",
	"arg.type":           "The JSON type a value must have (`host call --arg` converts from text by it).",
	"arg.required":       "A call without it is refused (`invalid_args`, with the schema).",
	"arg.description":    "What the value means, shown by `capabilities` and `--help`.",
	"arg.enum":           "The only values allowed.",
	"arg.minimum":        "Smallest value allowed (integer and number args).",
	"arg.maximum":        "Largest value allowed (integer and number args).",
}

func descriptionOf(root, p *schemaNode, key string) string {
	if w, ok := plainWords[key]; ok && p.Description == "" {
		return w
	}
	if p.Description != "" {
		return p.Description
	}
	if r := resolve(root, p); r != p && r.Description != "" {
		return r.Description
	}
	return ""
}

func defaultText(p *schemaNode) string {
	if p.Default == nil {
		return ""
	}
	b, _ := json.Marshal(p.Default)
	return "`" + string(b) + "`"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return ""
}

// cell makes s safe inside a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}
