package gate

import (
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
		twin       string // "" is a curated surface: no approval path
		want       string // "" allowed
	}{
		{"read is allowed", "xlsx", "read-sheet", true, false, false, "run_tool_confirmed", ""},
		{"postgres is not post", "postgres", "list-tables", true, false, false, "run_tool_confirmed", ""},
		{"delete needs approval", "files", "delete-file", false, false, false, "run_tool_confirmed", wire.CodeApprovalRequired},
		{"sent inflection", "mail", "list-sent", false, false, false, "run_tool_confirmed", wire.CodeApprovalRequired},
		{"tool name counts", "payments-send", "status", false, false, false, "run_tool_confirmed", wire.CodeApprovalRequired},
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
			if got.GetCode() != tt.want {
				t.Fatalf("got %q (%s), want %q", got.GetCode(), got.GetMessage(), tt.want)
			}
			if tt.want == wire.CodeApprovalRequired && got.GetNextStep() == "" {
				t.Fatal("approval_required must name the confirmed twin")
			}
		})
	}
}
