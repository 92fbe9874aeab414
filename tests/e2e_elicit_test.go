package tests

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// TestElicitationAsksThePerson: with a real TypeScript client that declares
// elicitation on stdio, an irreversible run_tool call and an irreversible
// call nested in an agent (run_agent testagent relay) each ask the person
// through elicitation/create (legacy era); they run only on accept, decline
// and cancel answer denied, and HOST_DENY_IRREVERSIBLE=1 refuses without
// asking. In the 2026-07-28 era the top-level call asks through an
// input_required result whose signed requestState the client's retry
// carries back; the nested call, which cannot ask that way, keeps
// approval_required.
func TestElicitationAsksThePerson(t *testing.T) {
	node, _ := npmClients(t)
	calls, _ := json.Marshal([]map[string]any{
		{"name": "run_tool", "arguments": map[string]any{"tool": "testtool", "action": "delete-thing", "args": map[string]any{"text": "top"}}},
		{"name": "run_agent", "arguments": map[string]any{"agent": "testagent", "action": "relay",
			"args": map[string]any{"tool": "testtool", "action": "delete-thing", "args": map[string]any{"text": "nested"}}}},
	})
	tests := []struct {
		mode, answer string
		deny         bool
		wantRan      bool
		wantAsked    int
	}{
		{"sdk-legacy", "accept", false, true, 2},
		{"sdk-legacy", "decline", false, false, 2},
		{"v2-legacy", "accept", false, true, 2},
		{"v2-legacy", "cancel", false, false, 2},
		{"sdk-legacy", "accept", true, false, 0},
		{"v2-pin", "accept", false, true, 1},
		{"v2-pin", "decline", false, false, 1},
	}
	for _, tt := range tests {
		name := tt.mode + "-" + tt.answer
		if tt.deny {
			name += "-deny"
		}
		t.Run(name, func(t *testing.T) {
			var extra []string
			if tt.deny {
				extra = append(extra, "HOST_DENY_IRREVERSIBLE=1")
			}
			e := newEnv(t, extra...)
			testplugin.InstallAgent(t, e.plugins)
			e.vars = append(e.vars, "TS_ELICIT_CALLS="+string(calls))
			out := runNode(t, e, node, "clients/ts-elicit.mjs", tt.mode, tt.answer, hostBin)
			var got struct {
				Results []struct {
					IsError           bool           `json:"isError"`
					StructuredContent map[string]any `json:"structuredContent"`
				} `json:"results"`
				Asked []struct {
					Message string `json:"message"`
				} `json:"asked"`
			}
			if err := json.Unmarshal(out, &got); err != nil || len(got.Results) != 2 {
				t.Fatalf("client output %s: %v", out, err)
			}
			if len(got.Asked) != tt.wantAsked {
				t.Fatalf("asked %d times, want %d: %+v", len(got.Asked), tt.wantAsked, got.Asked)
			}
			modern := tt.mode == "v2-pin"
			if tt.wantAsked > 0 {
				for i, want := range []string{"Run testtool delete-thing?", "The agent testagent wants to run testtool delete-thing"}[:tt.wantAsked] {
					m := got.Asked[i].Message
					arg := []string{`"text": "top"`, `"text": "nested"`}[i]
					if !strings.Contains(m, want) || !strings.Contains(m, arg) || !strings.Contains(m, "cannot be undone") {
						t.Errorf("question %d: got %q, want it to say %q, the args (%s) and why it cannot be undone", i, m, want, arg)
					}
				}
			}
			top, nested := got.Results[0], got.Results[1]
			if modern {
				// A nested call cannot ask through input_required.
				if !nested.IsError || errorCode(nested.StructuredContent) != "approval_required" {
					t.Fatalf("nested call in the modern era: got %+v, want approval_required", nested)
				}
				if ran := !top.IsError && top.StructuredContent["text"] == "top"; ran != tt.wantRan || (!ran && errorCode(top.StructuredContent) != "denied") {
					t.Fatalf("top-level call: got %+v, want ran=%v (else denied)", top, tt.wantRan)
				}
				return
			}
			if tt.wantRan {
				relayed, _ := nested.StructuredContent["relayed"].(map[string]any)
				if top.IsError || top.StructuredContent["text"] != "top" || nested.IsError || relayed["text"] != "nested" {
					t.Fatalf("accepted calls did not run: %+v", got.Results)
				}
				return
			}
			for i, r := range got.Results {
				if !r.IsError || errorCode(r.StructuredContent) != "denied" {
					t.Fatalf("call %d: got %+v, want denied", i, r)
				}
			}
		})
	}
}
