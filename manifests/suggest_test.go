package manifests

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSuggest(t *testing.T) {
	actions := []string{"list-credentials", "read-sheet", "list-sheets", "dump", "get-entry"}
	args := []string{"path", "sheet", "max-results", "session-handle"}
	tests := []struct {
		name       string
		candidates []string
		want       []string
	}{
		{"credential-list", actions, []string{"list-credentials"}},
		{"list_credentials", actions, []string{"list-credentials"}},
		{"read_sheet", actions, []string{"read-sheet"}},
		{"readSheet", actions, []string{"read-sheet"}},
		{"sheets-read", actions, []string{"read-sheet"}},
		{"sheet", actions, []string{"read-sheet", "list-sheets"}},
		{"get-entries", actions, []string{"get-entry"}},
		{"dumpp", actions, []string{"dump"}},
		{"max_results", args, []string{"max-results"}},
		{"maxResults", args, []string{"max-results"}},
		{"MaxResults", args, []string{"max-results"}},
		{"max-result", args, []string{"max-results"}},
		{"maxresults", args, []string{"max-results"}},
		{"pth", args, []string{"path"}},
		{"sesion_handle", args, []string{"session-handle"}},
		{"handle", args, []string{"session-handle"}},
		{"zzzzzz", args, nil},
		{"", args, nil},
		{"path", nil, nil},
		// At most three, best first, verbatim.
		{"list", []string{"list-a", "list-b", "list-c", "list-d"}, []string{"list-a", "list-b", "list-c"}},
		{"Table", []string{"table", "Tables"}, []string{"table", "Tables"}},
		// An exact candidate is not suggested for itself.
		{"path", []string{"path"}, nil},
		// Duplicates in candidates appear once.
		{"shet", []string{"sheet", "sheet"}, []string{"sheet"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Suggest(tt.name, tt.candidates)); diff != "" {
				t.Errorf("Suggest(%q) (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"max-results", []string{"max", "result"}},
		{"max_results", []string{"max", "result"}},
		{"maxResults", []string{"max", "result"}},
		{"HTTPServer", []string{"http", "server"}},
		{"list credentials", []string{"list", "credential"}},
		{"entries", []string{"entry"}},
		{"sheets", []string{"sheet"}},
		{"addresses", []string{"address"}},
		{"boxes", []string{"box"}},
		{"matches", []string{"match"}},
		{"caches", []string{"cache"}},
		{"status", []string{"status"}},
		{"class", []string{"class"}},
		{"analysis", []string{"analysis"}},
		{"bus", []string{"bus"}},
		{"v2-items", []string{"v2", "item"}},
		{"--", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, words(tt.in, true)); diff != "" {
			t.Errorf("words(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}
