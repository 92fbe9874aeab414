// Package surface is the host's curated MCP surface: a small list of named,
// reviewed tools (xlsx_read_sheet, notes_search) declared in a file such as
// surfaces/chat.yaml, published beside the six generic tools of package
// mcpserver. A published tool list is a contract with people who did not
// write the manifests, so it is never derived at run time: each tool's
// title, description and input schema are written out in the declaration,
// with the digest of the manifest args it was reviewed against. Check
// compares the declaration with the live registry and with the committed
// snapshot of what was published (surfaces/chat.published.json), so a
// rename, a new required arg or an unversioned change fails the build
// instead of surprising a client that cached the old list.
//
// The curated surface publishes reversible actions only and has no
// *_confirmed twins. It shares the protocol layer (package mcpproto) with
// the generic surface and never imports it.
package surface

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/toolhost/toolhost/manifests"
)

// MaxToolsPerDomain bounds the published tools of one tool (domain): a
// surface a person reads and a model chooses from stays small.
const MaxToolsPerDomain = 12

// Declaration is one parsed surface file.
type Declaration struct {
	// Path is the file the declaration was read from.
	Path string
	// Surface is the surface's name ("chat"): `host serve --surface chat`.
	Surface string
	// Version is surface_version, the semver of the published tool
	// contract, independent of the release.
	Version Semver
	// Title and Description describe the server to people (serverInfo,
	// server.json); Instructions are the MCP server instructions.
	Title        string
	Description  string
	Instructions string
	// Publish is what server.json says beyond the tools.
	Publish Publish
	// Tools are the published tools, in file order.
	Tools []*Tool
}

// Publish is the MCP Registry entry's own fields: the server's name in
// reverse-DNS form, its repository, and its packages and remotes exactly as
// server.json carries them.
type Publish struct {
	Name       string
	Repository string
	Packages   []any
	Remotes    []any
}

// Tool is one published tool: an MCP tool name mapped to one action.
type Tool struct {
	// Name is the MCP tool name: snake_case, namespaced by its domain (the
	// tool's name with "-" as "_"), e.g. xlsx_read_sheet.
	Name string
	// ToolName and Action name the action it runs.
	ToolName string
	Action   string
	Title    string
	// Description is what the model reads to choose the tool.
	Description string
	// Args are the published args, in tool.yaml's args format; the
	// published input schema is their JSON Schema. They may leave out
	// optional args of the action.
	Args []manifests.Arg
	// Fixed are args every call carries, which the caller cannot set.
	Fixed map[string]any
	// ArgsDigest is the digest (ArgsDigest) of the action's manifest args
	// the published tool was reviewed against.
	ArgsDigest string
	// Line is the line of the tool in the declaration.
	Line int
}

// InputSchema returns the published input schema: the JSON Schema of Args,
// additionalProperties false.
func (t *Tool) InputSchema() map[string]any {
	a := manifests.Action{Args: t.Args}
	return a.ArgsSchema()
}

// Semver is a semantic version MAJOR.MINOR.PATCH.
type Semver struct{ Major, Minor, Patch int }

var semverRE = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)

// ParseSemver reads MAJOR.MINOR.PATCH (no prefix, no pre-release).
func ParseSemver(s string) (Semver, error) {
	m := semverRE.FindStringSubmatch(s)
	if m == nil {
		return Semver{}, fmt.Errorf("%q is not a semantic version MAJOR.MINOR.PATCH such as 1.0.0", s)
	}
	var v Semver
	v.Major, _ = strconv.Atoi(m[1])
	v.Minor, _ = strconv.Atoi(m[2])
	v.Patch, _ = strconv.Atoi(m[3])
	return v, nil
}

// String renders MAJOR.MINOR.PATCH.
func (v Semver) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// Compare returns -1, 0 or 1 as v is older than, equal to or newer than w.
func (v Semver) Compare(w Semver) int {
	for _, d := range [][2]int{{v.Major, w.Major}, {v.Minor, w.Minor}, {v.Patch, w.Patch}} {
		if d[0] != d[1] {
			if d[0] < d[1] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// The keys each level of a surface file accepts.
var (
	topKeys     = []string{"surface", "surface_version", "title", "description", "instructions", "publish", "tools"}
	publishKeys = []string{"name", "repository", "packages", "remotes"}
	toolKeys    = []string{"name", "tool", "action", "title", "description", "args", "fixed", "args_digest"}
	toolNameRE  = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	digestRE    = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// Parse reads and validates the surface file at path. See ParseBytes.
func Parse(path string) (*Declaration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("surface: read %s: %w", path, err)
	}
	return ParseBytes(path, data)
}

// ParseBytes parses and validates data as the surface file at path. Every
// problem is reported at once as a *manifests.Error, each naming file, line
// and field, as tool.yaml's are. It checks the file alone; Check compares
// it with the registry.
func ParseBytes(path string, data []byte) (*Declaration, error) {
	p := &parser{file: path}
	d := &Declaration{Path: path}
	p.parse(data, d)
	if len(p.problems) > 0 {
		return d, &manifests.Error{File: path, Problems: p.problems}
	}
	return d, nil
}

type parser struct {
	file     string
	problems []manifests.Problem
}

func (p *parser) addf(n *yaml.Node, field, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	p.problems = append(p.problems, manifests.Problem{File: p.file, Line: line, Field: field, Message: fmt.Sprintf(format, args...)})
}

// fields reads a mapping whose keys must be among known.
func (p *parser) fields(n *yaml.Node, path string, known []string) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	if n.Kind != yaml.MappingNode {
		p.addf(n, path, "want a mapping, got %s", manifests.DescribeNode(n))
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		field := join(path, k.Value)
		if k.Kind != yaml.ScalarNode || v.Kind == yaml.AliasNode || k.Value == "<<" {
			p.addf(k, field, "keys must be plain strings and values written out (no aliases or merge keys)")
			continue
		}
		if !slices.Contains(known, k.Value) {
			msg := "unknown key " + strconv.Quote(k.Value)
			if s := manifests.Suggest(k.Value, known); len(s) > 0 {
				msg += " (did you mean " + strconv.Quote(s[0]) + "?)"
			} else {
				msg += " (want one of " + strings.Join(known, ", ") + ")"
			}
			p.addf(k, field, "%s", msg)
			continue
		}
		if _, dup := out[k.Value]; dup {
			p.addf(k, field, "duplicate key")
			continue
		}
		if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
			continue
		}
		out[k.Value] = v
	}
	return out
}

func (p *parser) str(fs map[string]*yaml.Node, key, path string, required bool, at ...*yaml.Node) string {
	n, ok := fs[key]
	if !ok {
		if required {
			var where *yaml.Node
			if len(at) > 0 {
				where = at[0]
			}
			p.addf(where, join(path, key), "required field is missing")
		}
		return ""
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		p.addf(n, join(path, key), "want a string, got %s", manifests.DescribeNode(n))
		return ""
	}
	if required && strings.TrimSpace(n.Value) == "" {
		p.addf(n, join(path, key), "must not be empty")
	}
	return n.Value
}

func (p *parser) parse(data []byte, d *Declaration) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		p.addf(nil, "", "not YAML: %v", err)
		return
	}
	var extra yaml.Node
	if !errors.Is(dec.Decode(&extra), io.EOF) {
		p.addf(&extra, "", "one YAML document per file")
	}
	if len(doc.Content) == 0 {
		p.addf(nil, "", "the file is empty")
		return
	}
	root := doc.Content[0]
	fs := p.fields(root, "", topKeys)
	for _, k := range []string{"surface", "surface_version", "tools"} {
		if _, ok := fs[k]; !ok {
			p.addf(root, k, "required field is missing")
		}
	}
	if v := p.str(fs, "surface", "", false); v != "" {
		if !manifests.IsKebab(v) {
			p.addf(fs["surface"], "surface", "%q is not lowercase kebab-case (a surface is named like chat)", v)
		}
		d.Surface = v
	}
	if n, ok := fs["surface_version"]; ok {
		v, err := ParseSemver(n.Value)
		if n.Kind != yaml.ScalarNode || err != nil {
			p.addf(n, "surface_version", "want a semantic version such as 1.0.0 (quote it), got %s", manifests.DescribeNode(n))
		}
		d.Version = v
	}
	d.Title = p.str(fs, "title", "", false)
	d.Description = p.str(fs, "description", "", false)
	d.Instructions = p.str(fs, "instructions", "", false)
	if n, ok := fs["publish"]; ok {
		p.publish(n, &d.Publish)
	}
	n, ok := fs["tools"]
	if !ok {
		return
	}
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		p.addf(n, "tools", "want a non-empty list of published tools, got %s", manifests.DescribeNode(n))
		return
	}
	seen := map[string]int{}
	perDomain := map[string]int{}
	for i, tn := range n.Content {
		path := fmt.Sprintf("tools[%d]", i)
		t := p.tool(tn, path)
		if t.Name == "" {
			continue
		}
		if line, dup := seen[t.Name]; dup {
			p.addf(tn, join(path, "name"), "published tool %s is declared twice (first at line %d)", t.Name, line)
		}
		seen[t.Name] = tn.Line
		if t.ToolName != "" {
			perDomain[t.ToolName]++
			if perDomain[t.ToolName] == MaxToolsPerDomain+1 {
				p.addf(tn, path, "more than %d published tools for %s: curate for workflows, not endpoints", MaxToolsPerDomain, t.ToolName)
			}
		}
		d.Tools = append(d.Tools, t)
	}
}

func (p *parser) publish(n *yaml.Node, pub *Publish) {
	fs := p.fields(n, "publish", publishKeys)
	pub.Name = p.str(fs, "name", "publish", true, n)
	pub.Repository = p.str(fs, "repository", "publish", false)
	for _, k := range []string{"packages", "remotes"} {
		v, ok := fs[k]
		if !ok {
			continue
		}
		var l []any
		if v.Kind != yaml.SequenceNode || v.Decode(&l) != nil {
			p.addf(v, "publish."+k, "want a list of server.json %s entries, got %s", k, manifests.DescribeNode(v))
			continue
		}
		if k == "packages" {
			pub.Packages = l
		} else {
			pub.Remotes = l
		}
	}
}

func (p *parser) tool(n *yaml.Node, path string) *Tool {
	t := &Tool{Line: n.Line}
	fs := p.fields(n, path, toolKeys)
	if len(fs) == 0 {
		return t
	}
	t.ToolName = p.str(fs, "tool", path, true, n)
	t.Action = p.str(fs, "action", path, true, n)
	t.Title = p.str(fs, "title", path, true, n)
	t.Description = p.str(fs, "description", path, true, n)
	if name := p.str(fs, "name", path, true, n); name != "" {
		domain := strings.ReplaceAll(t.ToolName, "-", "_") + "_"
		switch {
		case !toolNameRE.MatchString(name):
			p.addf(fs["name"], join(path, "name"), "%q is not snake_case (want words of a-z and 0-9 joined by \"_\", such as xlsx_read_sheet)", name)
		case t.ToolName != "" && !strings.HasPrefix(name, domain):
			p.addf(fs["name"], join(path, "name"), "%q is not namespaced by its domain: want a name starting with %q", name, domain)
		case len(name) > 64:
			p.addf(fs["name"], join(path, "name"), "%q is longer than 64 characters", name)
		}
		t.Name = name
	}
	if dn, ok := fs["args_digest"]; ok && dn.Kind == yaml.ScalarNode {
		dn.Tag = "!!str" // hex digits may read as a number
	}
	if v := p.str(fs, "args_digest", path, true, n); v != "" && !digestRE.MatchString(v) {
		p.addf(fs["args_digest"], join(path, "args_digest"), "want the 64 hex digits `host surface diff` prints for the action's manifest args, got %q", v)
	} else {
		t.ArgsDigest = v
	}
	if an, ok := fs["args"]; ok {
		args, problems := manifests.ParseArgs(p.file, an, path)
		p.problems = append(p.problems, problems...)
		t.Args = args
	}
	if fn, ok := fs["fixed"]; ok {
		var fixed map[string]any
		if fn.Kind != yaml.MappingNode || fn.Decode(&fixed) != nil {
			p.addf(fn, join(path, "fixed"), "want a mapping of arg name to value, got %s", manifests.DescribeNode(fn))
		}
		for k := range fixed {
			for _, a := range t.Args {
				if a.Name == k {
					p.addf(fn, join(path, "fixed."+k), "%s is both a published arg and fixed: a caller cannot set a fixed arg", k)
				}
			}
		}
		t.Fixed = fixed
	}
	return t
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
