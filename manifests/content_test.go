package manifests

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const contentHead = `name: x
description: d
entrypoint: x
actions:
  - {name: a, description: d, read_only: true, reversible: true}
`

func TestParseContent(t *testing.T) {
	m, err := parseString(t, contentHead+`prompts:
  - name: ingest
    description: Take in a source
    arguments:
      - {name: source, description: where from, required: true}
resources:
  - {uri: "x://index", name: index, description: the catalogue, mime_type: text/markdown}
resource_templates:
  - {uri_template: "x://page/{+path}", name: page, mime_type: application/json}
`)
	if err != nil {
		t.Fatal(err)
	}
	want := []Prompt{{Name: "ingest", Description: "Take in a source", Arguments: []PromptArg{{Name: "source", Description: "where from", Required: true}}}}
	if diff := cmp.Diff(want, m.Prompts); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Resource{{URI: "x://index", Name: "index", Description: "the catalogue", MIMEType: "text/markdown"}}, m.Resources); diff != "" {
		t.Errorf("resources (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]ResourceTemplate{{URITemplate: "x://page/{+path}", Name: "page", MIMEType: "application/json"}}, m.ResourceTemplates); diff != "" {
		t.Errorf("templates (-want +got):\n%s", diff)
	}
	if !m.Contributes() || m.Prompt("ingest") == nil || m.Prompt("nope") != nil {
		t.Errorf("Contributes/Prompt: got %v %v %v", m.Contributes(), m.Prompt("ingest"), m.Prompt("nope"))
	}
}

func TestParseContentProblems(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"foreign scheme", "resources:\n  - {uri: \"notes://index\", name: i}\n",
			`resources[0].uri: "notes://index" must start with "x://": a resource's scheme is its tool's name`},
		{"template in resources", "resources:\n  - {uri: \"x://page/{path}\", name: p}\n",
			`resources[0].uri: "x://page/{path}" holds a template expression: declare it under resource_templates`},
		{"bad template", "resource_templates:\n  - {uri_template: \"x://page/{+path\", name: p}\n",
			`resource_templates[0].uri_template: "x://page/{+path" is not an RFC 6570 URI template`},
		// resources and resource_templates share one rule: each row below
		// has its twin for the other list.
		{"duplicate resource", "resources:\n  - {uri: \"x://a\", name: a}\n  - {uri: \"x://a\", name: b}\n",
			`resources[1].uri: duplicate resource "x://a" (first at line 7)`},
		{"duplicate template", "resource_templates:\n  - {uri_template: \"x://{a}\", name: a}\n  - {uri_template: \"x://{a}\", name: b}\n",
			`resource_templates[1].uri_template: duplicate template "x://{a}" (first at line 7)`},
		{"foreign template scheme", "resource_templates:\n  - {uri_template: \"notes://{a}\", name: a}\n",
			`resource_templates[0].uri_template: "notes://{a}" must start with "x://": a resource's scheme is its tool's name`},
		{"third duplicate names the first", "resources:\n  - {uri: \"x://a\", name: a}\n  - {uri: \"x://a\", name: b}\n  - {uri: \"x://a\", name: c}\n",
			`resources[2].uri: duplicate resource "x://a" (first at line 7)`},
		{"duplicate prompt argument", "prompts:\n  - name: a\n    description: d\n    arguments:\n      - {name: s}\n      - {name: s}\n",
			`prompts[0].arguments[1].name: duplicate argument "s" (first at line 10)`},
		{"resource not a mapping", "resources:\n  - x://a\n",
			`resources[0]: want a mapping {uri, name, description, mime_type}, got`},
		{"template not a mapping", "resource_templates:\n  - x://{a}\n",
			`resource_templates[0]: want a mapping {uri_template, name, description, mime_type}, got`},
		{"resource without name", "resources:\n  - {uri: \"x://a\"}\n",
			`resources[0].name: required field is missing`},
		{"template without name", "resource_templates:\n  - {uri_template: \"x://{a}\"}\n",
			`resource_templates[0].name: required field is missing`},
		{"duplicate prompt", "prompts:\n  - {name: a, description: d}\n  - {name: a, description: d}\n",
			`prompts[1].name: duplicate prompt "a" (first at line 7)`},
		{"prompt name", "prompts:\n  - {name: Ingest, description: d}\n",
			`prompts[0].name: "Ingest" is not lowercase kebab-case`},
		{"missing description", "prompts:\n  - {name: a}\n",
			`prompts[0].description: required field is missing`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseString(t, contentHead+tt.src)
			if err == nil {
				t.Fatalf("got no error, want %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %q, want it to contain %q", err.Error(), tt.want)
			}
		})
	}
}
