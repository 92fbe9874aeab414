package sdk

import (
	"os"
	"os/exec"
	"regexp"
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
	deps := sdkDeps(t)
	for _, heavy := range []string{"charm.land/glamour", "github.com/alecthomas/chroma", "github.com/yuin/goldmark"} {
		for _, dep := range deps {
			if strings.HasPrefix(dep, heavy) {
				t.Errorf("the SDK links %s: a plugin that renders no Markdown pays its init on every start", dep)
				break
			}
		}
	}
}

// TestPluginTagsLeaveOutGRPCTrace: built with the Makefile's PLUGIN_TAGS
// (as make plugins builds every plugin), the SDK links no
// golang.org/x/net/trace. gRPC's request tracing, which go-plugin never
// turns on, cost every start its package init (~30 KB of allocations, ~30
// page faults); a tag gRPC drops, or a new dependency that imports the
// package itself, brings that back.
func TestPluginTagsLeaveOutGRPCTrace(t *testing.T) {
	makefile, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^PLUGIN_TAGS \?= *(.*)$`).FindSubmatch(makefile)
	if m == nil {
		t.Fatal("the Makefile sets no PLUGIN_TAGS: make plugins builds the plugins with gRPC's tracing")
	}
	for _, dep := range sdkDeps(t, "-tags", string(m[1])) {
		if dep == "golang.org/x/net/trace" {
			t.Errorf("built with -tags %q the SDK still links %s: every plugin start pays its init", m[1], dep)
		}
	}
}

// sdkDeps lists the packages the SDK links, built with flags.
func sdkDeps(t *testing.T, flags ...string) []string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to list the SDK's dependencies")
	}
	out, err := exec.Command(goBin, append(append([]string{"list", "-deps"}, flags...), ".")...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	return strings.Fields(string(out))
}
