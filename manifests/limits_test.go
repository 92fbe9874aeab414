package manifests

import (
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// TestLimitsAtTheirEdges checks the manifest's bounds where they are
// drawn: each limit's own value is accepted and one step past it refused,
// so a bound that moves by one shows. It also checks an entrypoint holding
// a NUL and a narrow_with name with no near arg to suggest.
func TestLimitsAtTheirEdges(t *testing.T) {
	base := "name: x\ndescription: d\nentrypoint: x\nactions:\n  - {name: a, description: d, args: [{name: rows, type: integer}]}\n"
	tests := []struct {
		name, src string
		err       string // "" when the manifest is accepted
		check     func(*Manifest) bool
	}{
		{"concurrency at its most", base + "concurrency: 256\n", "", func(m *Manifest) bool { return m.Concurrency == 256 }},
		{"concurrency one past it", base + "concurrency: 257\n", "concurrency: 257 is out of range (want 1 to 256)", nil},
		{"concurrency one", base + "concurrency: 1\n", "", func(m *Manifest) bool { return m.Concurrency == 1 }},
		{"memory at its least", base + "memory: 16MiB\n", "", func(m *Manifest) bool { return m.Memory == 16<<20 }},
		{"memory one KiB under it", base + "memory: 16383KiB\n", "memory: 16383KiB is out of range (want 16MiB to 1TiB)", nil},
		{"memory at its most", base + "memory: 1TiB\n", "", func(m *Manifest) bool { return m.Memory == 1<<40 }},
		{"memory one GiB over it", base + "memory: 1025GiB\n", "memory: 1025GiB is out of range (want 16MiB to 1TiB)", nil},
		{"entrypoint rooted with a backslash", strings.Replace(base, "entrypoint: x", `entrypoint: '\bin\x'`, 1), `entrypoint: "\\bin\\x" is absolute`, nil},
		{"entrypoint a bare drive", strings.Replace(base, "entrypoint: x", `entrypoint: "C:"`, 1), `entrypoint: "C:" is absolute`, nil},
		{"entrypoint holding a NUL", strings.Replace(base, "entrypoint: x", `entrypoint: "bin/x\0y"`, 1), `entrypoint: "bin/x\x00y" is not a path inside the plugin's folder`, nil},
		{"timeout at its least", base + "timeout: 1s\n", "", func(m *Manifest) bool { return m.Timeout == time.Second }},
		{"timeout at its most", base + "timeout: 1h\n", "", func(m *Manifest) bool { return m.Timeout == time.Hour }},
		{"timeout a millisecond under", base + "timeout: 999ms\n", "timeout: 999ms is out of range (want 1s to 1h)", nil},
		{"timeout a millisecond over", base + "timeout: 1h0m0.001s\n", "timeout: 1h0m0.001s is out of range (want 1s to 1h)", nil},
		{"cpu_time at its most", base + "cpu_time: 24h\n", "", func(m *Manifest) bool { return m.CPUTime == 24*time.Hour }},
		{"minimum equal to maximum", strings.Replace(base, "{name: rows, type: integer}", "{name: rows, type: integer, minimum: 5, maximum: 5}", 1), "",
			func(m *Manifest) bool { return *m.Action("a").Arg("rows").Minimum == 5 }},
		{"a default nested as deep as allowed", strings.Replace(base, "{name: rows, type: integer}", "{name: rows, type: array, default: "+nested(maxDepth)+"}", 1), "",
			func(m *Manifest) bool { return m.Action("a").Arg("rows").Default != nil }},
		{"a default nested one deeper", strings.Replace(base, "{name: rows, type: integer}", "{name: rows, type: array, default: "+nested(maxDepth+1)+"}", 1),
			"nested too deeply", nil},
		{"a default object nested one deeper", strings.Replace(base, "{name: rows, type: integer}", "{name: rows, type: object, default: "+nestedObject(maxDepth+1)+"}", 1),
			"nested too deeply", nil},
		// A small file whose aliases repeat a list: every node of what the
		// aliases expand to is counted, not only the aliases themselves.
		{"aliases expanding past the budget", strings.Replace(base, "{name: rows, type: integer}", "{name: rows, type: array, default: "+expanding(1000, 200)+"}", 1),
			"the document is too complex (aliases expand too far)", nil},
		{"a default object with a null key", strings.Replace(base, "{name: rows, type: integer}", "{name: rows, type: object, default: {~: 1}}", 1),
			"keys must be plain strings", nil},
		{"a default object with a list for a key", strings.Replace(base, "{name: rows, type: integer}", "{name: rows, type: object, default: {? [a] : 1}}", 1),
			"keys must be plain strings", nil},
		{"a value of 40 bytes is quoted whole", strings.SplitAfter(base, "entrypoint: x\n")[0] + "actions: " + strings.Repeat("x", 40) + "\n",
			`got string "` + strings.Repeat("x", 40) + `"`, nil},
		{"a value of 41 bytes is cut", strings.SplitAfter(base, "entrypoint: x\n")[0] + "actions: " + strings.Repeat("x", 41) + "\n",
			`got string "` + strings.Repeat("x", 40) + `…"`, nil},
		{"narrow_with naming no arg, nothing near", strings.Replace(base, "description: d, args", "description: d, narrow_with: [zzzzzzzz], args", 1),
			`narrow_with[0]: "zzzzzzzz" is not an arg of this action`, nil},
		{"narrow_with naming no arg, one near", strings.Replace(base, "description: d, args", "description: d, narrow_with: [row], args", 1),
			`narrow_with[0]: "row" is not an arg of this action (did you mean "rows"?)`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := parseString(t, tt.src)
			if tt.err == "" {
				if err != nil {
					t.Fatalf("got %v, want the manifest accepted", err)
				}
				if !tt.check(m) {
					t.Fatalf("accepted, but got concurrency %d, memory %d", m.Concurrency, m.Memory)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("got %v, want an error with %q", err, tt.err)
			}
		})
	}
}

// nested is a YAML flow list holding a 1 inside depth brackets.
func nested(depth int) string {
	return strings.Repeat("[", depth) + "1" + strings.Repeat("]", depth)
}

// nestedObject is a YAML flow mapping holding a 1 inside depth mappings.
func nestedObject(depth int) string {
	return strings.Repeat("{a: ", depth) + "1" + strings.Repeat("}", depth)
}

// expanding is a YAML flow list whose first item anchors a list of n ones
// and whose other refs items are aliases of it: about 2n+6refs bytes that
// expand to n×refs nodes.
func expanding(n, refs int) string {
	return "[&big [" + strings.Repeat("1, ", n-1) + "1]" + strings.Repeat(", *big", refs) + "]"
}

// TestTheBudgetIsExact checks that a budget of n nodes reads a value of n
// nodes (the flow list and its items; an alias counts once more) and
// refuses it with one node less.
func TestTheBudgetIsExact(t *testing.T) {
	for _, tt := range []struct {
		src   string
		nodes int
	}{
		{"[1, 2]", 3},
		{"[&a 1, *a, *a]", 6},
	} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(tt.src), &doc); err != nil {
			t.Fatal(err)
		}
		for _, budget := range []int{tt.nodes, tt.nodes - 1} {
			p := &parser{file: "t.yaml", budget: budget}
			_, ok := p.toAny(doc.Content[0], "default", 0)
			if want := budget == tt.nodes; ok != want || (len(p.problems) == 0) != want {
				t.Errorf("%s with a budget of %d: got ok %v, problems %v; want ok %v", tt.src, budget, ok, p.problems, want)
			}
		}
	}
}

// TestParseMemoryUpToInt64 checks the largest size ParseMemory reads and
// the first it refuses as too large: 8388607TiB fits in an int64 of bytes,
// 8388608TiB does not.
func TestParseMemoryUpToInt64(t *testing.T) {
	if got, err := ParseMemory("8388607TiB"); err != nil || got != 8388607<<40 {
		t.Errorf("ParseMemory(8388607TiB): got %d, %v; want %d", got, err, int64(8388607)<<40)
	}
	if got, err := ParseMemory("8388608TiB"); err == nil || err.Error() != "8388608TiB is too large" {
		t.Errorf("ParseMemory(8388608TiB): got %d, %v; want the error \"8388608TiB is too large\"", got, err)
	}
}

// TestUsesAreWrittenBackAsGiven checks an agent's uses as the host quotes
// them in a refusal: a whole tool as its name, one action as tool/action.
func TestUsesAreWrittenBackAsGiven(t *testing.T) {
	m, err := parseString(t, "name: boss\nkind: agent\ndescription: d\nentrypoint: boss\nuses: [notes, xlsx/read-sheet]\nactions:\n  - {name: run, description: d}\n")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(m.UseNames(), ", "), "notes, xlsx/read-sheet"; got != want {
		t.Fatalf("got uses %q, want %q", got, want)
	}
}
