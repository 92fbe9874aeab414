package mcpproto

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A call's params are scanned once, in place, for what the transport needs
// of them: the _meta value (for the protocol version check) and where to
// put the request id. The scan reads the client's bytes as they are and
// the id goes in by splicing, so the arguments are neither decoded nor
// re-encoded on the way to the SDK. What the scan cannot vouch for — params
// that are not an object, a key written with escapes, a member given twice,
// a _meta that is not an object or that already holds the request id key —
// goes down the general path (metaMap, withMeta), which decodes and
// re-encodes as before.

// member is where one member's value lies in a JSON object.
type member struct {
	start, end int  // the value's bytes are obj[start:end]
	found      bool // the member is there
}

// findMember scans the top level of obj, a valid JSON object, for key. It
// reports ok false when the scan cannot decide: obj is not an object, a key
// is written with escapes (it could spell key), or key is given twice.
func findMember(obj []byte, key string) (m member, empty, ok bool) {
	n := 0
	twice := false
	ok = eachMember(obj, func(name []byte, start, end int) {
		n++
		if string(name) == key {
			twice = twice || m.found
			m = member{start: start, end: end, found: true}
		}
	})
	if !ok || twice {
		return member{}, false, false
	}
	return m, n == 0, true
}

// ObjectKeys returns the keys of raw's top level, in order, when raw is a
// valid JSON object whose keys are written without escapes; else ok is
// false and the caller decodes raw as a whole. It reads raw in place,
// without decoding a value.
func ObjectKeys(raw []byte) (keys []string, ok bool) {
	return KeysNotIn(raw, nil)
}

// KeysNotIn is ObjectKeys less the keys in known: it returns, in order, the
// keys of raw's top level that known does not hold, and allocates nothing
// when there are none.
func KeysNotIn(raw []byte, known []string) (keys []string, ok bool) {
	ok = eachMember(raw, func(name []byte, _, _ int) {
		for _, k := range known {
			if string(name) == k {
				return
			}
		}
		keys = append(keys, string(name))
	})
	return keys, ok
}

// eachMember calls fn with each top-level member of obj, a valid JSON
// object: its key (as written) and where its value lies. It reports false
// when obj is not an object or a key is written with escapes (then fn may
// have seen some members).
func eachMember(obj []byte, fn func(name []byte, start, end int)) bool {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return skipSpace(obj, i+1) == len(obj)
	}
	for i < len(obj) {
		if obj[i] != '"' {
			return false
		}
		end := stringEnd(obj, i)
		if end < 0 {
			return false
		}
		name := obj[i+1 : end-1]
		if bytes.IndexByte(name, '\\') >= 0 {
			return false
		}
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return false
		}
		start := skipSpace(obj, i+1)
		stop := valueEnd(obj, start)
		if stop < 0 {
			return false
		}
		fn(name, start, stop)
		i = skipSpace(obj, stop)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
			continue
		}
		return i < len(obj) && obj[i] == '}' && skipSpace(obj, i+1) == len(obj)
	}
	return false
}

// skipSpace returns the index of the first non-space byte of b from i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just after the string starting at b[i]
// (a '"'), or -1.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// valueEnd returns the index just after the JSON value starting at b[i],
// or -1.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				if j = stringEnd(b, j); j < 0 {
					return -1
				}
				j-- // the loop's j++ steps past the closing quote
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && !literalEnds(b[j]) {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// literalEnds reports whether c ends a number, true, false or null.
func literalEnds(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// callMeta is a call's params as the transport reads them: the raw _meta
// value and, when the fast path can take the params, where it lies.
type callMeta struct {
	params json.RawMessage
	meta   json.RawMessage // the _meta value, nil when absent
	at     member          // where _meta lies in params (fast only)
	empty  bool            // params is {}
	fast   bool            // the scan vouched for params
}

// scanMeta reads a call's params once. Params that are absent, null or not
// something the scan can vouch for are read by the general path.
func scanMeta(params json.RawMessage) callMeta {
	c := callMeta{params: params}
	if m, empty, ok := findMember(params, "_meta"); ok {
		c.at, c.empty, c.fast = m, empty, true
		if m.found {
			c.meta = params[m.start:m.end]
		}
		return c
	}
	c.meta = metaMapRaw(params)
	return c
}

// metaMapRaw is the general path's _meta: params decoded as a whole, as
// the transport read them before the scan.
func metaMapRaw(params json.RawMessage) json.RawMessage {
	var p struct {
		Meta json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	return p.Meta
}

// unsupportedVersion returns the -32022 error data {supported, requested}
// when the _meta names a protocol version that is not in versions (the SDK
// only checks versions from 2026-07-28 on and treats older ones as a
// legacy request), else nil.
func (c callMeta) unsupportedVersion(versions []string) json.RawMessage {
	if len(c.meta) == 0 || !bytes.Contains(c.meta, []byte(mcp.MetaKeyProtocolVersion)) {
		return nil
	}
	var meta map[string]json.RawMessage
	_ = json.Unmarshal(c.meta, &meta)
	rawVersion, ok := meta[mcp.MetaKeyProtocolVersion]
	if !ok {
		return nil
	}
	var v string
	if json.Unmarshal(rawVersion, &v) == nil && slices.Contains(versions, v) {
		return nil
	}
	data, _ := json.Marshal(map[string]any{"supported": versions, "requested": rawVersion})
	return data
}

// withRequestID returns the params with _meta[requestIDMetaKey] = id,
// spliced into the client's bytes when the scan vouched for them.
func (c callMeta) withRequestID(id string) json.RawMessage {
	value, err := json.Marshal(id)
	if !c.fast || err != nil {
		return withMeta(c.params, requestIDMetaKey, id)
	}
	entry := make([]byte, 0, len(requestIDMetaKey)+len(value)+16)
	entry = append(append(append(entry, '"'), requestIDMetaKey...), `":`...)
	entry = append(entry, value...)
	p := c.params
	switch {
	case !c.at.found: // {"_meta":{entry}, ...}
		open := bytes.IndexByte(p, '{') + 1
		out := make([]byte, 0, len(p)+len(entry)+16)
		out = append(append(out, p[:open]...), `"_meta":{`...)
		out = append(append(out, entry...), '}')
		if !c.empty {
			out = append(out, ',')
		}
		return append(out, p[open:]...)
	case bytes.Equal(c.meta, []byte("null")): // "_meta":{entry}
		out := make([]byte, 0, len(p)+len(entry)+8)
		out = append(append(out, p[:c.at.start]...), '{')
		out = append(append(out, entry...), '}')
		return append(out, p[c.at.end:]...)
	}
	m, empty, ok := findMember(c.meta, requestIDMetaKey)
	if !ok || m.found { // not an object, or the client set the key itself
		return withMeta(c.params, requestIDMetaKey, id)
	}
	open := c.at.start + bytes.IndexByte(c.meta, '{') + 1
	out := make([]byte, 0, len(p)+len(entry)+8)
	out = append(append(out, p[:open]...), entry...)
	if !empty {
		out = append(out, ',')
	}
	return append(out, p[open:]...)
}
