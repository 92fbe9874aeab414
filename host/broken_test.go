package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// TestCallNamesABrokenManifest: calling a tool whose tool.yaml does not
// parse says so, with the manifest's error, instead of "no tool named".
func TestCallNamesABrokenManifest(t *testing.T) {
	plugins := t.TempDir()
	testplugin.WriteFile(t, filepath.Join(plugins, "badtool", "tool.yaml"),
		"name: badtool\nkind: tool\ndescription: Broken on purpose.\nversion: 0.1.0\nentrypoint: badtool\nactions:\n  - name: Read_It\n    description: x\n")
	code, out, errOut := runHost(t, plugins, "call", "badtool", "read-it")
	if code != 1 {
		t.Errorf("exit %d, want 1 (it cannot run; the command line is not wrong)", code)
	}
	for _, want := range []string{`"not_ready"`, "its manifest is broken", "tool.yaml:7", "Read_It"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s\n%s", want, out, errOut)
		}
	}
	// A name no folder has is still unknown, with did_you_mean.
	if _, out, _ := runHost(t, plugins, "call", "nosuch", "x"); !strings.Contains(out, `"unknown_tool"`) {
		t.Errorf("an unknown tool: %s", out)
	}
}

// TestCallHelpShowsTheExitCodes: `host call --help` shows the exit-code
// table, on stdout, and each code it names is what the command returns.
func TestCallHelpShowsTheExitCodes(t *testing.T) {
	plugins := t.TempDir()
	code, out, _ := runHost(t, plugins, "call", "--help")
	if code != 0 {
		t.Fatalf("--help exit %d", code)
	}
	for _, want := range []string{"Exit codes", "  0  the action ran", "  1  the action failed", "  2  the command line was wrong"} {
		if !strings.Contains(out, want) {
			t.Errorf("--help lacks %q:\n%s", want, out)
		}
	}
	if code, _, _ := runHost(t, plugins, "call", "nosuch", "x"); code != 2 {
		t.Errorf("unknown tool: exit %d, want 2 as the table says", code)
	}
}
