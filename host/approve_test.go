package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// TestApproveShowsTheManifestDiffAndWithheldVariables: `host approve`
// prints a changed manifest's env as a diff and says that the host's own
// variable it asks for is withheld; `host check` says so too.
func TestApproveShowsTheManifestDiffAndWithheldVariables(t *testing.T) {
	plugins := t.TempDir()
	dir := testplugin.Install(t, plugins, "1")
	state := t.TempDir()
	testplugin.Approve(t, plugins, state)
	manifest := filepath.Join(dir, "tool.yaml")
	b, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), "env: [TESTTOOL_PASS]", "env: [TESTTOOL_PASS, HOST_HTTP_TOKEN, AWS_SECRET_ACCESS_KEY]", 1)
	if err := os.WriteFile(manifest, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runHostState(t, plugins, state, "approve", "testtool")
	if code != 0 {
		t.Fatalf("approve: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"- env: TESTTOOL_PASS\n",
		"+ env: TESTTOOL_PASS, HOST_HTTP_TOKEN, AWS_SECRET_ACCESS_KEY\n",
		"withheld: HOST_HTTP_TOKEN is the host's own",
		"changed files: ~tool.yaml",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("approve printed:\n%s\nwant it to say %q", out, want)
		}
	}
	_, out, _ = runHostState(t, plugins, state, "check")
	if !strings.Contains(out, "warn testtool: "+manifest+" asks for HOST_HTTP_TOKEN, the host's own") {
		t.Errorf("check printed:\n%s\nwant it to name HOST_HTTP_TOKEN as withheld", out)
	}
}
