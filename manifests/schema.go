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
// an object whose properties carry each arg's type, description, enum,
// default, minimum, maximum and items, the required args listed under
// "required" (left out when none is), and additionalProperties false. Each
// call returns a fresh map the caller may change.
func (a *Action) ArgsSchema() map[string]any {
	props := make(map[string]any, len(a.Args))
	var required []string
	for i := range a.Args {
		arg := &a.Args[i]
		p := map[string]any{"type": string(arg.Type)}
		if arg.Description != "" {
			p["description"] = arg.Description
		}
		if len(arg.Enum) > 0 {
			p["enum"] = cloneValue(arg.Enum)
		}
		if arg.Default != nil {
			p["default"] = cloneValue(arg.Default)
		}
		if arg.Minimum != nil {
			p["minimum"] = *arg.Minimum
		}
		if arg.Maximum != nil {
			p["maximum"] = *arg.Maximum
		}
		if arg.Items != nil {
			p["items"] = cloneValue(arg.Items)
		}
		props[arg.Name] = p
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
