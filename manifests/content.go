package manifests

import (
	"fmt"
	"strings"

	"github.com/yosida95/uritemplate/v3"
	"gopkg.in/yaml.v3"
)

// Prompt is one MCP prompt a plugin contributes: a script a client offers
// as a command. The host publishes it as "<tool>/<name>".
type Prompt struct {
	Name        string
	Title       string
	Description string
	Arguments   []PromptArg
}

// PromptArg is one argument of a prompt; its value is a string.
type PromptArg struct {
	Name        string
	Description string
	Required    bool
}

// Resource is one fixed read-only resource a plugin contributes. Its URI's
// scheme is the tool's name ("notes://index"), which namespaces it.
type Resource struct {
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
}

// ResourceTemplate is a family of resources named by an RFC 6570 URI
// template ("notes://page/{+path}") whose scheme is the tool's name.
type ResourceTemplate struct {
	URITemplate string
	Name        string
	Title       string
	Description string
	MIMEType    string
}

// Contributes reports whether the manifest declares any prompt, resource
// or resource template.
func (m *Manifest) Contributes() bool {
	return len(m.Prompts)+len(m.Resources)+len(m.ResourceTemplates) > 0
}

// Prompt returns the named prompt, or nil.
func (m *Manifest) Prompt(name string) *Prompt {
	for i := range m.Prompts {
		if m.Prompts[i].Name == name {
			return &m.Prompts[i]
		}
	}
	return nil
}

var (
	promptKeys    = []string{"name", "title", "description", "arguments"}
	promptArgKeys = []string{"name", "description", "required"}
	resourceKeys  = []string{"uri", "name", "title", "description", "mime_type"}
	templateKeys  = []string{"uri_template", "name", "title", "description", "mime_type"}
)

// prompts reads the prompts list.
func (p *parser) prompts(e entry, m *Manifest) {
	items, _ := p.list(e)
	seen := map[string]int{}
	for path, n := range p.mappings(items, "prompts", "name, description, arguments") {
		fs, name, valid := p.named(n, path, promptKeys, "name", "description")
		var pr Prompt
		if valid {
			p.unique(seen, fs["name"].val, join(path, "name"), "prompt", name)
			pr.Name = name
		}
		pr.Title, _ = p.str(fs["title"])
		pr.Description, _ = p.str(fs["description"])
		args, _ := p.list(fs["arguments"])
		argSeen := map[string]int{}
		for apath, an := range p.mappings(args, join(path, "arguments"), "name, description, required") {
			afs, name, valid := p.named(an, apath, promptArgKeys, "name")
			var a PromptArg
			if valid {
				p.unique(argSeen, afs["name"].val, join(apath, "name"), "argument", name)
				a.Name = name
			}
			a.Description, _ = p.str(afs["description"])
			a.Required, _ = p.boolean(afs["required"])
			pr.Arguments = append(pr.Arguments, a)
		}
		m.Prompts = append(m.Prompts, pr)
	}
}

// resources reads the resources list: each URI's scheme must be the
// tool's name, so two tools' resources never collide.
func (p *parser) resources(e entry, m *Manifest) {
	for _, r := range p.uriEntries(e, m.Name, resourceList) {
		m.Resources = append(m.Resources, Resource{URI: r.uri, Name: r.name, Title: r.title, Description: r.description, MIMEType: r.mimeType})
	}
}

// resourceTemplates reads the resource_templates list.
func (p *parser) resourceTemplates(e entry, m *Manifest) {
	for _, t := range p.uriEntries(e, m.Name, templateList) {
		m.ResourceTemplates = append(m.ResourceTemplates, ResourceTemplate{URITemplate: t.uri, Name: t.name, Title: t.title, Description: t.description, MIMEType: t.mimeType})
	}
}

// uriList is what tells the resources list from the resource_templates
// list; everything else about their entries is one rule.
type uriList struct {
	list, key, noun string
	keys            []string
	// invalid says what is wrong with a URI (its scheme already checked),
	// or "".
	invalid func(uri string) string
}

var (
	resourceList = uriList{list: "resources", key: "uri", noun: "resource", keys: resourceKeys, invalid: func(uri string) string {
		if strings.ContainsAny(uri, "{}") {
			return fmt.Sprintf("%q holds a template expression: declare it under resource_templates", uri)
		}
		return ""
	}}
	templateList = uriList{list: "resource_templates", key: "uri_template", noun: "template", keys: templateKeys, invalid: func(uri string) string {
		if _, err := uritemplate.New(uri); err != nil {
			return fmt.Sprintf("%q is not an RFC 6570 URI template: %v", uri, err)
		}
		return ""
	}}
)

// uriEntry is one entry of a uriList, as read.
type uriEntry struct{ uri, name, title, description, mimeType string }

// uriEntries reads a list of entries named by a URI (or URI template)
// whose scheme must be the tool's name, each URI once.
func (p *parser) uriEntries(e entry, tool string, l uriList) []uriEntry {
	items, _ := p.list(e)
	seen := map[string]int{}
	var out []uriEntry
	for path, n := range p.mappings(items, l.list, l.key+", name, description, mime_type") {
		fs := p.fields(n, path, l.keys)
		p.require(n, path, fs, l.key, "name")
		var r uriEntry
		if v, ok := p.str(fs[l.key]); ok && p.checkScheme(fs[l.key].val, join(path, l.key), tool, v) {
			if why := l.invalid(v); why != "" {
				p.addf(fs[l.key].val, join(path, l.key), "%s", why)
			} else {
				p.unique(seen, fs[l.key].val, join(path, l.key), l.noun, v)
			}
			r.uri = v
		}
		r.name, _ = p.str(fs["name"])
		r.title, _ = p.str(fs["title"])
		r.description, _ = p.str(fs["description"])
		r.mimeType, _ = p.str(fs["mime_type"])
		out = append(out, r)
	}
	return out
}

// checkScheme reports a URI that is not "<tool>://…".
func (p *parser) checkScheme(n *yaml.Node, field, tool, uri string) bool {
	prefix := tool + "://"
	if tool != "" && strings.HasPrefix(uri, prefix) && len(uri) > len(prefix) {
		return true
	}
	p.addf(n, field, "%q must start with %q: a resource's scheme is its tool's name", uri, prefix)
	return false
}
