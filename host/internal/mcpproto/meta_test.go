package mcpproto

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// metaCases are params as clients send them, and the shapes the one-pass
// scan must leave to the general path.
var metaCases = []struct {
	params string
	fast   bool // the scan vouches for them
}{
	{`{"name":"run_tool","arguments":{"tool":"t","action":"echo","args":{"text":"bench"}}}`, true},
	{`{}`, true},
	{" { \"name\" : \"x\" ,\n\t\"arguments\" : { } } ", true},
	{`{"_meta":null,"name":"x"}`, true},
	{`{"name":"x","_meta":{}}`, true},
	{`{"_meta":{"progressToken":1},"name":"x"}`, true},
	{`{"_meta":{ "progressToken" : "p" , "k" : [1,{"a":"}"}] } ,"name":"x"}`, true},
	{`{"arguments":{"_meta":"inner","s":"}{\"]\\"},"name":"x"}`, true},
	{`{"arguments":[1,2,{"x":[true,false,null,-1.5e3]}],"name":"x"}`, true},
	{`{"name":"<&>\u2028","arguments":{"t":"é"}}`, true},
	{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01"},"name":"x"}`, true},
	{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"},"name":"x"}`, true},
	{`{"_meta":{"io.modelcontextprotocol/protocolVersion":5}}`, true},
	{`{"name":"x","_meta":{"toolhost/requestId":"spoofed"}}`, true}, // the id key is overwritten by the general path
	{`{"_meta":5,"name":"x"}`, true},                                // not an object: left as it is
	{`{"_meta":{"a":1},"_meta":{"b":2}}`, false},                    // given twice
	{`{"\u005fmeta":{"a":1}}`, false},                               // a key with escapes
	{`null`, false},
	{``, false},
	{`[1]`, false},
	{`"str"`, false},
}

// decodeAny decodes JSON for a comparison of meaning (numbers as written).
func decodeAny(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

// oldUnsupportedVersion is the version check as the transport made it
// before the scan, decoding the whole params: the reference.
func oldUnsupportedVersion(params json.RawMessage, versions []string) json.RawMessage {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	rawVersion, ok := p.Meta[mcp.MetaKeyProtocolVersion]
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

// TestScanMetaAgreesWithDecoding: the one-pass scan gives the params the
// same meaning the decode-and-re-encode path gave them — the same request
// id in _meta, every other member unchanged, the same -32022 answer — and
// takes the fast path exactly where it can vouch for the bytes.
func TestScanMetaAgreesWithDecoding(t *testing.T) {
	versions := []string{"2026-07-28", "2025-11-25"}
	for _, tc := range metaCases {
		for _, id := range []string{"1", `a"b`, "<x>"} {
			params := json.RawMessage(tc.params)
			m := scanMeta(params)
			if m.fast != tc.fast {
				t.Errorf("%s: fast %v, want %v", tc.params, m.fast, tc.fast)
			}
			got, want := m.withRequestID(id), withMeta(params, requestIDMetaKey, id)
			if !json.Valid(want) { // the general path leaves what is not an object as it is
				if !bytes.Equal(got, want) {
					t.Errorf("%s: got %s, want it unchanged", tc.params, got)
				}
			} else if g, w := decodeAny(t, got), decodeAny(t, want); !reflect.DeepEqual(g, w) {
				t.Errorf("%s with id %s:\n got %s\nwant %s", tc.params, id, got, want)
			}
			gotV, wantV := m.unsupportedVersion(versions), oldUnsupportedVersion(params, versions)
			if !bytes.Equal(gotV, wantV) {
				t.Errorf("%s: version answer %s, want %s", tc.params, gotV, wantV)
			}
		}
	}
}

// TestScanMetaSplicesInPlace: the fast path leaves the client's bytes as
// they are around the id it adds (no re-encoding: key order, spacing and
// escapes kept).
func TestScanMetaSplicesInPlace(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"name":"x"}`, `{"_meta":{"toolhost/requestId":"7"},"name":"x"}`},
		{`{}`, `{"_meta":{"toolhost/requestId":"7"}}`},
		{`{"b":1, "_meta" : null}`, `{"b":1, "_meta" : {"toolhost/requestId":"7"}}`},
		{`{"_meta":{ },"a":"\u003c"}`, `{"_meta":{"toolhost/requestId":"7" },"a":"\u003c"}`},
		{`{"_meta":{"p":1}}`, `{"_meta":{"toolhost/requestId":"7","p":1}}`},
	} {
		if got := string(scanMeta(json.RawMessage(tt.in)).withRequestID("7")); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestObjectKeysAgreesWithDecoding: the keys ObjectKeys reads in place are
// the keys a decode into a map finds, and what it cannot vouch for it
// leaves to that decode.
func TestObjectKeysAgreesWithDecoding(t *testing.T) {
	for _, tc := range []struct {
		raw string
		ok  bool
	}{
		{`{"tool":"t","action":"a","args":{"x":[1,"}"]}}`, true},
		{` { } `, true},
		{`{"a":1,"a":2}`, true},
		{`{"é":null,"b":"\"","c":-1e5}`, true},
		{`{"\u0074ool":"t"}`, false}, // a key with escapes
		{`[1]`, false},
		{`"s"`, false},
		{`null`, false},
		{`{"a":1} x`, false},
	} {
		keys, ok := ObjectKeys([]byte(tc.raw))
		if ok != tc.ok {
			t.Errorf("%s: ok %v, want %v", tc.raw, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(tc.raw), &m); err != nil {
			t.Fatalf("%s: %v", tc.raw, err)
		}
		slices.Sort(keys)
		if want := slices.Sorted(maps.Keys(m)); !slices.Equal(slices.Compact(keys), want) {
			t.Errorf("%s: keys %q, want %q", tc.raw, keys, want)
		}
	}
}

// TestKeysNotInLeavesOutTheKnown: KeysNotIn gives exactly the keys a
// decode finds that are not among the known ones, in order.
func TestKeysNotInLeavesOutTheKnown(t *testing.T) {
	known := []string{"tool", "action", "args"}
	for _, tc := range []struct {
		raw  string
		want []string
	}{
		{`{"tool":"t","action":"a","args":{"x":1}}`, nil},
		{`{"tool":"t","Args":{},"max_results":3}`, []string{"Args", "max_results"}},
		{`{"toolx":1,"tool":2}`, []string{"toolx"}},
		{`{}`, nil},
	} {
		got, ok := KeysNotIn([]byte(tc.raw), known)
		if !ok || !slices.Equal(got, tc.want) {
			t.Errorf("KeysNotIn(%s) = %q, %v; want %q, true", tc.raw, got, ok, tc.want)
		}
	}
}
