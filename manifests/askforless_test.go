package manifests

import "testing"

// TestAskForLess: the next step of a result refused for its size names the
// action's narrow_with args, or asks for less when there are none or the
// action is unknown.
func TestAskForLess(t *testing.T) {
	tests := []struct {
		name string
		a    *Action
		want string
	}{
		{"unknown action", nil, "call again asking for less"},
		{"no narrow_with", &Action{Name: "a"}, "call again asking for less"},
		{"one", &Action{NarrowWith: []string{"range"}}, "call again with range to ask for less"},
		{"two", &Action{NarrowWith: []string{"range", "max-results"}}, "call again with range or max-results to ask for less"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.AskForLess(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
