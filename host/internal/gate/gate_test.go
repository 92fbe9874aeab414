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
		want       string // "" allowed
	}{
		{"read is allowed", "xlsx", "read-sheet", true, false, false, ""},
		{"postgres is not post", "postgres", "list-tables", true, false, false, ""},
		{"delete needs approval", "files", "delete-file", false, false, false, wire.CodeApprovalRequired},
		{"sent inflection", "mail", "list-sent", false, false, false, wire.CodeApprovalRequired},
		{"tool name counts", "payments-send", "status", false, false, false, wire.CodeApprovalRequired},
		{"flag alone counts", "db", "migrate", false, false, false, wire.CodeApprovalRequired},
		{"confirmed runs", "files", "delete-file", false, true, false, ""},
		{"deny refuses confirmed", "files", "delete-file", false, true, true, wire.CodeDenied},
		{"deny leaves reversible alone", "xlsx", "read-sheet", true, true, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &manifests.Manifest{Name: tt.tool}
			a := &manifests.Action{Name: tt.action, Reversible: tt.reversible}
			got := Check(m, a, tt.confirmed, tt.deny, "run_tool_confirmed")
			if got.GetCode() != tt.want {
				t.Fatalf("got %q (%s), want %q", got.GetCode(), got.GetMessage(), tt.want)
			}
			if tt.want == wire.CodeApprovalRequired && got.GetNextStep() == "" {
				t.Fatal("approval_required must name the confirmed twin")
			}
		})
	}
}
