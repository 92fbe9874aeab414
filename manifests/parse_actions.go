package manifests

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

func (p *parser) actions(e entry, m *Manifest) {
	items, ok := p.list(e)
	if ok && len(items) == 0 {
		p.addf(e.val, "actions", "a tool needs at least one action")
	}
	seen := map[string]int{}
	for path, n := range p.mappings(items, "actions", "name, description, args, ...") {
		a := p.action(n, path, m.Name)
		if a.Name != "" {
			p.unique(seen, n, join(path, "name"), "action", a.Name)
		}
		m.Actions = append(m.Actions, a)
	}
}

func (p *parser) action(n *yaml.Node, path, tool string) Action {
	var a Action
	fs, name, _ := p.named(n, path, actionKeys, "name", "description")
	a.Name = name
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
		a.NarrowWith = p.stringSet(e, func(s string) string {
			if a.Arg(s) != nil {
				return ""
			}
			msg := fmt.Sprintf("%q is not an arg of this action", s)
			if sug := Suggest(s, a.ArgNames()); len(sug) > 0 {
				msg += fmt.Sprintf(" (did you mean %q?)", sug[0])
			}
			return msg
		})
	}
	if e, ok := fs["keywords"]; ok {
		a.Keywords = p.stringSet(e, func(s string) string {
			if strings.TrimSpace(s) == "" {
				return "a keyword must not be empty"
			}
			return ""
		})
	}
	if e := fs["output_schema"]; e.val != nil {
		if e.val.Kind != yaml.MappingNode {
			p.addf(e.val, e.field, "want a JSON Schema mapping such as {type: object, properties: {...}}, got %s", DescribeNode(e.val))
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
	for apath, an := range p.mappings(nodes, join(path, "args"), "name, type, required, description, ...") {
		arg := p.arg(an, apath)
		if arg.Name != "" {
			p.unique(seen, an, join(apath, "name"), "arg", arg.Name)
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
	fs, name, _ := p.named(n, path, argKeys, "name", "type")
	a.Name = name
	typeOK := false
	if v, ok := p.str(fs["type"]); ok {
		if slices.Contains(argTypeNames(), v) {
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

	p.argBounds(fs, path, &a, typeOK)
	p.argItems(fs, &a, typeOK)
	p.argEnum(fs, &a, typeOK)
	p.argDefault(fs, &a, typeOK)
	return a
}

// argBounds reads an arg's minimum and maximum.
func (p *parser) argBounds(fs map[string]entry, path string, a *Arg, typeOK bool) {
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
			p.addf(e.val, e.field, "want a number, got %s", DescribeNode(e.val))
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
}

// argItems reads an array arg's items schema.
func (p *parser) argItems(fs map[string]entry, a *Arg, typeOK bool) {
	if e := fs["items"]; e.val != nil {
		switch {
		case typeOK && a.Type != TypeArray:
			p.addf(e.val, e.field, "items applies only to array args, not %s", a.Type)
		case e.val.Kind != yaml.MappingNode:
			p.addf(e.val, e.field, "want a JSON Schema mapping such as {type: string}, got %s", DescribeNode(e.val))
		default:
			if v, ok := p.toAny(e.val, e.field, 0); ok {
				items := v.(map[string]any)
				if t, has := items["type"]; has {
					if s, _ := t.(string); !slices.Contains(jsonTypes, s) {
						p.addf(e.val, e.field+".type", "unknown type %v (want %s)", t, strings.Join(jsonTypes, ", "))
					}
				}
				a.Items = items
			}
		}
	}
}

// argEnum reads an arg's enum, each value of the arg's type.
func (p *parser) argEnum(fs map[string]entry, a *Arg, typeOK bool) {
	if e := fs["enum"]; e.val != nil {
		switch {
		case typeOK && (a.Type == TypeArray || a.Type == TypeObject || a.Type == TypeBoolean):
			p.addf(e.val, e.field, "enum applies only to string, integer and number args, not %s", a.Type)
		case e.val.Kind != yaml.SequenceNode || len(e.val.Content) == 0:
			p.addf(e.val, e.field, "want a non-empty list of values, got %s", DescribeNode(e.val))
		default:
			for i, vn := range e.val.Content {
				field := fmt.Sprintf("%s[%d]", e.field, i)
				v, ok := p.value(vn, field, a, typeOK)
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
}

// argDefault reads an arg's default, which must fit its range and enum.
func (p *parser) argDefault(fs map[string]entry, a *Arg, typeOK bool) {
	if e := fs["default"]; e.val != nil {
		if a.Required {
			p.addf(e.val, e.field, "a required arg cannot have a default (it would never apply)")
		}
		if v, ok := p.value(e.val, e.field, a, typeOK); ok {
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
	p.addf(n, field, "unsupported value %s", DescribeNode(n))
	return nil, false
}

func argTypeNames() []string {
	out := make([]string, len(ArgTypes))
	for i, t := range ArgTypes {
		out[i] = string(t)
	}
	return out
}
