package manifests

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// valuesManifest has the args whose values are compared by number, not by
// spelling: an enum of fractions and whole numbers, an integer enum at the
// edge of float64's exact range, and an array of nulls.
const valuesManifest = `name: t
description: d
entrypoint: t
actions:
  - name: act
    description: d
    args:
      - {name: ratio, type: number, enum: [0, 0.5, 1.5]}
      - {name: big, type: integer, enum: [9007199254740992]}
      - {name: gaps, type: array, items: {type: "null"}}
      - {name: level, type: integer}
`

// TestEnumComparesNumbersByValue checks the enum of a number arg and of an
// integer arg beyond 2^53: a value in the enum is taken however it is
// written, and one that is not — though it rounds or truncates to one that
// is — is refused naming the enum. The mutants it kills made 0.7 equal 0
// (an integer compared with a fraction's failed parse), 1.6 equal 1.5
// (fractions rounded to one digit) and 2^53+1 equal 2^53 (integers compared
// as float64).
func TestEnumComparesNumbersByValue(t *testing.T) {
	m, err := ParseBytes("t.yaml", []byte(valuesManifest))
	if err != nil {
		t.Fatal(err)
	}
	a := m.Action("act")
	tests := []struct {
		name, args string
		want       any    // the checked value of the one arg given
		message    string // or the refusal
	}{
		{"a fraction in the enum", `{"ratio": 1.5}`, 1.5, ""},
		{"a fraction written another way", `{"ratio": 15e-1}`, 1.5, ""},
		{"zero", `{"ratio": 0}`, 0.0, ""},
		{"zero written as a fraction", `{"ratio": 0.0}`, 0.0, ""},
		{"a fraction between zero and the next", `{"ratio": 0.7}`, nil, "arg 'ratio': number 0.7 is not one of 0, 0.5, 1.5"},
		{"a fraction that rounds to one in the enum", `{"ratio": 1.6}`, nil, "arg 'ratio': number 1.6 is not one of 0, 0.5, 1.5"},
		{"a whole number near one", `{"ratio": 1}`, nil, "arg 'ratio': number 1 is not one of 0, 0.5, 1.5"},
		{"2^53 exactly", `{"big": 9007199254740992}`, int64(9007199254740992), ""},
		{"2^53+1, equal to 2^53 as a float64", `{"big": 9007199254740993}`, nil, "arg 'big': number 9007199254740993 is not one of 9007199254740992"},
		{"an array of nulls", `{"gaps": [null, null]}`, []any{nil, nil}, ""},
		{"a number among nulls", `{"gaps": [null, 0]}`, nil, "arg 'gaps': item 1: want null, got number 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := a.Check(json.RawMessage(tt.args))
			if tt.message != "" {
				var ae *ArgError
				if !errors.As(err, &ae) || ae.Message != tt.message {
					t.Fatalf("Check(%s): got %v, %v; want the error %q", tt.args, got, err, tt.message)
				}
				return
			}
			if err != nil {
				t.Fatalf("Check(%s): %v", tt.args, err)
			}
			var name string
			for k := range got {
				name = k
			}
			if diff := cmp.Diff(map[string]any{name: tt.want}, got); len(got) != 1 || diff != "" {
				t.Fatalf("Check(%s) (-want +got):\n%s", tt.args, diff)
			}
		})
	}
}

// TestAStringOfFortyCharactersIsQuotedWhole checks the wrong-type message:
// a string of up to 40 characters is shown whole, a longer one cut with
// "…" (TestCheckErrors has the long one).
func TestAStringOfFortyCharactersIsQuotedWhole(t *testing.T) {
	m, err := ParseBytes("t.yaml", []byte(valuesManifest))
	if err != nil {
		t.Fatal(err)
	}
	forty := strings.Repeat("é", 40)
	for _, tt := range []struct{ given, shown string }{
		{forty, forty},
		{forty + "x", forty + "…"},
	} {
		_, err := m.Action("act").Check(json.RawMessage(`{"level": "` + tt.given + `"}`))
		want := `arg 'level': want integer, got string "` + tt.shown + `"`
		var ae *ArgError
		if !errors.As(err, &ae) || ae.Message != want {
			t.Errorf("a string of %d characters: got %v, want %q", len([]rune(tt.given)), err, want)
		}
	}
}

// TestContributes checks which manifests add prompts or resources: any
// one kind of them, or more than one, does.
func TestContributes(t *testing.T) {
	base := "name: t\ndescription: d\nentrypoint: t\nactions:\n  - {name: act, description: d}\n"
	for _, tt := range []struct {
		name, extra string
		want        bool
	}{
		{"actions only", "", false},
		{"a prompt", "prompts:\n  - {name: p, description: d}\n", true},
		{"a resource", "resources:\n  - {uri: 't://a', name: a, description: d}\n", true},
		{"a resource template", "resource_templates:\n  - {uri_template: 't://page/{+path}', name: page}\n", true},
		{"a resource and a template", "resources:\n  - {uri: 't://a', name: a, description: d}\nresource_templates:\n  - {uri_template: 't://page/{+path}', name: page}\n", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseBytes("t.yaml", []byte(base+tt.extra))
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Contributes(); got != tt.want {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestAResourceURIIsMoreThanItsScheme checks that a resource's URI names
// something after "<tool>://": the scheme alone is refused.
func TestAResourceURIIsMoreThanItsScheme(t *testing.T) {
	for _, tt := range []struct{ uri, err string }{
		{"x://", `resources[0].uri: "x://" must start with "x://": a resource's scheme is its tool's name`},
		{"x://a", ""},
	} {
		_, err := parseString(t, contentHead+"resources:\n  - {uri: \""+tt.uri+"\", name: i}\n")
		if got := fmt.Sprint(err); tt.err == "" && err != nil || tt.err != "" && !strings.Contains(got, tt.err) {
			t.Errorf("resource %q: got %v, want %q", tt.uri, err, tt.err)
		}
	}
}
