package main

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/sdk/wire"
)

// TestCommandNameIsAsTyped: hints spell the host command as the person
// typed it: the bare name only when PATH finds that very file.
func TestCommandNameIsAsTyped(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake executables are shell scripts, which PATH lookup on Windows does not find")
	}
	dir := filepath.Join(t.TempDir(), "bin")
	must(t, os.MkdirAll(dir, 0o755))
	exe := filepath.Join(dir, "host")
	must(t, os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755))
	other := t.TempDir()
	must(t, os.WriteFile(filepath.Join(other, "host"), []byte("#!/bin/sh\n"), 0o755)) // bind9's host, say
	for _, tc := range []struct{ argv0, path, want string }{
		{"host", other, "host"},
		{exe, other, exe},
		{exe, dir, "host"},
		{exe, other + string(os.PathListSeparator) + dir, exe}, // PATH finds another host first
	} {
		t.Setenv("PATH", tc.path)
		if got := commandName(tc.argv0); got != tc.want {
			t.Errorf("argv0 %q, PATH %q: %q, want %q", tc.argv0, tc.path, got, tc.want)
		}
	}
}

// TestHintsSpellTheCommandAsTyped: a next step, a skill's did-you-mean and
// a usage error name `bin/host …` when that is how the host was run.
func TestHintsSpellTheCommandAsTyped(t *testing.T) {
	old := invokedAs
	invokedAs = "bin/host"
	t.Cleanup(func() { invokedAs = old })
	for _, s := range []*wire.Step{{Run: wire.StepSkill, Tool: "xlsx"}, {Run: wire.StepCall, Tool: "xlsx", Action: "describe"}, {Tool: "xlsx"}} {
		if got := hostWords(s); !strings.Contains(got, "`bin/host ") {
			t.Errorf("hostWords(%+v) = %q, want `bin/host …`", s, got)
		}
	}
	_, _, errOut := runHostState(t, t.TempDir(), t.TempDir(), "skill", "nope")
	if !strings.Contains(errOut, "`bin/host list`") {
		t.Errorf("host skill nope: %q, want it to name `bin/host list`", errOut)
	}
	if msg := notOnPluginPath("hello", "/x"); !strings.Contains(msg, "`bin/host approve hello`") {
		t.Errorf("new-plugin's advice: %q, want `bin/host approve hello`", msg)
	}
}

// TestUsageErrorsExitTwo: an unknown command (even one with a
// did-you-mean), an unknown flag and a missing argument exit 2, as `host
// call` does for a wrong arg, each saying the next step once.
func TestUsageErrorsExitTwo(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"new"}, []string{`unknown command "new": did you mean new-plugin?`, "next: run `host --help`"}},
		{[]string{"frobnicate"}, []string{`unknown command "frobnicate"`, "next: run `host --help`"}},
		{[]string{"list", "--bogus"}, []string{"unknown flag: --bogus", "next: run `host list --help`"}},
		{[]string{"skill"}, []string{"skill: accepts 1 arg(s), received 0", "next: run `host skill --help`"}},
		{[]string{"surface", "check", "--nope"}, []string{"unknown flag: --nope", "next: run `host surface check --help`"}},
	} {
		var out, errOut strings.Builder
		code := run(context.Background(), tc.args, &out, &errOut)
		if code != 2 {
			t.Errorf("host %s: exit %d, want 2\n%s", strings.Join(tc.args, " "), code, errOut.String())
		}
		for _, w := range tc.want {
			if strings.Count(errOut.String(), w) != 1 {
				t.Errorf("host %s: stderr %q, want %q once", strings.Join(tc.args, " "), errOut.String(), w)
			}
		}
	}
}
