package clientconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/tailscale/hujson"
)

// The clients' config files are JSON with comments (// and /* */) and
// trailing commas. hujson parses them into a tree that keeps every comment
// and every byte of whitespace, so an edit changes only the member it adds,
// replaces or removes, and packing the tree gives back the rest byte for
// byte.

// Standard returns doc as plain JSON: comments and trailing commas removed.
func Standard(doc []byte) ([]byte, error) {
	out, err := hujson.Standardize(bytes.Clone(doc))
	if err != nil {
		return nil, fmt.Errorf("not valid JSON (with comments): %w", err)
	}
	return out, nil
}

// parseObject parses doc, which must hold one object.
func parseObject(doc []byte) (hujson.Value, *hujson.Object, error) {
	root, err := hujson.Parse(doc)
	if err != nil {
		return root, nil, fmt.Errorf("not valid JSON (with comments): %w", err)
	}
	obj, ok := root.Value.(*hujson.Object)
	if !ok {
		return root, nil, fmt.Errorf("the file is not a JSON object: fix it by hand")
	}
	return root, obj, nil
}

// memberName is a member's name, unquoted.
func memberName(m *hujson.ObjectMember) string {
	if l, ok := m.Name.Value.(hujson.Literal); ok {
		return l.String()
	}
	return ""
}

// lineIndent is the whitespace that starts the line holding offset i.
func lineIndent(s []byte, i int) string {
	start := bytes.LastIndexByte(s[:i], '\n') + 1
	j := start
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	return string(s[start:j])
}

// indentUnit guesses the file's indentation step from its first member.
func indentUnit(doc []byte, obj *hujson.Object) string {
	if len(obj.Members) > 0 {
		at := obj.Members[0].Name.StartOffset
		if in := lineIndent(doc, at); in != "" && bytes.LastIndexByte(doc[:at], '\n') >= 0 {
			return in
		}
	}
	return "  "
}

// render is v as JSON indented with unit, its first line unindented and
// the others at indent (the indentation of the line it goes on), parsed
// for insertion into the tree.
func render(v any, indent, unit string) (hujson.ValueTrimmed, error) {
	b, err := json.MarshalIndent(v, indent, unit)
	if err != nil {
		return nil, err
	}
	parsed, err := hujson.Parse(b)
	if err != nil {
		return nil, err
	}
	return parsed.Value, nil
}

// insertFirst makes name: v the first member of obj, on a line of its own
// indented by indent; in an empty object, the '}' goes on the next line,
// indented by closing.
func insertFirst(obj *hujson.Object, indent, name string, v hujson.ValueTrimmed, closing string) {
	m := hujson.ObjectMember{
		Name:  hujson.Value{BeforeExtra: hujson.Extra("\n" + indent), Value: hujson.String(name)},
		Value: hujson.Value{BeforeExtra: hujson.Extra(" "), Value: v},
	}
	if len(obj.Members) == 0 {
		obj.AfterExtra = append(hujson.Extra("\n"+closing), obj.AfterExtra...)
	}
	obj.Members = append([]hujson.ObjectMember{m}, obj.Members...)
}

// Set makes doc's object under key hold name: value, changing nothing else
// (comments, order and formatting are kept). It reports whether doc
// changed: an equal entry already there leaves it as it is.
func Set(doc []byte, key, name string, value any) ([]byte, bool, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		b, err := json.MarshalIndent(map[string]any{key: map[string]any{name: value}}, "", "  ")
		return append(b, '\n'), true, err
	}
	root, top, err := parseObject(doc)
	if err != nil {
		return nil, false, err
	}
	unit := indentUnit(doc, top)
	var servers *hujson.ObjectMember
	for i := range top.Members {
		if memberName(&top.Members[i]) == key {
			servers = &top.Members[i]
		}
	}
	changed := false
	if servers == nil {
		changed, err = putMember(doc, top, key, map[string]any{name: value}, "", unit)
	} else {
		obj, ok := servers.Value.Value.(*hujson.Object)
		if !ok {
			return nil, false, fmt.Errorf("%q is not an object: fix it by hand", key)
		}
		changed, err = putMember(doc, obj, name, value, lineIndent(doc, servers.Name.StartOffset), unit)
	}
	if err != nil || !changed {
		return doc, false, err
	}
	return root.Pack(), true, nil
}

// putMember makes obj (whose closing line is indented by outer) hold
// name: value: an equal member stays (false), another value is replaced
// where it is, a missing member goes first.
func putMember(doc []byte, obj *hujson.Object, name string, value any, outer, unit string) (bool, error) {
	for i := range obj.Members {
		m := &obj.Members[i]
		if memberName(m) != name {
			continue
		}
		if sameJSON(m.Value, value) {
			return false, nil
		}
		v, err := render(value, lineIndent(doc, m.Name.StartOffset), unit)
		if err != nil {
			return false, err
		}
		m.Value.Value = v
		return true, nil
	}
	v, err := render(value, outer+unit, unit)
	if err != nil {
		return false, err
	}
	insertFirst(obj, outer+unit, name, v, outer)
	return true, nil
}

// Remove takes name out of doc's object under key, changing nothing else;
// when it was the only server there, the emptied key goes too (install
// added both). It reports whether doc changed (false when name was not
// there).
func Remove(doc []byte, key, name string) ([]byte, bool, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		return doc, false, nil
	}
	root, top, err := parseObject(doc)
	if err != nil {
		return nil, false, err
	}
	for j := range top.Members {
		obj, ok := top.Members[j].Value.Value.(*hujson.Object)
		if memberName(&top.Members[j]) != key || !ok {
			continue
		}
		for i := range obj.Members {
			if memberName(&obj.Members[i]) != name {
				continue
			}
			if len(obj.Members) == 1 {
				removeMember(top, j)
			} else {
				removeMember(obj, i)
			}
			return root.Pack(), true, nil
		}
	}
	return doc, false, nil
}

// removeMember cuts member i of obj with the comma that separates it,
// keeping the comments around it. The last of several members takes the
// comma before it, and the comments before its line stay where they were.
func removeMember(obj *hujson.Object, i int) {
	last := i == len(obj.Members)-1
	trailingComma := last && obj.Members[i].Value.AfterExtra != nil
	if last && i > 0 && !trailingComma {
		prev := &obj.Members[i-1].Value
		before := trimLastLine(obj.Members[i].Name.BeforeExtra)
		after := append(append(append(hujson.Extra{}, prev.AfterExtra...), before...), obj.AfterExtra...)
		prev.AfterExtra = nil
		obj.AfterExtra = after
	}
	obj.Members = append(obj.Members[:i], obj.Members[i+1:]...)
	if trailingComma && len(obj.Members) > 0 {
		if prev := &obj.Members[len(obj.Members)-1].Value; prev.AfterExtra == nil {
			prev.AfterExtra = hujson.Extra{}
		}
	}
}

// trimLastLine drops the indentation that ends e and the line break before
// it: the start of the removed member's line.
func trimLastLine(e hujson.Extra) hujson.Extra {
	n := len(e)
	for n > 0 && (e[n-1] == ' ' || e[n-1] == '\t') {
		n--
	}
	if n > 0 && e[n-1] == '\n' {
		n--
		if n > 0 && e[n-1] == '\r' {
			n--
		}
	}
	return e[:n]
}

// sameJSON reports whether the value v of the tree and the Go value b are
// equal as JSON.
func sameJSON(v hujson.Value, b any) bool {
	c := v.Clone()
	c.Standardize()
	bb, err := json.Marshal(b)
	if err != nil {
		return false
	}
	var x, y any
	if json.Unmarshal(c.Pack(), &x) != nil || json.Unmarshal(bb, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
