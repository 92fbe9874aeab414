package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// TestInstallClientCommands runs install-client and uninstall-client as a
// person does: a dry run shows the diff and writes nothing, a second install
// says it is already there, opencode's existing opencode.jsonc is edited
// (no opencode.json beside it), uninstall takes the entry out again.
func TestInstallClientCommands(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	jsonc := filepath.Join(home, ".config", "opencode", "opencode.jsonc")
	orig := "{\n  // mine\n  \"theme\": \"dark\",\n}\n"
	testplugin.WriteFile(t, jsonc, orig)
	steps := []struct {
		args []string
		want string
	}{
		{[]string{"install-client", "opencode", "--dry-run"}, "would change " + jsonc},
		{[]string{"install-client", "opencode"}, "added toolhost to " + jsonc},
		{[]string{"install-client", "opencode"}, "already installed in " + jsonc},
		{[]string{"uninstall-client", "opencode", "--dry-run"}, "-    \"toolhost\""},
		{[]string{"uninstall-client", "opencode"}, "took toolhost out of " + jsonc},
		{[]string{"uninstall-client", "opencode"}, "not installed in " + jsonc},
	}
	for i, s := range steps {
		code, out, errOut := runHost(t, t.TempDir(), s.args...)
		if code != 0 || !strings.Contains(out, s.want) {
			t.Fatalf("step %d %v: exit %d, stdout %q (stderr %q), want %q", i, s.args, code, out, errOut, s.want)
		}
		if i == 0 {
			if got, _ := os.ReadFile(jsonc); string(got) != orig {
				t.Fatalf("the dry run wrote the file:\n%s", got)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "opencode", "opencode.json")); err == nil {
		t.Error("opencode.json was written beside the existing opencode.jsonc")
	}
	if got, _ := os.ReadFile(jsonc); string(got) != orig {
		t.Errorf("after install and uninstall the file is\n%s\nwant\n%s", got, orig)
	}
	if code, _, errOut := runHost(t, t.TempDir(), "uninstall-client", "cursr"); code != 1 || !strings.Contains(errOut, "did you mean cursor") {
		t.Errorf("unknown client: exit %d, %q", code, errOut)
	}
}
