// Package gate is the host's safety gate: one function that decides, before
// anything runs, whether a call may run on the tool it came through. Which
// actions are irreversible is the manifest's rule (Manifest.Irreversible:
// names and flags only, never argument values, so no text a model writes
// can talk it round); the gate applies it: confirmed, denied, or on a
// curated surface refused.
package gate

import (
	"fmt"

	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/sdk/wire"
)

// Check decides whether action a of m may run. confirmed is true when the
// call came through a *_confirmed tool (twin names it, e.g.
// "run_tool_confirmed"); deny is HOST_DENY_IRREVERSIBLE. An empty twin means
// the call came through a curated surface, which has no approval path: an
// irreversible action is refused outright (denied) — it can only get there
// when a manifest changed under a reviewed surface. It returns nil to allow,
// else the approval_required or denied envelope.
func Check(m *manifests.Manifest, a *manifests.Action, confirmed, deny bool, twin string) *wire.Error {
	irreversible, why := m.Irreversible(a)
	if !irreversible {
		return nil
	}
	if deny {
		return &wire.Error{Code: wire.CodeDenied,
			Message:  fmt.Sprintf("%s %s is irreversible (%s) and this host refuses irreversible actions (HOST_DENY_IRREVERSIBLE=1)", m.Name, a.Name, why),
			NextStep: "ask the user to run it themselves, or to unset HOST_DENY_IRREVERSIBLE"}
	}
	if twin == "" {
		return &wire.Error{Code: wire.CodeDenied,
			Message:  fmt.Sprintf("%s %s is irreversible (%s) and the curated surface runs reversible actions only: its manifest changed since the surface was reviewed", m.Name, a.Name, why),
			NextStep: "tell the user; the host's operator must run `host surface check` and re-review the surface"}
	}
	if confirmed {
		return nil
	}
	return &wire.Error{Code: wire.CodeApprovalRequired,
		Message:  fmt.Sprintf("%s %s is irreversible (%s): it needs the user's approval", m.Name, a.Name, why),
		NextStep: fmt.Sprintf("show the user exactly what will happen and, only if they approve, call %s with the same arguments", twin),
		Next:     &wire.Step{Run: wire.StepCall, Tool: m.Name, Action: a.Name, Confirm: true, Why: "if the user approves"}}
}
