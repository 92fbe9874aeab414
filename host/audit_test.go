package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// TestAuditLogsConfirmedAndRefused: `host call` through the gate, then
// `host audit` reads back the confirmed call and the refused one, with the
// arg names and never their values.
func TestAuditLogsConfirmedAndRefused(t *testing.T) {
	plugins, state := t.TempDir(), t.TempDir()
	testplugin.Install(t, plugins, "1")
	testplugin.Approve(t, plugins, state)
	for _, args := range [][]string{
		{"call", "testtool", "echo", "--arg", "text=not audited"},
		{"call", "testtool", "delete-thing", "--arg", "text=TOPSECRET-1", "--confirm"},
		{"call", "testtool", "delete-thing", "--arg", "text=TOPSECRET-2"},
	} {
		runHostState(t, plugins, state, args...)
	}
	code, out, errOut := runHostState(t, plugins, state, "audit", "--json")
	if code != 0 {
		t.Fatalf("audit: exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "TOPSECRET") || strings.Contains(out, "not audited") {
		t.Fatalf("the audit log holds an argument value:\n%s", out)
	}
	var got []struct {
		Client, Tool, Action, Outcome string
		Args                          []string
		Confirmed, Irreversible       bool
		Time                          time.Time
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("got %d entries, want the confirmed and the refused call:\n%s", len(got), out)
	}
	for i, want := range []struct {
		confirmed bool
		outcome   string
	}{{true, "ok"}, {false, "approval_required"}} {
		e := got[i]
		if e.Client != "host-cli" || e.Tool != "testtool" || e.Action != "delete-thing" || strings.Join(e.Args, ",") != "text" ||
			e.Confirmed != want.confirmed || !e.Irreversible || e.Outcome != want.outcome || time.Since(e.Time) > time.Hour {
			t.Errorf("entry %d: %+v, want confirmed=%v outcome=%s", i, e, want.confirmed, want.outcome)
		}
	}
	tests := []struct {
		name string
		args []string
		want string
		code int
	}{
		{"table", []string{"audit"}, "approval_required", 0},
		{"since", []string{"audit", "--since", "1h"}, "delete-thing", 0},
		{"since a day", []string{"audit", "--since", "1d", "--json"}, `"outcome": "ok"`, 0},
		{"future", []string{"audit", "--since", time.Now().Add(time.Hour).Format(time.RFC3339), "--json"}, "[]", 0},
		{"other tool", []string{"audit", "--tool", "xlsx", "--json"}, "[]", 0},
		{"bad since", []string{"audit", "--since", "yesterday"}, "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runHostState(t, plugins, state, tt.args...)
			if code != tt.code || !strings.Contains(out, tt.want) {
				t.Fatalf("exit %d, want %d; stdout lacks %q:\n%s%s", code, tt.code, tt.want, out, errOut)
			}
		})
	}
}

// TestApproveCommand: a new tool is listed as needing approval, `host
// approve` shows what it declares and makes it ready; HOST_DEV=1 runs it
// unapproved, saying so on stderr.
func TestApproveCommand(t *testing.T) {
	plugins, state := t.TempDir(), t.TempDir()
	testplugin.Install(t, plugins, "1")
	if code, out, _ := runHostState(t, plugins, state, "call", "testtool", "echo", "--arg", "text=x"); code != 1 || !strings.Contains(out, "host approve testtool") {
		t.Fatalf("an unapproved tool ran: exit %d\n%s", code, out)
	}
	if _, out, _ := runHostState(t, plugins, state, "audit", "--json"); !strings.Contains(out, `"outcome": "not_ready"`) {
		t.Fatalf("the refused call to an unapproved tool is not in the audit log:\n%s", out)
	}
	t.Setenv("HOST_DEV", "1")
	code, out, errOut := runHostState(t, plugins, state, "call", "testtool", "echo", "--arg", "text=dev")
	if code != 0 || !strings.Contains(out, "dev") || !strings.Contains(errOut, "approval lock is OFF") {
		t.Fatalf("HOST_DEV=1: exit %d\n%s\nstderr: %s", code, out, errOut)
	}
	t.Setenv("HOST_DEV", "")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"nothing named", []string{"approve"}, 1, ""},
		{"unknown", []string{"approve", "testtoll"}, 1, ""},
		{"new", []string{"approve", "testtool"}, 0, "testtool: approved (it was new)"},
		{"again", []string{"approve", "--all"}, 0, "testtool: already approved, unchanged"},
		{"ready", []string{"list"}, 0, "ready"},
		{"runs", []string{"call", "testtool", "echo", "--arg", "text=approved"}, 0, "approved"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runHostState(t, plugins, state, tt.args...)
			if code != tt.code || !strings.Contains(out, tt.want) {
				t.Fatalf("exit %d, want %d; stdout lacks %q:\n%s%s", code, tt.code, tt.want, out, errOut)
			}
		})
	}
}
