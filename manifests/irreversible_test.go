package manifests

import (
	"strings"
	"testing"
)

func TestIrreversibleWord(t *testing.T) {
	tests := []struct {
		name, word string
	}{
		// The verbs and their inflections, as whole words.
		{"send", "send"},
		{"send-message", "send"},
		{"sends", "sends"},
		{"resend-sent-items", "sent"},
		{"sending-queue", "sending"},
		{"delete-messages", "delete"},
		{"deleted", "deleted"},
		{"bulk-deleting", "deleting"},
		{"remove-user", "remove"},
		{"pay", "pay"},
		{"paid-invoices", "paid"},
		{"post-comment", "post"},
		{"list-posts", "posts"},
		{"publish", "publish"},
		{"transfer-funds", "transfer"},
		{"purge-cache", "purge"},
		{"destroy-vm", "destroy"},
		{"revoke-token", "revoke"},
		{"drop-table", "drop"},
		{"dropped", "dropped"},
		{"wipe", "wipe"},
		{"erase-disk", "erase"},
		{"truncate-log", "truncate"},
		{"kill-process", "kill"},
		{"terminate-instance", "terminate"},
		{"charge-card", "charge"},
		{"refund", "refund"},
		{"withdraw", "withdraw"},
		{"overwrite-file", "overwrite"},
		{"submit-form", "submit"},
		{"rm", "rm"},
		// Two-word phrases.
		{"issue-invoice", "issue-invoice"},
		{"issued-invoices", "issued-invoices"},
		{"billing-issue-invoice", "issue-invoice"},
		{"force-push", "force-push"},
		// Case and separators other than '-' (names the gate may see
		// before validation).
		{"Send_Message", "send"},
		{"sendMessage", "send"},
		{"DELETE", "delete"},
		// Not whole words, nouns, or nothing at all.
		{"postgres", ""},
		{"dropdown", ""},
		{"sender-info", ""},
		{"publisher", ""},
		{"payment-status", ""},
		{"removable", ""},
		{"issue", ""},
		{"invoice", ""},
		{"list-issues", ""},
		{"invoice-issue", ""},
		{"force", ""},
		{"push", ""},
		{"read-sheet", ""},
		{"xlsx", ""},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			word, ok := IrreversibleWord(tt.name)
			if word != tt.word || ok != (tt.word != "") {
				t.Errorf("IrreversibleWord(%q): got %q %v, want %q %v", tt.name, word, ok, tt.word, tt.word != "")
			}
		})
	}
}

func TestParseGateInvariant(t *testing.T) {
	// After a successful parse an action irreversible by name is never
	// Reversible, whatever it left out.
	m, err := ParseBytes("f", []byte(`name: mail
description: d
entrypoint: mail
actions:
  - {name: send-message, description: d}
  - {name: delete-message, description: d, reversible: false}
  - {name: list-messages, description: d, read_only: true}
  - {name: list-posts, description: d}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range m.Actions {
		_, byName := IrreversibleWord(a.Name)
		if byName && (a.Reversible || a.ReadOnly) {
			t.Errorf("%s: irreversible by name but reversible %v read_only %v", a.Name, a.Reversible, a.ReadOnly)
		}
		if !byName && a.Name == "list-messages" && !a.Reversible {
			t.Errorf("%s: read_only but not reversible", a.Name)
		}
	}
}

func TestManifestIrreversible(t *testing.T) {
	tests := []struct {
		name       string
		tool       string
		action     string
		reversible bool
		want       bool
		why        string // in the reason
	}{
		{"reversible and plainly named", "xlsx", "read-sheet", true, false, ""},
		{"action name alone", "files", "delete-file", true, true, `action name "delete-file" contains the irreversible verb "delete"`},
		{"tool name alone", "payments-send", "status", true, true, `tool name "payments-send" contains the irreversible verb "send"`},
		{"tool name named first", "send-mail", "delete-draft", true, true, `tool name "send-mail"`},
		{"phrase", "git", "force-push", true, true, `"force-push"`},
		{"flag alone", "db", "migrate", false, true, "db migrate is not declared reversible"},
		{"noun is not the verb", "mail", "sender-info", true, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &Manifest{Name: tt.tool}
			got, why := m.Irreversible(&Action{Name: tt.action, Reversible: tt.reversible})
			if got != tt.want || !strings.Contains(why, tt.why) || (!got && why != "") {
				t.Errorf("Irreversible = %v, %q; want %v with %q", got, why, tt.want, tt.why)
			}
		})
	}
}
