package gate

import (
	"strings"
	"testing"

	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/sdk/wire"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name       string
		tool       string
		action     string
		reversible bool
		confirmed  bool
		deny       bool
		twin       string    // "" is a curated surface: no approval path
		want       wire.Code // "" allowed
	}{
		{"read is allowed", "xlsx", "read-sheet", true, false, false, "run_tool_confirmed", ""},
		{"postgres is not post", "postgres", "list-tables", true, false, false, "run_tool_confirmed", ""},
		// The name rule alone: each of these claims reversible, and the
		// irreversible word in a name still wins.
		{"delete needs approval", "files", "delete-file", true, false, false, "run_tool_confirmed", wire.CodeApprovalRequired},
		{"sent inflection", "mail", "list-sent", true, false, false, "run_tool_confirmed", wire.CodeApprovalRequired},
		{"tool name counts", "payments-send", "status", true, false, false, "run_tool_confirmed", wire.CodeApprovalRequired},
		{"name rule denied", "files", "delete-file", true, true, true, "run_tool_confirmed", wire.CodeDenied},
		{"name rule on a curated surface", "mail", "send", true, false, false, "", wire.CodeDenied},
		{"flag alone counts", "db", "migrate", false, false, false, "run_tool_confirmed", wire.CodeApprovalRequired},
		{"confirmed runs", "files", "delete-file", false, true, false, "run_tool_confirmed", ""},
		{"deny refuses confirmed", "files", "delete-file", false, true, true, "run_tool_confirmed", wire.CodeDenied},
		{"deny leaves reversible alone", "xlsx", "read-sheet", true, true, true, "run_tool_confirmed", ""},
		{"curated surface refuses outright", "files", "delete-file", false, false, false, "", wire.CodeDenied},
		{"curated surface refuses even confirmed", "db", "migrate", false, true, false, "", wire.CodeDenied},
		{"curated surface runs reversible", "xlsx", "read-sheet", true, false, false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &manifests.Manifest{Name: tt.tool}
			a := &manifests.Action{Name: tt.action, Reversible: tt.reversible}
			got := Check(m, a, tt.confirmed, tt.deny, tt.twin)
			if tt.want == "" {
				if got != nil {
					t.Fatalf("got %v, want the call allowed", got)
				}
				return
			}
			if got == nil || got.Code != tt.want {
				t.Fatalf("got %v, want %q", got, tt.want)
			}
			if tt.want == wire.CodeApprovalRequired && !strings.Contains(got.NextStep, tt.twin) {
				t.Fatalf("approval_required next_step %q does not name the confirmed twin %s", got.NextStep, tt.twin)
			}
		})
	}
}
