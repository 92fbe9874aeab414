package clientconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// scanner walks JSON with comments (// and /* */) and trailing commas, as
// the clients' config files allow, keeping byte offsets so an edit touches
// only the bytes it changes.
type scanner struct {
	s []byte
	i int
}

func (p *scanner) errorf(format string, a ...any) error {
	line := 1 + bytes.Count(p.s[:min(p.i, len(p.s))], []byte("\n"))
	return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, a...))
}

// skip passes whitespace and comments.
func (p *scanner) skip() error {
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.i++
		case c == '/' && p.i+1 < len(p.s) && p.s[p.i+1] == '/':
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		case c == '/' && p.i+1 < len(p.s) && p.s[p.i+1] == '*':
			end := bytes.Index(p.s[p.i+2:], []byte("*/"))
			if end < 0 {
				return p.errorf("unterminated /* comment")
			}
			p.i += end + 4
		default:
			return nil
		}
	}
	return nil
}

// str reads a string at p.i and returns its value.
func (p *scanner) str() (string, error) {
	start := p.i
	if p.i >= len(p.s) || p.s[p.i] != '"' {
		return "", p.errorf("want a string")
	}
	p.i++
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '\\':
			p.i += 2
			continue
		case '"':
			p.i++
			var v string
			if err := json.Unmarshal(p.s[start:p.i], &v); err != nil {
				return "", p.errorf("bad string: %v", err)
			}
			return v, nil
		}
		p.i++
	}
	return "", p.errorf("unterminated string")
}

// value passes one value (object, array, string, number, literal).
func (p *scanner) value() error {
	if err := p.skip(); err != nil {
		return err
	}
	if p.i >= len(p.s) {
		return p.errorf("want a value, found the end")
	}
	switch p.s[p.i] {
	case '{':
		_, _, err := p.object()
		return err
	case '[':
		p.i++
		for {
			if err := p.skip(); err != nil {
				return err
			}
			if p.i < len(p.s) && p.s[p.i] == ']' {
				p.i++
				return nil
			}
			if err := p.value(); err != nil {
				return err
			}
			if err := p.skip(); err != nil {
				return err
			}
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
			} else if p.i >= len(p.s) || p.s[p.i] != ']' {
				return p.errorf("want , or ] in an array")
			}
		}
	case '"':
		_, err := p.str()
		return err
	default:
		start := p.i
		for p.i < len(p.s) && strings.IndexByte(",}] \t\r\n/", p.s[p.i]) < 0 {
			p.i++
		}
		var v any
		if err := json.Unmarshal(p.s[start:p.i], &v); err != nil {
			p.i = start
			return p.errorf("bad value %q", p.s[start:min(start+20, len(p.s))])
		}
		return nil
	}
}

// member is one key: value of an object, by byte offsets.
type member struct {
	key string
	// keyStart is the offset of the key's opening quote.
	keyStart int
	// valueStart and valueEnd bound the value.
	valueStart, valueEnd int
	// after is the offset just past the member's trailing comma, or
	// valueEnd when it has none.
	after int
}

// object reads the object at p.i ('{') and returns its members and the
// offset of its closing brace.
func (p *scanner) object() ([]member, int, error) {
	if p.i >= len(p.s) || p.s[p.i] != '{' {
		return nil, 0, p.errorf("want an object")
	}
	p.i++
	var ms []member
	for {
		if err := p.skip(); err != nil {
			return nil, 0, err
		}
		if p.i < len(p.s) && p.s[p.i] == '}' {
			end := p.i
			p.i++
			return ms, end, nil
		}
		m := member{keyStart: p.i}
		k, err := p.str()
		if err != nil {
			return nil, 0, err
		}
		m.key = k
		if err := p.skip(); err != nil {
			return nil, 0, err
		}
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, 0, p.errorf("want : after %q", k)
		}
		p.i++
		if err := p.skip(); err != nil {
			return nil, 0, err
		}
		m.valueStart = p.i
		if err := p.value(); err != nil {
			return nil, 0, err
		}
		m.valueEnd, m.after = p.i, p.i
		if err := p.skip(); err != nil {
			return nil, 0, err
		}
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			m.after = p.i
		} else if p.i >= len(p.s) || p.s[p.i] != '}' {
			return nil, 0, p.errorf("want , or } after the value of %q", k)
		}
		ms = append(ms, m)
	}
}

// Standard returns doc as plain JSON: comments and trailing commas removed.
func Standard(doc []byte) ([]byte, error) {
	var out bytes.Buffer
	p := &scanner{s: doc}
	for p.i < len(doc) {
		c := doc[p.i]
		switch {
		case c == '"':
			start := p.i
			if _, err := p.str(); err != nil {
				return nil, err
			}
			out.Write(doc[start:p.i])
		case c == '/':
			if err := p.skip(); err != nil {
				return nil, err
			}
			if p.i < len(doc) && doc[p.i] == '/' {
				return nil, p.errorf("stray /")
			}
		case c == ',':
			q := &scanner{s: doc, i: p.i + 1}
			if err := q.skip(); err != nil {
				return nil, err
			}
			if q.i < len(doc) && (doc[q.i] == '}' || doc[q.i] == ']') {
				p.i++ // a trailing comma
				continue
			}
			out.WriteByte(c)
			p.i++
		default:
			out.WriteByte(c)
			p.i++
		}
	}
	if !json.Valid(out.Bytes()) {
		var v any
		err := json.Unmarshal(out.Bytes(), &v)
		return nil, fmt.Errorf("not valid JSON (with comments): %v", err)
	}
	return out.Bytes(), nil
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
func indentUnit(doc []byte, ms []member) string {
	if len(ms) > 0 {
		if in := lineIndent(doc, ms[0].keyStart); in != "" && bytes.LastIndexByte(doc[:ms[0].keyStart], '\n') >= 0 {
			return in
		}
	}
	return "  "
}

// render marshals v indented, its first line unindented and the others at
// indent (the indentation of the line it goes on).
func render(v any, indent, unit string) (string, error) {
	b, err := json.MarshalIndent(v, indent, unit)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// topObject reads doc's top-level object: the offset of its opening brace
// and its members.
func topObject(doc []byte) (int, []member, error) {
	p := &scanner{s: doc}
	if err := p.skip(); err != nil {
		return 0, nil, err
	}
	topOpen := p.i
	top, _, err := p.object()
	return topOpen, top, err
}

// Set makes doc's object under key hold name: value, changing nothing else
// (comments, order and formatting are kept). It reports whether doc
// changed: an equal entry already there leaves it as it is.
func Set(doc []byte, key, name string, value any) ([]byte, bool, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		v, err := render(map[string]any{key: map[string]any{name: value}}, "", "  ")
		return []byte(v + "\n"), true, err
	}
	topOpen, top, err := topObject(doc)
	if err != nil {
		return nil, false, err
	}
	unit := indentUnit(doc, top)
	var servers *member
	for i := range top {
		if top[i].key == key {
			servers = &top[i]
		}
	}
	if servers == nil {
		v, err := render(map[string]any{name: value}, unit, unit)
		if err != nil {
			return nil, false, err
		}
		return insertFirst(doc, topOpen, unit, key, v, len(top) == 0, ""), true, nil
	}
	q := &scanner{s: doc, i: servers.valueStart}
	if doc[q.i] != '{' {
		return nil, false, fmt.Errorf("%q is not an object: fix it by hand", key)
	}
	ms, _, err := q.object()
	if err != nil {
		return nil, false, err
	}
	outer := lineIndent(doc, servers.keyStart)
	inner := outer + unit
	for _, m := range ms {
		if m.key != name {
			continue
		}
		old, err := Standard(doc[m.valueStart:m.valueEnd])
		if err != nil {
			return nil, false, err
		}
		if sameJSON(old, value) {
			return doc, false, nil
		}
		v, err := render(value, lineIndent(doc, m.keyStart), unit)
		if err != nil {
			return nil, false, err
		}
		return splice(doc, m.valueStart, m.valueEnd, v), true, nil
	}
	v, err := render(value, inner, unit)
	if err != nil {
		return nil, false, err
	}
	return insertFirst(doc, servers.valueStart, inner, name, v, len(ms) == 0, outer), true, nil
}

// insertFirst makes key: v (v rendered) the first member of the object
// whose '{' is at open, on a line of its own indented by indent; in an
// empty object, the '}' goes on the next line, indented by closing.
func insertFirst(doc []byte, open int, indent, key, v string, empty bool, closing string) []byte {
	ins := fmt.Sprintf("\n%s%q: %s", indent, key, v)
	if empty {
		ins += "\n" + closing
	} else {
		ins += ","
	}
	return splice(doc, open+1, open+1, ins)
}

// Remove takes name out of doc's object under key, changing nothing else;
// when it was the only server there, the emptied key goes too (install
// added both). It reports whether doc changed (false when name was not
// there).
func Remove(doc []byte, key, name string) ([]byte, bool, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		return doc, false, nil
	}
	topOpen, top, err := topObject(doc)
	if err != nil {
		return nil, false, err
	}
	for j, s := range top {
		if s.key != key || doc[s.valueStart] != '{' {
			continue
		}
		q := &scanner{s: doc, i: s.valueStart}
		ms, _, err := q.object()
		if err != nil {
			return nil, false, err
		}
		for i, m := range ms {
			if m.key != name {
				continue
			}
			if len(ms) == 1 {
				return removeMember(doc, topOpen, top, j), true, nil
			}
			return removeMember(doc, s.valueStart, ms, i), true, nil
		}
	}
	return doc, false, nil
}

// removeMember cuts member i (of ms, the members of the object opening at
// open) with the comma that separates it, keeping comments around it.
func removeMember(doc []byte, open int, ms []member, i int) []byte {
	m := ms[i]
	switch {
	case m.after > m.valueEnd: // a comma follows: take the member and its comma
		from := open + 1
		if i > 0 {
			from = ms[i-1].after
		}
		return splice(doc, from, m.after, "")
	case i > 0: // the last of several: take it, and the comma before it
		comma := ms[i-1].after - 1
		start := m.keyStart
		for start > comma+1 && (doc[start-1] == ' ' || doc[start-1] == '\t') {
			start--
		}
		if start > comma+1 && doc[start-1] == '\n' {
			start--
			if start > comma+1 && doc[start-1] == '\r' {
				start--
			}
		}
		return splice(splice(doc, start, m.valueEnd, ""), comma, comma+1, "")
	default: // the only one
		return splice(doc, open+1, m.valueEnd, "")
	}
}

func splice(doc []byte, from, to int, ins string) []byte {
	out := make([]byte, 0, len(doc)+len(ins))
	out = append(out, doc[:from]...)
	out = append(out, ins...)
	return append(out, doc[to:]...)
}

// sameJSON reports whether the JSON text a and the value b are equal as
// JSON.
func sameJSON(a []byte, b any) bool {
	bb, err := json.Marshal(b)
	if err != nil {
		return false
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(bb, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
