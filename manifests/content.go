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
	for i, n := range items {
		path := fmt.Sprintf("prompts[%d]", i)
		if n.Kind != yaml.MappingNode {
			p.addf(n, path, "want a mapping {name, description, arguments}, got %s", describeNode(n))
			continue
		}
		fs := p.fields(n, path, promptKeys)
		p.require(n, path, fs, "name", "description")
		var pr Prompt
		if v, ok := p.str(fs["name"]); ok && p.checkName(fs["name"].val, join(path, "name"), v) {
			if line, dup := seen[v]; dup {
				p.addf(fs["name"].val, join(path, "name"), "duplicate prompt %q (first at line %d)", v, line)
			}
			seen[v] = fs["name"].val.Line
			pr.Name = v
		}
		pr.Title, _ = p.str(fs["title"])
		pr.Description, _ = p.str(fs["description"])
		args, _ := p.list(fs["arguments"])
		argSeen := map[string]bool{}
		for j, an := range args {
			apath := fmt.Sprintf("%s.arguments[%d]", path, j)
			if an.Kind != yaml.MappingNode {
				p.addf(an, apath, "want a mapping {name, description, required}, got %s", describeNode(an))
				continue
			}
			afs := p.fields(an, apath, promptArgKeys)
			p.require(an, apath, afs, "name")
			var a PromptArg
			if v, ok := p.str(afs["name"]); ok && p.checkName(afs["name"].val, join(apath, "name"), v) {
				if argSeen[v] {
					p.addf(afs["name"].val, join(apath, "name"), "duplicate argument %q", v)
				}
				argSeen[v] = true
				a.Name = v
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
	items, _ := p.list(e)
	seen := map[string]int{}
	for i, n := range items {
		path := fmt.Sprintf("resources[%d]", i)
		if n.Kind != yaml.MappingNode {
			p.addf(n, path, "want a mapping {uri, name, description, mime_type}, got %s", describeNode(n))
			continue
		}
		fs := p.fields(n, path, resourceKeys)
		p.require(n, path, fs, "uri", "name")
		var r Resource
		if v, ok := p.str(fs["uri"]); ok && p.checkScheme(fs["uri"].val, join(path, "uri"), m.Name, v) {
			if strings.ContainsAny(v, "{}") {
				p.addf(fs["uri"].val, join(path, "uri"), "%q holds a template expression: declare it under resource_templates", v)
			} else if line, dup := seen[v]; dup {
				p.addf(fs["uri"].val, join(path, "uri"), "duplicate resource %q (first at line %d)", v, line)
			}
			seen[v] = fs["uri"].val.Line
			r.URI = v
		}
		r.Name, _ = p.str(fs["name"])
		r.Title, _ = p.str(fs["title"])
		r.Description, _ = p.str(fs["description"])
		r.MIMEType, _ = p.str(fs["mime_type"])
		m.Resources = append(m.Resources, r)
	}
}

// resourceTemplates reads the resource_templates list.
func (p *parser) resourceTemplates(e entry, m *Manifest) {
	items, _ := p.list(e)
	seen := map[string]int{}
	for i, n := range items {
		path := fmt.Sprintf("resource_templates[%d]", i)
		if n.Kind != yaml.MappingNode {
			p.addf(n, path, "want a mapping {uri_template, name, description, mime_type}, got %s", describeNode(n))
			continue
		}
		fs := p.fields(n, path, templateKeys)
		p.require(n, path, fs, "uri_template", "name")
		var t ResourceTemplate
		if v, ok := p.str(fs["uri_template"]); ok && p.checkScheme(fs["uri_template"].val, join(path, "uri_template"), m.Name, v) {
			if _, err := uritemplate.New(v); err != nil {
				p.addf(fs["uri_template"].val, join(path, "uri_template"), "%q is not an RFC 6570 URI template: %v", v, err)
			} else if line, dup := seen[v]; dup {
				p.addf(fs["uri_template"].val, join(path, "uri_template"), "duplicate template %q (first at line %d)", v, line)
			}
			seen[v] = fs["uri_template"].val.Line
			t.URITemplate = v
		}
		t.Name, _ = p.str(fs["name"])
		t.Title, _ = p.str(fs["title"])
		t.Description, _ = p.str(fs["description"])
		t.MIMEType, _ = p.str(fs["mime_type"])
		m.ResourceTemplates = append(m.ResourceTemplates, t)
	}
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
