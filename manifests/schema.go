package manifests

import _ "embed"

// fileSchema is the JSON Schema of tool.yaml.
//
//go:embed tool.schema.json
var fileSchema []byte

// FileSchema returns the JSON Schema (draft 2020-12) of tool.yaml itself,
// for editors: point the YAML language server at it with a
// "# yaml-language-server: $schema=..." comment. It describes the structure;
// Parse enforces more (kebab-case names, unique names, the naming rule of
// the gate, defaults consistent with types). The caller gets its own copy.
func FileSchema() []byte { return append([]byte(nil), fileSchema...) }

// ArgsSchema returns the JSON Schema (draft 2020-12) of the action's args:
// an object whose properties are each arg's Schema, the required args
// listed under "required" (left out when none is), and
// additionalProperties false. Each call returns a fresh map the caller may
// change.
func (a *Action) ArgsSchema() map[string]any {
	props := make(map[string]any, len(a.Args))
	var required []string
	for i := range a.Args {
		arg := &a.Args[i]
		props[arg.Name] = arg.Schema()
		if arg.Required {
			required = append(required, arg.Name)
		}
	}
	s := map[string]any{
		"type":                 "object",
		"properties":           props,
		"additionalProperties": false,
	}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// TypeName is the arg's type as messages name it: "any" for an arg of an
// MCP server whose schema allows several types.
func (a *Arg) TypeName() string {
	if a.Type == "" {
		return "any"
	}
	return string(a.Type)
}

// Schema is the one rendering of an arg every answer builds on (the args'
// JSON Schema, an error's schema, capabilities' arg list): its type (none
// for an arg of any type), and
// when set its description, enum, default, minimum, maximum and items. It
// returns a fresh map the caller may add to.
func (a *Arg) Schema() map[string]any {
	p := map[string]any{}
	if a.Type != "" {
		p["type"] = string(a.Type)
	}
	if a.Description != "" {
		p["description"] = a.Description
	}
	if len(a.Enum) > 0 {
		p["enum"] = cloneValue(a.Enum)
	}
	if a.Default != nil {
		p["default"] = cloneValue(a.Default)
	}
	if a.Minimum != nil {
		p["minimum"] = *a.Minimum
	}
	if a.Maximum != nil {
		p["maximum"] = *a.Maximum
	}
	if a.Items != nil {
		p["items"] = cloneValue(a.Items)
	}
	return p
}
