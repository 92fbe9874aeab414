package manifests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Protocol is what a plugin's entrypoint speaks.
type Protocol string

// The protocols. A manifest without protocol is a go-plugin plugin.
const (
	ProtocolGoPlugin Protocol = ""
	ProtocolMCP      Protocol = "mcp"
)

// MCP reports whether the plugin is an MCP server run over stdio.
func (m *Manifest) MCP() bool { return m.Protocol == ProtocolMCP }

// Override is a person's judgement of one tool of an MCP server, by the
// tool's MCP name: it wins over what the server says of the tool.
type Override struct {
	Name        string
	Description string
	// ReadOnly and Reversible are nil when the manifest leaves the
	// server's annotations to decide.
	ReadOnly   *bool
	Reversible *bool
	Keywords   []string
	// Line is the override's line in tool.yaml, for messages.
	Line int
}

// Override returns the override of the MCP tool named, or nil.
func (m *Manifest) Override(name string) *Override {
	for i := range m.Overrides {
		if m.Overrides[i].Name == name {
			return &m.Overrides[i]
		}
	}
	return nil
}

// downloaders are programs that fetch a package at launch: an MCP plugin's
// code lives in its folder, pinned by the lock, so none may start it.
var downloaders = []string{"npx", "npm", "pnpm", "pnpx", "yarn", "bunx", "uvx", "pipx"}

// downloaderHelp says how to install an MCP server into the plugin's folder
// instead of fetching it at launch.
const downloaderHelp = "the server's code must live in the plugin's folder, pinned by its approval, not be fetched at launch: " +
	"install it there (npm install --save-exact PACKAGE@VERSION, then npm ci from the package-lock.json; or `host new-plugin --from-npm PACKAGE@VERSION`) " +
	"and set entrypoint to the installed script (node_modules/PACKAGE/dist/index.js) with interpreter: node"

// isMCPToolName reports whether s is a valid MCP tool name: 1 to 128 of
// A-Z, a-z, 0-9, '_', '-' and '.'.
func isMCPToolName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isLower(c) && !isUpper(c) && !isDigit(c) && c != '_' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

// isProgramName reports whether s names a program to find on PATH: no
// folder, no space.
func isProgramName(s string) bool {
	return s != "" && !strings.ContainsAny(s, `/\ :`) && s != "." && s != ".."
}

// downloader returns the downloader s names ("npx", "npx.cmd",
// "node_modules/.bin/npx"), or "".
func downloader(s string) string {
	base := strings.ToLower(path.Base(strings.ReplaceAll(s, `\`, "/")))
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".cmd"), ".exe")
	if slices.Contains(downloaders, base) {
		return base
	}
	return ""
}

// launch reads how an MCP plugin starts (protocol, interpreter, args) and
// refuses them on a go-plugin plugin, and a downloader anywhere.
func (p *parser) launch(fs map[string]entry, m *Manifest) {
	if s, ok := p.str(fs["protocol"]); ok {
		switch Protocol(s) {
		case ProtocolMCP:
			m.Protocol = ProtocolMCP
		case "go-plugin":
			m.Protocol = ProtocolGoPlugin
		default:
			p.addf(fs["protocol"].val, "protocol", "unknown protocol %q (want mcp for an MCP server over stdio, or leave it out for a go-plugin plugin)", s)
		}
	}
	if d := downloader(m.Entrypoint); d != "" {
		p.addf(fs["entrypoint"].val, "entrypoint", "%s downloads code at launch; %s", d, downloaderHelp)
	}
	if s, ok := p.str(fs["interpreter"]); ok {
		m.Interpreter = s
		switch {
		case !m.MCP():
			p.addf(fs["interpreter"].val, "interpreter", "only an MCP server (protocol: mcp) has an interpreter; a go-plugin plugin's entrypoint is its binary")
		case downloader(s) != "":
			p.addf(fs["interpreter"].val, "interpreter", "%s downloads code at launch; %s", downloader(s), downloaderHelp)
		case !isProgramName(s):
			p.addf(fs["interpreter"].val, "interpreter", "%q is not a program name (want a name such as node or python3, found on the plugin's PATH: exec_path, or the system's)", s)
		}
	}
	if e, ok := fs["args"]; ok {
		items, _ := p.list(e)
		for i, n := range items {
			field := fmt.Sprintf("args[%d]", i)
			if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" || n.ShortTag() == "!!map" {
				p.addf(n, field, "want a string, got %s", DescribeNode(n))
				continue
			}
			m.Args = append(m.Args, n.Value)
		}
		if !m.MCP() {
			p.addf(e.val, "args", "only an MCP server (protocol: mcp) takes args; a go-plugin plugin is started without any")
		}
	}
	if e, ok := fs["roots"]; ok {
		m.Roots = p.stringSet(e, func(s string) string {
			if !filepath.IsAbs(s) {
				return fmt.Sprintf("%q is not an absolute folder (~ and $HOME are not expanded)", s)
			}
			return ""
		})
		if !m.MCP() {
			p.addf(e.val, "roots", "only an MCP server (protocol: mcp) asks for roots; a go-plugin plugin is told its folders by env")
		}
	}
	if e, ok := fs["sampling"]; ok {
		if s, ok := p.str(e); ok {
			switch s {
			case "allow":
				m.Sampling = true
			case "refuse":
			default:
				p.addf(e.val, "sampling", "unknown value %q (want allow, to pass the server's sampling requests to the client, or refuse, the default)", s)
			}
		}
		if !m.MCP() {
			p.addf(e.val, "sampling", "only an MCP server (protocol: mcp) asks for sampling; a go-plugin plugin calls no model through the host")
		}
	}
	if !m.MCP() {
		return
	}
	if m.Kind == KindAgent {
		p.addf(fs["kind"].val, "kind", "an MCP server is a tool (kind: tool); agents call the host over go-plugin")
	}
	for _, k := range []string{"prompts", "resources", "resource_templates"} {
		if e, ok := fs[k]; ok && e.val != nil {
			p.addf(e.val, k, "an MCP server's plugin does not declare %s; remove it", k)
		}
	}
}

// overrides reads an MCP plugin's actions: overrides of the server's
// tools by MCP name, each listed once.
func (p *parser) overrides(e entry, m *Manifest) {
	items, _ := p.list(e)
	seen := map[string]int{}
	for path, n := range p.mappings(items, "actions", "name, read_only, reversible, keywords, description") {
		fs := p.fields(n, path, overrideKeys)
		p.require(n, path, fs, "name")
		o := Override{Line: n.Line}
		if v, ok := p.str(fs["name"]); ok {
			o.Name = v
			if !isMCPToolName(v) {
				p.addf(fs["name"].val, join(path, "name"), "%q is not an MCP tool name (want 1 to 128 of A-Z, a-z, 0-9, _, - and ., as the server lists it)", v)
			} else {
				p.unique(seen, fs["name"].val, join(path, "name"), "action", v)
			}
		}
		if v, ok := p.str(fs["description"]); ok {
			if strings.TrimSpace(v) == "" {
				p.addf(fs["description"].val, join(path, "description"), "must not be empty")
			}
			o.Description = v
		}
		if v, ok := p.boolean(fs["read_only"]); ok {
			o.ReadOnly = &v
		}
		if v, ok := p.boolean(fs["reversible"]); ok {
			o.Reversible = &v
		}
		if o.ReadOnly != nil && *o.ReadOnly && o.Reversible != nil && !*o.Reversible {
			p.addf(fs["reversible"].val, join(path, "reversible"), "read_only: true implies reversible, so reversible: false contradicts it")
		}
		if word, in, ok := isIrreversibleName(m.Name, o.Name); ok {
			if o.ReadOnly != nil && *o.ReadOnly {
				p.addf(fs["read_only"].val, join(path, "read_only"),
					"the word %q in the %s marks this action irreversible; it cannot be read_only: true", word, in)
			} else if o.Reversible != nil && *o.Reversible {
				p.addf(fs["reversible"].val, join(path, "reversible"),
					"the word %q in the %s marks this action irreversible; it cannot be reversible: true", word, in)
			}
		}
		if k, ok := fs["keywords"]; ok {
			o.Keywords = p.stringSet(k, func(s string) string {
				if strings.TrimSpace(s) == "" {
					return "a keyword must not be empty"
				}
				return ""
			})
		}
		m.Overrides = append(m.Overrides, o)
	}
}

// MCPTool is one tool definition an MCP server lists (tools/list), as the
// approval lock pins it: name, title, description, input and output
// schemas, annotations.
type MCPTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  *MCPAnnotations `json:"annotations,omitempty"`
}

// MCPAnnotations are a tool's MCP annotations (hints the server gives).
type MCPAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  bool   `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// canonicalJSON is raw with object keys sorted and insignificant space
// removed (numbers kept as written), so two listings compare by meaning.
func canonicalJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return string(raw)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// Canonical returns t as canonical JSON: what the lock compares.
func (t MCPTool) Canonical() string {
	c := t
	c.InputSchema = json.RawMessage(canonicalJSON(t.InputSchema))
	c.OutputSchema = json.RawMessage(canonicalJSON(t.OutputSchema))
	if len(c.OutputSchema) == 0 {
		c.OutputSchema = nil
	}
	if len(c.InputSchema) == 0 {
		c.InputSchema = nil
	}
	out, _ := json.Marshal(c)
	return string(out)
}

// DiffMCPTools says how the tools a server lists now differ from the ones
// pinned at approval, one line each (added, removed, and which part of a
// tool changed); none when they are the same.
func DiffMCPTools(pinned, now []MCPTool) []string {
	var out []string
	byName := func(l []MCPTool, name string) *MCPTool {
		for i := range l {
			if l[i].Name == name {
				return &l[i]
			}
		}
		return nil
	}
	for _, p := range pinned {
		n := byName(now, p.Name)
		if n == nil {
			out = append(out, fmt.Sprintf("tool %s was removed", p.Name))
			continue
		}
		if p.Canonical() == n.Canonical() {
			continue
		}
		var parts []string
		if p.Title != n.Title {
			parts = append(parts, fmt.Sprintf("title %q → %q", p.Title, n.Title))
		}
		if p.Description != n.Description {
			parts = append(parts, fmt.Sprintf("description %s → %s", strconv.Quote(clip(p.Description)), strconv.Quote(clip(n.Description))))
		}
		if canonicalJSON(p.InputSchema) != canonicalJSON(n.InputSchema) {
			parts = append(parts, fmt.Sprintf("input schema %s → %s", clip(canonicalJSON(p.InputSchema)), clip(canonicalJSON(n.InputSchema))))
		}
		if canonicalJSON(p.OutputSchema) != canonicalJSON(n.OutputSchema) {
			parts = append(parts, "output schema changed")
		}
		pa, _ := json.Marshal(p.Annotations)
		na, _ := json.Marshal(n.Annotations)
		if !bytes.Equal(pa, na) {
			parts = append(parts, fmt.Sprintf("annotations %s → %s", pa, na))
		}
		out = append(out, fmt.Sprintf("tool %s changed: %s", p.Name, strings.Join(parts, "; ")))
	}
	for _, n := range now {
		if byName(pinned, n.Name) == nil {
			out = append(out, fmt.Sprintf("tool %s was added", n.Name))
		}
	}
	return out
}

// clip shortens s for a one-line diff.
func clip(s string) string {
	const most = 160
	if r := []rune(s); len(r) > most {
		return string(r[:most]) + "…"
	}
	return s
}

// MCPActions turns the tools an MCP server lists into the plugin's actions:
// args from each input schema, reversibility from the annotations as the
// MCP specification defines them (readOnlyHint; destructiveHint, true when
// absent, on a tool that is not read-only), and the manifest's overrides
// over both. An action whose tool or action name holds an irreversible
// verb is irreversible whatever the server says. An override of a tool the
// server does not list is an error naming it.
func (m *Manifest) MCPActions(tools []MCPTool) ([]Action, error) {
	var problems []string
	for _, o := range m.Overrides {
		if !slices.ContainsFunc(tools, func(t MCPTool) bool { return t.Name == o.Name }) {
			names := make([]string, len(tools))
			for i, t := range tools {
				names[i] = t.Name
			}
			msg := fmt.Sprintf("%s:%d: actions: the server lists no tool %q", m.Path, o.Line, o.Name)
			if sug := Suggest(o.Name, names); len(sug) > 0 {
				msg += fmt.Sprintf(" (did you mean %q?)", sug[0])
			}
			problems = append(problems, msg)
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("manifests: %s", strings.Join(problems, "; "))
	}
	out := make([]Action, 0, len(tools))
	for _, t := range tools {
		a := Action{Name: t.Name, Description: t.Description}
		if a.Description == "" {
			a.Description = t.Title
		}
		if a.Description == "" && t.Annotations != nil {
			a.Description = t.Annotations.Title
		}
		if ann := t.Annotations; ann != nil {
			a.ReadOnly = ann.ReadOnlyHint
			a.Reversible = ann.ReadOnlyHint || (ann.DestructiveHint != nil && !*ann.DestructiveHint)
		}
		if o := m.Override(t.Name); o != nil {
			if o.Description != "" {
				a.Description = o.Description
			}
			if o.ReadOnly != nil {
				a.ReadOnly = *o.ReadOnly
				if o.Reversible == nil {
					a.Reversible = *o.ReadOnly
				}
			}
			if o.Reversible != nil {
				a.Reversible = *o.Reversible
			}
			a.ReadOnly = a.ReadOnly && a.Reversible
			a.Keywords = o.Keywords
		}
		if a.ReadOnly {
			a.Reversible = true
		}
		if _, _, ok := isIrreversibleName(m.Name, a.Name); ok {
			a.ReadOnly, a.Reversible = false, false
		}
		a.Args = argsFromSchema(t.InputSchema)
		if s := schemaObject(t.OutputSchema); s != nil && s["type"] == "object" {
			a.OutputSchema = s
		}
		out = append(out, a)
	}
	return out, nil
}

// schemaObject decodes a JSON Schema object, numbers as json.Number; nil
// when raw is not one.
func schemaObject(raw json.RawMessage) map[string]any {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v map[string]any
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}

// argsFromSchema reads an input schema's properties as args, sorted by
// name: each one's type (one of the six, or a type and null; left empty,
// accepting any value, when the schema allows several), description, enum,
// default, bounds and items, and whether it is required. The server
// checks the rest of its schema itself.
func argsFromSchema(raw json.RawMessage) []Arg {
	s := schemaObject(raw)
	props, _ := s["properties"].(map[string]any)
	required := map[string]bool{}
	if l, ok := s["required"].([]any); ok {
		for _, r := range l {
			if name, ok := r.(string); ok {
				required[name] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	slices.Sort(names)
	out := make([]Arg, 0, len(names))
	for _, name := range names {
		ps, _ := props[name].(map[string]any)
		a := Arg{Name: name, Required: required[name], Type: schemaType(ps["type"])}
		a.Description, _ = ps["description"].(string)
		if a.Type == TypeInteger || a.Type == TypeNumber {
			a.Minimum, a.Maximum = schemaFloat(ps["minimum"]), schemaFloat(ps["maximum"])
		}
		if items, ok := ps["items"].(map[string]any); ok && a.Type == TypeArray {
			a.Items = items
		}
		if l, ok := ps["enum"].([]any); ok && a.Type != "" {
			for _, v := range l {
				c, msg := a.convert(v)
				if msg != "" {
					a.Enum = nil
					break
				}
				a.Enum = append(a.Enum, c)
			}
		}
		if d, ok := ps["default"]; ok && d != nil {
			if c, msg := a.convert(d); msg == "" && (len(a.Enum) == 0 || a.inEnum(c)) {
				a.Default = c
			}
		}
		out = append(out, a)
	}
	return out
}

// schemaType reads a property's type: one of the six arg types, or one of
// them with "null"; "" otherwise.
func schemaType(v any) ArgType {
	var ts []string
	switch t := v.(type) {
	case string:
		ts = []string{t}
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok && s != "null" {
				ts = append(ts, s)
			}
		}
	}
	if len(ts) == 1 && slices.Contains(ArgTypes, ArgType(ts[0])) {
		return ArgType(ts[0])
	}
	return ""
}

// schemaFloat reads a schema's number bound.
func schemaFloat(v any) *float64 {
	n, ok := v.(json.Number)
	if !ok {
		return nil
	}
	f, err := n.Float64()
	if err != nil {
		return nil
	}
	return &f
}
