package main

import (
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/registry"
)

// TestApproveShippedApprovesOnlyUnchangedShippedFolders: `approve
// --shipped` approves a plugin folder only when its digest is the one the
// release built into the binary; a build from source says it knows of no
// shipped plugins and what to run instead.
func TestApproveShippedApprovesOnlyUnchangedShippedFolders(t *testing.T) {
	plugins := t.TempDir()
	dir := testplugin.Install(t, plugins, "1")
	d, err := registry.DigestFolder(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	oldShipped, oldDir := shipped, shippedPluginsDir
	t.Cleanup(func() { shipped, shippedPluginsDir = oldShipped, oldDir })
	shippedPluginsDir = func() string { return plugins }
	tests := []struct {
		name, shipped string
		code          int
		want          string
	}{
		{"built from source", "", 1, "built from source, not by `make release`"},
		{"changed since unpacking", "testtool=sha256:" + strings.Repeat("0", 64), 0,
			"left for a person to approve: testtool: its files are not the ones this release shipped"},
		{"not shipped", "other=" + d.Sum, 0, "left for a person to approve: testtool: not one of the plugins this release shipped"},
		{"as shipped", "testtool=" + d.Sum, 0, "testtool: approved (it was new)"},
	}
	state := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shipped = tt.shipped
			code, out, errOut := runHostState(t, plugins, state, "approve", "--shipped")
			if code != tt.code || !strings.Contains(out+errOut, tt.want) {
				t.Fatalf("approve --shipped: exit %d\n%s%s\nwant exit %d saying %q", code, out, errOut, tt.code, tt.want)
			}
			if approved := strings.Contains(out, "approved (it was new)"); approved != (tt.name == "as shipped") {
				t.Fatalf("approve --shipped approved: %v\n%s", approved, out)
			}
		})
	}
}

// TestVersionNamesTheCommitAndDate: `version` and `--version` print the
// version, the commit and date a release stamps, and the platform.
func TestVersionNamesTheCommitAndDate(t *testing.T) {
	oldVersion, oldCommit, oldDate := version, commit, date
	t.Cleanup(func() { version, commit, date = oldVersion, oldCommit, oldDate })
	version, commit, date = "1.2.3", "0123456789abcdef0123456789abcdef01234567", "2026-12-07T00:17:04Z"
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, errOut := runHostState(t, t.TempDir(), t.TempDir(), args...)
		if code != 0 || !strings.HasPrefix(out, "toolhost 1.2.3 commit 0123456789abcdef0123456789abcdef01234567 date 2026-12-07T00:17:04Z ") {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
	}
}

// TestInstallClientNamesTheShippedPluginsToApprove: in a release,
// install-client ends with the next step while a shipped plugin is not
// approved, and says nothing more once it is.
func TestInstallClientNamesTheShippedPluginsToApprove(t *testing.T) {
	plugins := t.TempDir()
	dir := testplugin.Install(t, plugins, "1")
	d, err := registry.DigestFolder(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	oldShipped, oldDir := shipped, shippedPluginsDir
	t.Cleanup(func() { shipped, shippedPluginsDir = oldShipped, oldDir })
	shipped, shippedPluginsDir = "testtool="+d.Sum, func() string { return plugins }
	t.Setenv("HOME", t.TempDir())
	state := t.TempDir()
	want := "next: approve the plugins this release shipped (testtool) with `host approve --shipped`; until then claude-code cannot run them"
	for _, step := range []struct {
		args []string
		hint bool
	}{
		{[]string{"install-client", "claude-code"}, true},
		{[]string{"approve", "--shipped"}, false},
		{[]string{"install-client", "claude-code"}, false},
	} {
		code, out, errOut := runHostState(t, plugins, state, step.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", step.args, code, out, errOut)
		}
		if step.args[0] == "install-client" && strings.Contains(out, want) != step.hint {
			t.Errorf("%v printed:\n%s\nwant the next step %q: %v", step.args, out, want, step.hint)
		}
	}
}
