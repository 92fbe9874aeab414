package docs

import (
	"os/exec"
	"testing"
)

// TestGitIgnoresWhatTheDocumentedStepsWrite: following the README and
// docs/plugin-authors.md (make, make notes-model, make release, building
// and approving examples/hello, new-plugin --from-npm into plugins/) leaves `git status` clean: what those steps write is
// ignored, and the sources beside it are not.
func TestGitIgnoresWhatTheDocumentedStepsWrite(t *testing.T) {
	root := repoRoot(t)
	for _, tc := range []struct {
		path    string
		ignored bool
	}{
		{"plugins.lock", true},
		{"examples.lock", true},
		{"examples/hello/hello", true},
		{"plugins/notes/notes", true},
		{"plugins/notes/model/node_modules/.installed", true},
		{"plugins/memory/node_modules/@modelcontextprotocol/server-memory/dist/index.js", true},
		{"plugins/memory/package-lock.json", false},
		{"plugins/memory/package.json", false},
		{"dist/toolhost_0.1.0_checksums.txt", true},
		{"examples/hello/main.go", false},
		{"examples/hello/tool.yaml", false},
		{"examples/hello/testdata/x", false},
	} {
		err := exec.Command("git", "-C", root, "check-ignore", "-q", "--no-index", tc.path).Run()
		ignored := err == nil
		if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
			t.Fatalf("git check-ignore %s: %v", tc.path, err)
		}
		if ignored != tc.ignored {
			t.Errorf("%s: git ignores it: %v, want %v", tc.path, ignored, tc.ignored)
		}
	}
}
