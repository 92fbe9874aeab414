package manifests

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
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

// memoryUnit is a unit of a memory size and the bytes it stands for.
type memoryUnit struct {
	name  string
	bytes int64
}

// memoryUnits are the units of a memory size, binary then decimal.
var memoryUnits = []memoryUnit{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
}

// ParseMemory reads a memory size such as "512MiB" or "2GB" into bytes: a
// whole number of 1 to 13 digits, an optional space, and a unit, binary
// (KiB, MiB, GiB, TiB) or decimal (KB, MB, GB, TB).
func ParseMemory(s string) (int64, error) {
	digits := 0
	for digits < len(s) && s[digits] >= '0' && s[digits] <= '9' {
		digits++
	}
	unit := strings.TrimPrefix(s[digits:], " ")
	i := slices.IndexFunc(memoryUnits, func(u memoryUnit) bool { return u.name == unit })
	if digits == 0 || digits > 13 || i < 0 {
		return 0, fmt.Errorf("want a size such as \"512MiB\" or \"2GiB\" (units KiB, MiB, GiB, TiB, KB, MB, GB, TB), got %q", s)
	}
	n, _ := strconv.ParseInt(s[:digits], 10, 64)
	if n > math.MaxInt64/memoryUnits[i].bytes {
		return 0, fmt.Errorf("%s is too large", s)
	}
	return n * memoryUnits[i].bytes, nil
}

// The keys each level of tool.yaml accepts, in the order the docs list them.
var (
	topKeys    = []string{"name", "kind", "description", "version", "entrypoint", "protocol", "interpreter", "args", "roots", "sampling", "sha256", "timeout", "idle", "eager", "env", "exec_path", "concurrency", "memory", "cpu_time", "uses", "secrets", "actions", "prompts", "resources", "resource_templates"}
	actionKeys = []string{"name", "description", "read_only", "reversible", "args", "narrow_with", "output_schema", "keywords"}
	argKeys    = []string{"name", "type", "required", "description", "enum", "default", "minimum", "maximum", "items"}
	secretKeys = []string{"name", "env", "description", "required"}
	// overrideKeys are the keys of an MCP server's actions: overrides of
	// what the server says of a tool.
	overrideKeys = []string{"name", "description", "read_only", "reversible", "keywords"}
)

// ArgTypes lists the argument types in the order messages name them.
var ArgTypes = []ArgType{TypeString, TypeInteger, TypeNumber, TypeBoolean, TypeArray, TypeObject}

// The names tool.yaml holds are checked by hand-written matchers, not
// package-level regexps, which every plugin (its CLI mode links this
// package) would compile at start. Each matcher is tested against the
// pattern it stands for.

// IsKebab reports whether name is lowercase kebab-case, the form of every
// tool, action and arg name: a lowercase letter, then lowercase letters and
// digits in words joined by single hyphens ("read-sheet", "max-results")
// — ^[a-z][a-z0-9]*(-[a-z0-9]+)*$.
func IsKebab(name string) bool {
	if name == "" || !isLower(name[0]) || name[len(name)-1] == '-' {
		return false
	}
	for i := 1; i < len(name); i++ {
		c := name[i]
		switch {
		case isLower(c) || isDigit(c):
		case c == '-' && name[i-1] != '-':
		default:
			return false
		}
	}
	return true
}

// isEnvName reports whether s is an environment variable name:
// ^[A-Za-z_][A-Za-z0-9_]*$.
func isEnvName(s string) bool {
	if s == "" || isDigit(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isLower(c) && !isUpper(c) && !isDigit(c) && c != '_' {
			return false
		}
	}
	return true
}

// isSecretEnvName reports whether s is an upper snake-case environment
// variable name: ^[A-Z][A-Z0-9_]*$.
func isSecretEnvName(s string) bool {
	if s == "" || !isUpper(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isUpper(c) && !isDigit(c) && c != '_' {
			return false
		}
	}
	return true
}

// isSHA256Hex reports whether s is 64 lowercase hex digits: ^[0-9a-f]{64}$.
func isSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isDigit(c) && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// yamlLineRE finds the line in a yaml.v3 syntax error, compiled the first
// time a manifest fails to parse.
var yamlLineRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
})

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

// parse reads the whole manifest into m, noting every problem: the top-level
// fields, then each section in its own step.
func (p *parser) parse(data []byte, m *Manifest) {
	root, ok := p.document(data)
	if !ok {
		return
	}
	fs := p.fields(root, "", topKeys)
	p.require(root, "", fs, "name", "description", "entrypoint")
	p.identity(fs, m)
	p.launch(fs, m)
	if !m.MCP() {
		p.require(root, "", fs, "actions")
	}
	p.lifecycle(fs, m)
	p.env(fs, m)
	p.execPath(fs, m)
	p.limits(fs, m)
	p.uses(fs["uses"], m)
	p.secrets(fs["secrets"], m)
	if m.MCP() {
		p.overrides(fs["actions"], m)
	} else {
		p.actions(fs["actions"], m)
	}
	p.prompts(fs["prompts"], m)
	p.resources(fs["resources"], m)
	p.resourceTemplates(fs["resource_templates"], m)
}

// identity reads what names the plugin and where it runs from: name, kind,
// description, version, entrypoint and sha256.
func (p *parser) identity(fs map[string]entry, m *Manifest) {
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
		if !isSHA256Hex(s) {
			p.addf(fs["sha256"].val, "sha256", "want 64 lowercase hex digits, got %q", s)
		}
	}
}

// lifecycle reads when the plugin runs: its call timeout, how long it may
// sit idle, and whether it starts with the host.
func (p *parser) lifecycle(fs map[string]entry, m *Manifest) {
	if d, ok := p.duration(fs["timeout"], MinTimeout, MaxTimeout); ok {
		m.Timeout = d
	}
	if d, ok := p.duration(fs["idle"], MinIdle, MaxIdle); ok {
		m.Idle = d
	}
	if b, ok := p.boolean(fs["eager"]); ok {
		m.Eager = b
	}
}

// env reads the environment variables passed through to the plugin: each
// a valid name, listed once.
func (p *parser) env(fs map[string]entry, m *Manifest) {
	e, ok := fs["env"]
	if !ok {
		return
	}
	m.Env = p.stringSet(e, func(s string) string {
		if !isEnvName(s) {
			return fmt.Sprintf("%q is not an environment variable name (want letters, digits and _, not starting with a digit)", s)
		}
		return ""
	})
}

// execPath reads the PATH the plugin runs with: absolute folders, each
// listed once, holding no list separator; and not beside env: [PATH], which
// asks for the host's PATH instead.
func (p *parser) execPath(fs map[string]entry, m *Manifest) {
	e, ok := fs["exec_path"]
	if !ok {
		return
	}
	m.ExecPath = p.stringSet(e, func(s string) string {
		rest, abs := s, strings.HasPrefix(s, "/")
		if len(s) >= 3 && (isLower(s[0]) || isUpper(s[0])) && s[1] == ':' && (s[2] == '\\' || s[2] == '/') {
			rest, abs = s[2:], true // a Windows drive
		}
		switch {
		case !abs:
			return fmt.Sprintf("%q is not an absolute folder (the plugin runs in the host's working folder, so a relative one would name another folder each time; ~ and $HOME are not expanded)", s)
		case strings.ContainsAny(rest, ":;"):
			return fmt.Sprintf("%q holds a list separator (: or ;): give one folder per entry", s)
		}
		return ""
	})
	if slices.Contains(m.Env, "PATH") {
		p.addf(e.val, "exec_path", "give exec_path (fixed folders) or env: [PATH] (the host's PATH), not both")
	}
}

// limits reads what the plugin may use: calls at once, memory and CPU time.
func (p *parser) limits(fs map[string]entry, m *Manifest) {
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
	uses := p.stringSet(e, func(s string) string {
		tool, action, _ := strings.Cut(s, "/")
		if !IsKebab(tool) || (strings.Contains(s, "/") && !IsKebab(action)) {
			return fmt.Sprintf("%q is not a tool or tool/action name (want kebab-case, such as \"notes\" or \"notes/remember\")", s)
		}
		return ""
	})
	for _, s := range uses {
		tool, action, _ := strings.Cut(s, "/")
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
		p.addf(root, "", "want a mapping of keys (name, description, entrypoint, actions, ...), got %s", DescribeNode(root))
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
	if m := yamlLineRE().FindStringSubmatch(msg); m != nil {
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
	for path, n := range p.mappings(items, "secrets", "name, env, description, required") {
		fs, name, valid := p.named(n, path, secretKeys, "name", "env")
		s := Secret{Name: name}
		if valid {
			p.unique(names, fs["name"].val, join(path, "name"), "secret", name)
		}
		if v, ok := p.str(fs["env"]); ok {
			s.Env = v
			if !isSecretEnvName(v) {
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
