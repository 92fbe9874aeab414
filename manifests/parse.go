package manifests

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Defaults filled in by Parse when the manifest leaves a field out.
const (
	DefaultTimeout     = 30 * time.Second
	DefaultConcurrency = 4
)

// Limits Parse enforces.
const (
	MinTimeout     = time.Second
	MaxTimeout     = time.Hour
	MinIdle        = time.Second
	MaxIdle        = 24 * time.Hour
	MaxConcurrency = 256
	MinMemory      = 16 << 20
	MaxMemory      = 1 << 40
	MinCPUTime     = time.Second
	MaxCPUTime     = 24 * time.Hour
)

// memoryRE is a memory size: a whole number and a unit, binary (KiB, MiB,
// GiB, TiB) or decimal (KB, MB, GB, TB).
var memoryRE = regexp.MustCompile(`^([0-9]{1,13}) ?([KMGT]i?B)$`)

// ParseMemory reads a memory size such as "512MiB" or "2GB" into bytes.
func ParseMemory(s string) (int64, error) {
	m := memoryRE.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("want a size such as \"512MiB\" or \"2GiB\" (units KiB, MiB, GiB, TiB, KB, MB, GB, TB), got %q", s)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	unit := map[string]int64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
		"KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}[m[2]]
	if n > math.MaxInt64/unit {
		return 0, fmt.Errorf("%s is too large", s)
	}
	return n * unit, nil
}

// The keys each level of tool.yaml accepts, in the order the docs list them.
var (
	topKeys    = []string{"name", "kind", "description", "version", "entrypoint", "sha256", "timeout", "idle", "eager", "env", "concurrency", "memory", "cpu_time", "uses", "secrets", "actions", "prompts", "resources", "resource_templates"}
	actionKeys = []string{"name", "description", "read_only", "reversible", "args", "narrow_with", "output_schema"}
	argKeys    = []string{"name", "type", "required", "description", "enum", "default", "minimum", "maximum", "items"}
	secretKeys = []string{"name", "env", "description", "required"}
)

// ArgTypes lists the argument types in the order messages name them.
var ArgTypes = []ArgType{TypeString, TypeInteger, TypeNumber, TypeBoolean, TypeArray, TypeObject}

var (
	kebabRE     = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)
	envRE       = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	secretEnvRE = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
	sha256RE    = regexp.MustCompile(`^[0-9a-f]{64}$`)
	yamlLineRE  = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
)

// IsKebab reports whether name is lowercase kebab-case, the form of every
// tool, action and arg name: a lowercase letter, then lowercase letters and
// digits in words joined by single hyphens ("read-sheet", "max-results").
func IsKebab(name string) bool { return kebabRE.MatchString(name) }

// Parse reads and validates the manifest at path. See ParseBytes. A file
// that cannot be read gives a nil manifest and an error wrapping the
// operating system's (errors.Is(err, fs.ErrNotExist) works).
func Parse(path string) (*Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("manifests: read %s: %w", path, err)
	}
	return ParseBytes(path, data)
}

// ParseBytes parses and validates data as the manifest at path, filling in
// the defaults (kind tool, timeout 30s, concurrency 4, reversible as
// described in the package documentation).
//
// When the manifest is invalid the error is an *Error listing every
// problem, each with file, line and field, and the returned *Manifest holds
// what could be read (its Path and usually its Name, enough to list a broken
// plugin); use it for nothing else. ParseBytes never panics.
func ParseBytes(path string, data []byte) (*Manifest, error) {
	p := &parser{file: path, budget: 20*len(data) + 10000}
	m := &Manifest{Path: path, Kind: KindTool, Timeout: DefaultTimeout, Concurrency: DefaultConcurrency}
	p.parse(data, m)
	if len(p.problems) > 0 {
		sort.SliceStable(p.problems, func(i, j int) bool { return p.problems[i].Line < p.problems[j].Line })
		return m, &Error{File: path, Problems: p.problems}
	}
	return m, nil
}

// parser collects the problems of one manifest.
type parser struct {
	file     string
	problems []Problem
	// budget bounds the nodes visited, so aliases cannot make a small file
	// expand into a huge walk.
	budget    int
	exhausted bool
}

func (p *parser) add(line int, field, msg string) {
	p.problems = append(p.problems, Problem{File: p.file, Line: line, Field: field, Message: msg})
}

func (p *parser) addf(n *yaml.Node, field, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	p.add(line, field, fmt.Sprintf(format, args...))
}

// spend takes one node from the budget and reports whether any is left.
func (p *parser) spend(n *yaml.Node) bool {
	p.budget--
	if p.budget < 0 {
		if !p.exhausted {
			p.exhausted = true
			p.addf(n, "", "the document is too complex (aliases expand too far)")
		}
		return false
	}
	return true
}

// resolve follows aliases to the node they name.
func (p *parser) resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		if !p.spend(n) {
			return nil
		}
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.AliasNode {
		return nil
	}
	return n
}

// entry is one key of a mapping and its value.
type entry struct {
	key, val *yaml.Node
	field    string
}

// fields reads a mapping whose keys must be among known, reporting unknown
// and duplicate keys. Null values count as absent.
func (p *parser) fields(n *yaml.Node, path string, known []string) map[string]entry {
	out := map[string]entry{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := p.resolve(n.Content[i]), p.resolve(n.Content[i+1])
		if k == nil || v == nil {
			continue
		}
		if !p.spend(k) {
			return out
		}
		if k.Kind != yaml.ScalarNode {
			p.addf(k, path, "keys must be plain strings")
			continue
		}
		name := k.Value
		field := join(path, name)
		if name == "<<" {
			p.addf(k, field, "merge keys (<<) are not supported; write the keys out")
			continue
		}
		if !contains(known, name) {
			msg := "unknown key " + strconv.Quote(name)
			if s := Suggest(name, known); len(s) > 0 {
				msg += " (did you mean " + strconv.Quote(s[0]) + "?)"
			} else {
				msg += " (want one of " + strings.Join(known, ", ") + ")"
			}
			p.addf(k, field, "%s", msg)
			continue
		}
		if prev, dup := out[name]; dup {
			p.addf(k, field, "duplicate key (first at line %d)", prev.key.Line)
			continue
		}
		if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
			out[name] = entry{key: k, field: field}
			continue
		}
		out[name] = entry{key: k, val: v, field: field}
	}
	return out
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// require reports each of keys that is absent from fs.
func (p *parser) require(n *yaml.Node, path string, fs map[string]entry, keys ...string) {
	for _, k := range keys {
		if e, ok := fs[k]; !ok || e.val == nil {
			line := n.Line
			if ok {
				line = e.key.Line
			}
			p.add(line, join(path, k), "required field is missing")
		}
	}
}

// describeNode names a YAML node's kind for a "want X, got Y" message.
func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		v := n.Value
		if len(v) > 40 {
			v = v[:40] + "…"
		}
		switch n.ShortTag() {
		case "!!str":
			return "string " + strconv.Quote(v)
		case "!!int":
			return "integer " + v
		case "!!float":
			return "number " + v
		case "!!bool":
			return "boolean " + v
		case "!!null":
			return "null"
		}
		return n.ShortTag() + " " + strconv.Quote(v)
	}
	return "a document"
}

// str returns e's value when it is a string.
func (p *parser) str(e entry) (string, bool) {
	if e.val == nil {
		return "", false
	}
	if e.val.Kind != yaml.ScalarNode || e.val.ShortTag() != "!!str" {
		p.addf(e.val, e.field, "want a string, got %s", describeNode(e.val))
		return "", false
	}
	return e.val.Value, true
}

// text returns e's value when it is a string or a number written bare, as
// a version often is ("version: 1.0").
func (p *parser) text(e entry) (string, bool) {
	if e.val == nil {
		return "", false
	}
	if e.val.Kind == yaml.ScalarNode {
		switch e.val.ShortTag() {
		case "!!str", "!!int", "!!float", "!!timestamp":
			return e.val.Value, true
		}
	}
	p.addf(e.val, e.field, "want a string, got %s", describeNode(e.val))
	return "", false
}

func (p *parser) boolean(e entry) (bool, bool) {
	if e.val == nil {
		return false, false
	}
	var b bool
	if e.val.Kind != yaml.ScalarNode || e.val.ShortTag() != "!!bool" || e.val.Decode(&b) != nil {
		p.addf(e.val, e.field, "want true or false, got %s", describeNode(e.val))
		return false, false
	}
	return b, true
}

func (p *parser) integer(e entry) (int64, bool) {
	if e.val == nil {
		return 0, false
	}
	var i int64
	if e.val.Kind != yaml.ScalarNode || e.val.ShortTag() != "!!int" || e.val.Decode(&i) != nil {
		p.addf(e.val, e.field, "want an integer, got %s", describeNode(e.val))
		return 0, false
	}
	return i, true
}

func (p *parser) duration(e entry, lo, hi time.Duration) (time.Duration, bool) {
	if e.val == nil {
		return 0, false
	}
	if e.val.Kind != yaml.ScalarNode || e.val.ShortTag() != "!!str" {
		p.addf(e.val, e.field, `want a duration such as "30s" or "5m", got %s`, describeNode(e.val))
		return 0, false
	}
	d, err := time.ParseDuration(e.val.Value)
	if err != nil {
		p.addf(e.val, e.field, `want a duration such as "30s" or "5m", got %q`, e.val.Value)
		return 0, false
	}
	if d < lo || d > hi {
		p.addf(e.val, e.field, "%s is out of range (want %s to %s)", e.val.Value, shortDuration(lo), shortDuration(hi))
		return 0, false
	}
	return d, true
}

// shortDuration renders 1h0m0s as 1h and 1m0s as 1m.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// list returns e's value when it is a sequence, its items resolved.
func (p *parser) list(e entry) ([]*yaml.Node, bool) {
	if e.val == nil {
		return nil, false
	}
	if e.val.Kind != yaml.SequenceNode {
		p.addf(e.val, e.field, "want a list, got %s", describeNode(e.val))
		return nil, false
	}
	out := make([]*yaml.Node, 0, len(e.val.Content))
	for _, c := range e.val.Content {
		if !p.spend(c) {
			return out, true
		}
		if r := p.resolve(c); r != nil {
			out = append(out, r)
		}
	}
	return out, true
}

// strings reads a list of strings.
func (p *parser) strList(e entry) ([]string, []*yaml.Node) {
	items, _ := p.list(e)
	var out []string
	var nodes []*yaml.Node
	for i, n := range items {
		s, ok := p.str(entry{val: n, field: fmt.Sprintf("%s[%d]", e.field, i)})
		if ok {
			out = append(out, s)
			nodes = append(nodes, n)
		}
	}
	return out, nodes
}

// checkName reports a name that is not kebab-case, suggesting the
// kebab-case spelling when there is one.
func (p *parser) checkName(n *yaml.Node, field, name string) bool {
	if IsKebab(name) {
		return true
	}
	msg := fmt.Sprintf("%q is not lowercase kebab-case", name)
	if k := strings.Join(words(name, false), "-"); IsKebab(k) {
		msg += fmt.Sprintf(" (did you mean %q?)", k)
	} else {
		msg += ` (want words of a-z and 0-9 joined by "-", such as "read-sheet")`
	}
	p.addf(n, field, "%s", msg)
	return false
}

func (p *parser) parse(data []byte, m *Manifest) {
	root, ok := p.document(data)
	if !ok {
		return
	}
	fs := p.fields(root, "", topKeys)
	p.require(root, "", fs, "name", "description", "entrypoint", "actions")

	if s, ok := p.str(fs["name"]); ok {
		m.Name = s
		p.checkName(fs["name"].val, "name", s)
	}
	if s, ok := p.str(fs["kind"]); ok {
		switch Kind(s) {
		case KindTool, KindAgent:
			m.Kind = Kind(s)
		default:
			p.addf(fs["kind"].val, "kind", "unknown kind %q (want tool or agent)", s)
		}
	}
	if s, ok := p.str(fs["description"]); ok {
		if strings.TrimSpace(s) == "" {
			p.addf(fs["description"].val, "description", "must not be empty")
		}
		m.Description = s
	}
	if s, ok := p.text(fs["version"]); ok {
		m.Version = s
	}
	if s, ok := p.str(fs["entrypoint"]); ok {
		m.Entrypoint = s
		if msg := checkEntrypoint(s); msg != "" {
			p.addf(fs["entrypoint"].val, "entrypoint", "%s", msg)
		}
	}
	if s, ok := p.str(fs["sha256"]); ok {
		m.SHA256 = s
		if !sha256RE.MatchString(s) {
			p.addf(fs["sha256"].val, "sha256", "want 64 lowercase hex digits, got %q", s)
		}
	}
	if d, ok := p.duration(fs["timeout"], MinTimeout, MaxTimeout); ok {
		m.Timeout = d
	}
	if d, ok := p.duration(fs["idle"], MinIdle, MaxIdle); ok {
		m.Idle = d
	}
	if b, ok := p.boolean(fs["eager"]); ok {
		m.Eager = b
	}
	if e, ok := fs["env"]; ok {
		names, nodes := p.strList(e)
		seen := map[string]bool{}
		for i, s := range names {
			field := fmt.Sprintf("env[%d]", i)
			switch {
			case !envRE.MatchString(s):
				p.addf(nodes[i], field, "%q is not an environment variable name (want letters, digits and _, not starting with a digit)", s)
			case seen[s]:
				p.addf(nodes[i], field, "duplicate %q", s)
			default:
				seen[s] = true
				m.Env = append(m.Env, s)
			}
		}
	}
	if e := fs["concurrency"]; e.val != nil {
		if i, ok := p.integer(e); ok {
			if i < 1 || i > MaxConcurrency {
				p.addf(e.val, "concurrency", "%d is out of range (want 1 to %d)", i, MaxConcurrency)
			} else {
				m.Concurrency = int(i)
			}
		}
	}
	if s, ok := p.str(fs["memory"]); ok {
		n, err := ParseMemory(s)
		switch {
		case err != nil:
			p.addf(fs["memory"].val, "memory", "%v", err)
		case n < MinMemory || n > MaxMemory:
			p.addf(fs["memory"].val, "memory", "%s is out of range (want 16MiB to 1TiB)", s)
		default:
			m.Memory = n
		}
	}
	if d, ok := p.duration(fs["cpu_time"], MinCPUTime, MaxCPUTime); ok {
		m.CPUTime = d
	}
	p.uses(fs["uses"], m)
	p.secrets(fs["secrets"], m)
	p.actions(fs["actions"], m)
	p.prompts(fs["prompts"], m)
	p.resources(fs["resources"], m)
	p.resourceTemplates(fs["resource_templates"], m)
}

// uses reads an agent's uses: each entry "tool" or "tool/action".
func (p *parser) uses(e entry, m *Manifest) {
	if e.val == nil {
		return
	}
	if m.Kind != KindAgent {
		p.addf(e.val, "uses", "only an agent (kind: agent) calls other tools; remove uses or set kind: agent")
		return
	}
	names, nodes := p.strList(e)
	seen := map[string]bool{}
	for i, s := range names {
		field := fmt.Sprintf("uses[%d]", i)
		tool, action, _ := strings.Cut(s, "/")
		if !IsKebab(tool) || (strings.Contains(s, "/") && !IsKebab(action)) {
			p.addf(nodes[i], field, "%q is not a tool or tool/action name (want kebab-case, such as \"notes\" or \"notes/remember\")", s)
			continue
		}
		if seen[s] {
			p.addf(nodes[i], field, "duplicate %q", s)
			continue
		}
		seen[s] = true
		m.Uses = append(m.Uses, Use{Tool: tool, Action: action})
	}
}

// document decodes data and returns its root mapping.
func (p *parser) document(data []byte) (*yaml.Node, bool) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := decodeYAML(dec, &doc); err != nil {
		if errors.Is(err, io.EOF) {
			p.add(0, "", "the file is empty")
		} else {
			p.yamlError(err)
		}
		return nil, false
	}
	var extra yaml.Node
	if err := decodeYAML(dec, &extra); err == nil {
		p.addf(&extra, "", "more than one YAML document; a manifest is exactly one")
	} else if !errors.Is(err, io.EOF) {
		p.yamlError(err)
	}
	if len(doc.Content) == 0 {
		p.add(0, "", "the file is empty")
		return nil, false
	}
	root := p.resolve(doc.Content[0])
	if root == nil {
		return nil, false
	}
	if root.Kind != yaml.MappingNode {
		p.addf(root, "", "want a mapping of keys (name, description, entrypoint, actions, ...), got %s", describeNode(root))
		return nil, false
	}
	return root, true
}

// decodeYAML decodes the next document, turning a panic inside yaml.v3
// into an error so that no input can take the caller down.
func decodeYAML(dec *yaml.Decoder, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: %v", r)
		}
	}()
	return dec.Decode(n)
}

// yamlError turns a yaml.v3 syntax error into a problem with its line.
func (p *parser) yamlError(err error) {
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		p.add(line, "", "invalid YAML: "+m[2])
		return
	}
	p.add(0, "", "invalid YAML: "+strings.TrimPrefix(msg, "yaml: "))
}

// checkEntrypoint returns why an entrypoint is not a path inside the
// plugin's folder, or "".
func checkEntrypoint(s string) string {
	switch {
	case strings.TrimSpace(s) == "":
		return "must not be empty"
	case filepath.IsAbs(s) || strings.HasPrefix(s, "/") || strings.HasPrefix(s, `\`) ||
		(len(s) >= 2 && s[1] == ':'):
		return fmt.Sprintf("%q is absolute; want a path relative to the manifest's folder", s)
	}
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return fmt.Sprintf("%q leaves the plugin's folder; want a path inside it", s)
		}
	}
	if strings.ContainsRune(s, 0) || !filepath.IsLocal(s) {
		return fmt.Sprintf("%q is not a path inside the plugin's folder", s)
	}
	if filepath.Clean(s) == "." {
		return fmt.Sprintf("%q names the folder itself; want the binary", s)
	}
	return ""
}

func (p *parser) secrets(e entry, m *Manifest) {
	items, _ := p.list(e)
	names := map[string]int{}
	envs := map[string]int{}
	for i, n := range items {
		path := fmt.Sprintf("secrets[%d]", i)
		if n.Kind != yaml.MappingNode {
			p.addf(n, path, "want a mapping {name, env, description, required}, got %s", describeNode(n))
			continue
		}
		fs := p.fields(n, path, secretKeys)
		p.require(n, path, fs, "name", "env")
		var s Secret
		if v, ok := p.str(fs["name"]); ok {
			s.Name = v
			if p.checkName(fs["name"].val, join(path, "name"), v) {
				if line, dup := names[v]; dup {
					p.addf(fs["name"].val, join(path, "name"), "duplicate secret %q (first at line %d)", v, line)
				}
				names[v] = fs["name"].val.Line
			}
		}
		if v, ok := p.str(fs["env"]); ok {
			s.Env = v
			if !secretEnvRE.MatchString(v) {
				p.addf(fs["env"].val, join(path, "env"), "%q is not an upper snake-case environment variable name (such as \"XLSX_API_TOKEN\")", v)
			} else if line, dup := envs[v]; dup {
				p.addf(fs["env"].val, join(path, "env"), "%q is already used by the secret at line %d", v, line)
			} else {
				envs[v] = fs["env"].val.Line
			}
		}
		if v, ok := p.str(fs["description"]); ok {
			s.Description = v
		}
		if v, ok := p.boolean(fs["required"]); ok {
			s.Required = v
		}
		m.Secrets = append(m.Secrets, s)
	}
}

func (p *parser) actions(e entry, m *Manifest) {
	items, ok := p.list(e)
	if ok && len(items) == 0 {
		p.addf(e.val, "actions", "a tool needs at least one action")
	}
	seen := map[string]int{}
	for i, n := range items {
		path := fmt.Sprintf("actions[%d]", i)
		if n.Kind != yaml.MappingNode {
			p.addf(n, path, "want a mapping {name, description, args, ...}, got %s", describeNode(n))
			continue
		}
		a := p.action(n, path, m.Name)
		if a.Name != "" {
			if line, dup := seen[a.Name]; dup {
				p.addf(n, join(path, "name"), "duplicate action %q (first at line %d)", a.Name, line)
			} else {
				seen[a.Name] = n.Line
			}
		}
		m.Actions = append(m.Actions, a)
	}
}

func (p *parser) action(n *yaml.Node, path, tool string) Action {
	var a Action
	fs := p.fields(n, path, actionKeys)
	p.require(n, path, fs, "name", "description")
	if v, ok := p.str(fs["name"]); ok {
		p.checkName(fs["name"].val, join(path, "name"), v)
		a.Name = v
	}
	if v, ok := p.str(fs["description"]); ok {
		if strings.TrimSpace(v) == "" {
			p.addf(fs["description"].val, join(path, "description"), "must not be empty")
		}
		a.Description = v
	}
	ro, _ := p.boolean(fs["read_only"])
	rev, revSet := p.boolean(fs["reversible"])
	a.ReadOnly = ro
	switch {
	case revSet:
		a.Reversible = rev
	default:
		a.Reversible = ro
	}
	if ro && revSet && !rev {
		p.addf(fs["reversible"].val, join(path, "reversible"), "read_only: true implies reversible, so reversible: false contradicts it")
	}
	if word, in, ok := isIrreversibleName(tool, a.Name); ok {
		if ro {
			p.addf(fs["read_only"].val, join(path, "read_only"),
				"the word %q in the %s marks this action irreversible; it cannot be read_only: true (rename it or drop the flag)", word, in)
		} else if revSet && rev {
			p.addf(fs["reversible"].val, join(path, "reversible"),
				"the word %q in the %s marks this action irreversible; it cannot be reversible: true (rename it or say reversible: false)", word, in)
		}
		a.Reversible = false
		a.ReadOnly = false
	}

	a.Args = p.args(fs["args"], path)

	if e, ok := fs["narrow_with"]; ok {
		names, nodes := p.strList(e)
		used := map[string]bool{}
		for i, s := range names {
			field := fmt.Sprintf("%s.narrow_with[%d]", path, i)
			switch {
			case a.Arg(s) == nil:
				msg := fmt.Sprintf("%q is not an arg of this action", s)
				if sug := Suggest(s, a.ArgNames()); len(sug) > 0 {
					msg += fmt.Sprintf(" (did you mean %q?)", sug[0])
				}
				p.addf(nodes[i], field, "%s", msg)
			case used[s]:
				p.addf(nodes[i], field, "duplicate %q", s)
			default:
				used[s] = true
				a.NarrowWith = append(a.NarrowWith, s)
			}
		}
	}
	if e := fs["output_schema"]; e.val != nil {
		if e.val.Kind != yaml.MappingNode {
			p.addf(e.val, e.field, "want a JSON Schema mapping such as {type: object, properties: {...}}, got %s", describeNode(e.val))
		} else if v, ok := p.toAny(e.val, e.field, 0); ok {
			sch := v.(map[string]any)
			if t, has := sch["type"]; has && t != "object" {
				p.addf(e.val, e.field, "a structured result is a JSON object; want type: object, got %v", t)
			}
			a.OutputSchema = sch
		}
	}
	return a
}

// args reads the list of an args key: each arg, and no name twice.
func (p *parser) args(e entry, path string) []Arg {
	nodes, _ := p.list(e)
	var out []Arg
	seen := map[string]int{}
	for i, an := range nodes {
		apath := fmt.Sprintf("%s[%d]", join(path, "args"), i)
		if an.Kind != yaml.MappingNode {
			p.addf(an, apath, "want a mapping {name, type, required, description, ...}, got %s", describeNode(an))
			continue
		}
		arg := p.arg(an, apath)
		if arg.Name != "" {
			if line, dup := seen[arg.Name]; dup {
				p.addf(an, join(apath, "name"), "duplicate arg %q (first at line %d)", arg.Name, line)
			} else {
				seen[arg.Name] = an.Line
			}
		}
		out = append(out, arg)
	}
	return out
}

// ParseArgs reads n, the value of an args key in tool.yaml's format (a
// list of {name, type, required, description, enum, default, minimum,
// maximum, items}), with the checks Parse applies to an action's args.
// Problems name file, line and a field under path (path "tools[2]" gives
// "tools[2].args[0].type"). Other files that publish args in the same
// format (a surface declaration) use it so the format has one parser.
func ParseArgs(file string, n *yaml.Node, path string) ([]Arg, []Problem) {
	p := &parser{file: file, budget: 100000}
	args := p.args(entry{val: n, field: join(path, "args")}, path)
	return args, p.problems
}

func (p *parser) arg(n *yaml.Node, path string) Arg {
	var a Arg
	fs := p.fields(n, path, argKeys)
	p.require(n, path, fs, "name", "type")
	if v, ok := p.str(fs["name"]); ok {
		p.checkName(fs["name"].val, join(path, "name"), v)
		a.Name = v
	}
	typeOK := false
	if v, ok := p.str(fs["type"]); ok {
		if contains(argTypeNames(), v) {
			a.Type = ArgType(v)
			typeOK = true
		} else {
			p.addf(fs["type"].val, join(path, "type"), "unknown type %q (want %s)", v, strings.Join(argTypeNames(), ", "))
		}
	}
	if v, ok := p.boolean(fs["required"]); ok {
		a.Required = v
	}
	if v, ok := p.str(fs["description"]); ok {
		a.Description = v
	}

	numeric := a.Type == TypeInteger || a.Type == TypeNumber
	for _, k := range []string{"minimum", "maximum"} {
		e := fs[k]
		if e.val == nil {
			continue
		}
		if typeOK && !numeric {
			p.addf(e.val, e.field, "%s applies only to integer and number args, not %s", k, a.Type)
			continue
		}
		var f float64
		tag := e.val.ShortTag()
		if e.val.Kind != yaml.ScalarNode || (tag != "!!int" && tag != "!!float") || e.val.Decode(&f) != nil ||
			math.IsNaN(f) || math.IsInf(f, 0) {
			p.addf(e.val, e.field, "want a number, got %s", describeNode(e.val))
			continue
		}
		if k == "minimum" {
			a.Minimum = &f
		} else {
			a.Maximum = &f
		}
	}
	if a.Minimum != nil && a.Maximum != nil && *a.Minimum > *a.Maximum {
		p.addf(fs["maximum"].val, join(path, "maximum"), "maximum %s is below minimum %s", formatFloat(*a.Maximum), formatFloat(*a.Minimum))
	}

	if e := fs["items"]; e.val != nil {
		switch {
		case typeOK && a.Type != TypeArray:
			p.addf(e.val, e.field, "items applies only to array args, not %s", a.Type)
		case e.val.Kind != yaml.MappingNode:
			p.addf(e.val, e.field, "want a JSON Schema mapping such as {type: string}, got %s", describeNode(e.val))
		default:
			if v, ok := p.toAny(e.val, e.field, 0); ok {
				items := v.(map[string]any)
				if t, has := items["type"]; has {
					if s, _ := t.(string); !contains(jsonTypes, s) {
						p.addf(e.val, e.field+".type", "unknown type %v (want %s)", t, strings.Join(jsonTypes, ", "))
					}
				}
				a.Items = items
			}
		}
	}

	if e := fs["enum"]; e.val != nil {
		switch {
		case typeOK && (a.Type == TypeArray || a.Type == TypeObject || a.Type == TypeBoolean):
			p.addf(e.val, e.field, "enum applies only to string, integer and number args, not %s", a.Type)
		case e.val.Kind != yaml.SequenceNode || len(e.val.Content) == 0:
			p.addf(e.val, e.field, "want a non-empty list of values, got %s", describeNode(e.val))
		default:
			for i, vn := range e.val.Content {
				field := fmt.Sprintf("%s[%d]", e.field, i)
				v, ok := p.value(vn, field, &a, typeOK)
				if !ok {
					continue
				}
				if a.inEnum(v) {
					p.addf(vn, field, "duplicate value %s", describeValue(v))
					continue
				}
				if msg := a.checkRange(v); msg != "" {
					p.addf(vn, field, "%s", msg)
				}
				a.Enum = append(a.Enum, v)
			}
		}
	}

	if e := fs["default"]; e.val != nil {
		if a.Required {
			p.addf(e.val, e.field, "a required arg cannot have a default (it would never apply)")
		}
		if v, ok := p.value(e.val, e.field, &a, typeOK); ok {
			switch {
			case a.checkRange(v) != "":
				p.addf(e.val, e.field, "%s", a.checkRange(v))
			case len(a.Enum) > 0 && !a.inEnum(v):
				p.addf(e.val, e.field, "%s is not one of %s", describeValue(v), a.enumList())
			default:
				a.Default = v
			}
		}
	}
	return a
}

// value converts a YAML value to the arg's type, as Check would the same
// value given in JSON.
func (p *parser) value(n *yaml.Node, field string, a *Arg, typeOK bool) (any, bool) {
	v, ok := p.toAny(n, field, 0)
	if !ok {
		return nil, false
	}
	if !typeOK {
		return v, true
	}
	if v == nil {
		p.addf(n, field, "want %s, got null", a.Type)
		return nil, false
	}
	c, msg := a.convert(v)
	if msg != "" {
		p.addf(n, field, "%s", msg)
		return nil, false
	}
	return c, true
}

// maxDepth bounds the nesting of free-form values (schemas, defaults).
const maxDepth = 64

// toAny converts a YAML node to the value encoding/json with UseNumber
// would give for the same data: nil, bool, string, json.Number,
// []any or map[string]any.
func (p *parser) toAny(n *yaml.Node, field string, depth int) (any, bool) {
	n = p.resolve(n)
	if n == nil || !p.spend(n) {
		return nil, false
	}
	if depth > maxDepth {
		p.addf(n, field, "nested too deeply")
		return nil, false
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := p.resolve(n.Content[i])
			if k == nil {
				return nil, false
			}
			if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!null" {
				p.addf(k, field, "keys must be plain strings")
				return nil, false
			}
			if _, dup := m[k.Value]; dup {
				p.addf(k, join(field, k.Value), "duplicate key")
				return nil, false
			}
			v, ok := p.toAny(n.Content[i+1], join(field, k.Value), depth+1)
			if !ok {
				return nil, false
			}
			m[k.Value] = v
		}
		return m, true
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			v, ok := p.toAny(c, fmt.Sprintf("%s[%d]", field, i), depth+1)
			if !ok {
				return nil, false
			}
			l = append(l, v)
		}
		return l, true
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, true
		case "!!bool":
			var b bool
			if n.Decode(&b) == nil {
				return b, true
			}
		case "!!int":
			var i int64
			if n.Decode(&i) == nil {
				return json.Number(strconv.FormatInt(i, 10)), true
			}
			p.addf(n, field, "integer %s is out of range", n.Value)
			return nil, false
		case "!!float":
			var f float64
			if n.Decode(&f) == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
				return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), true
			}
			p.addf(n, field, "%s is not a finite number", n.Value)
			return nil, false
		case "!!str", "!!timestamp", "!!binary":
			return n.Value, true
		}
	}
	p.addf(n, field, "unsupported value %s", describeNode(n))
	return nil, false
}

func argTypeNames() []string {
	out := make([]string, len(ArgTypes))
	for i, t := range ArgTypes {
		out[i] = string(t)
	}
	return out
}
