package sdk

import (
	"os/exec"
	"strings"
	"testing"
)

// TestSDKLinksNoMarkdownRenderer: every plugin links the SDK, and Go runs
// the package initialisation of everything linked on every start, in CLI
// mode too. The terminal Markdown renderer (glamour, with a syntax
// highlighter whose lexers and styles are built at init) cost each start
// about 60 ms, more than a whole xlsx read of a mid-size sheet; it stays
// out unless a plugin sets Plugin.RenderMarkdown.
func TestSDKLinksNoMarkdownRenderer(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to list the SDK's dependencies")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, heavy := range []string{"charm.land/glamour", "github.com/alecthomas/chroma", "github.com/yuin/goldmark"} {
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, heavy) {
				t.Errorf("the SDK links %s: a plugin that renders no Markdown pays its init on every start", dep)
				break
			}
		}
	}
}
