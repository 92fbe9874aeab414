package manifests

// The parser's readers of YAML nodes: each checks a node's kind and value
// and records a problem with its line and field path.

import (
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

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
		if !slices.Contains(known, name) {
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

// DescribeNode names a YAML node's kind and value for a "want X, got Y"
// message (string "x", integer 5, a list); every parser of tool.yaml's
// format and the surface declarations use it.
func DescribeNode(n *yaml.Node) string {
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
		p.addf(e.val, e.field, "want a string, got %s", DescribeNode(e.val))
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
	p.addf(e.val, e.field, "want a string, got %s", DescribeNode(e.val))
	return "", false
}

func (p *parser) boolean(e entry) (bool, bool) {
	if e.val == nil {
		return false, false
	}
	var b bool
	if e.val.Kind != yaml.ScalarNode || e.val.ShortTag() != "!!bool" || e.val.Decode(&b) != nil {
		p.addf(e.val, e.field, "want true or false, got %s", DescribeNode(e.val))
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
		p.addf(e.val, e.field, "want an integer, got %s", DescribeNode(e.val))
		return 0, false
	}
	return i, true
}

func (p *parser) duration(e entry, lo, hi time.Duration) (time.Duration, bool) {
	if e.val == nil {
		return 0, false
	}
	if e.val.Kind != yaml.ScalarNode || e.val.ShortTag() != "!!str" {
		p.addf(e.val, e.field, `want a duration such as "30s" or "5m", got %s`, DescribeNode(e.val))
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
		p.addf(e.val, e.field, "want a list, got %s", DescribeNode(e.val))
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

// mappings yields the items of a list with their paths ("list[i]"),
// reporting each item that is not a mapping; shape names the keys one
// holds ("name, description").
func (p *parser) mappings(items []*yaml.Node, list, shape string) iter.Seq2[string, *yaml.Node] {
	return func(yield func(string, *yaml.Node) bool) {
		for i, n := range items {
			path := fmt.Sprintf("%s[%d]", list, i)
			if n.Kind != yaml.MappingNode {
				p.addf(n, path, "want a mapping {%s}, got %s", shape, DescribeNode(n))
				continue
			}
			if !yield(path, n) {
				return
			}
		}
	}
}

// named reads a list item's fields (known keys only), requires the keys
// named, and returns the item's name with whether it is a valid one
// (lowercase kebab-case); name is "" when the item has none.
func (p *parser) named(n *yaml.Node, path string, known []string, required ...string) (fs map[string]entry, name string, valid bool) {
	fs = p.fields(n, path, known)
	p.require(n, path, fs, required...)
	if v, ok := p.str(fs["name"]); ok {
		return fs, v, p.checkName(fs["name"].val, join(path, "name"), v)
	}
	return fs, "", false
}

// unique reports v, at node n and field, when seen already holds it:
// "duplicate <what> "v" (first at line N)", N the line of its first use,
// which seen records.
func (p *parser) unique(seen map[string]int, n *yaml.Node, field, what, v string) {
	if line, dup := seen[v]; dup {
		p.addf(n, field, "duplicate %s %q (first at line %d)", what, v, line)
		return
	}
	seen[v] = n.Line
}

// stringSet reads a list of strings that must each be valid (invalid says
// why one is not, or "") and listed once. It returns those kept, in order;
// each problem names the item's own index in the list.
func (p *parser) stringSet(e entry, invalid func(string) string) []string {
	items, _ := p.list(e)
	seen := map[string]bool{}
	var out []string
	for i, n := range items {
		field := fmt.Sprintf("%s[%d]", e.field, i)
		s, ok := p.str(entry{val: n, field: field})
		if !ok {
			continue
		}
		switch why := invalid(s); {
		case why != "":
			p.addf(n, field, "%s", why)
		case seen[s]:
			p.addf(n, field, "duplicate %q", s)
		default:
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
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
