package sdk

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
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

// TestManifestsBuildsNothingAtStart: every plugin links manifests, and Go
// runs its package initialisation on every start, CLI mode included. Its
// name patterns and word lists are matched by code and scanned as static
// lists; a package-level regexp or map built there (66 KB in 783
// allocations before) is paid by every call. The test binary, started
// again with GODEBUG=inittrace=1, reports what the package's init
// allocated.
func TestManifestsBuildsNothingAtStart(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run the test binary again: %v\n%s", err, out)
	}
	// init github.com/toolhost/toolhost/manifests @28 ms, 0.74 ms clock, 22304 bytes, 359 allocs
	m := regexp.MustCompile(`(?m)^init github\.com/toolhost/toolhost/manifests @.* clock, (\d+) bytes, (\d+) allocs$`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("GODEBUG=inittrace=1 printed no line for the manifests package:\n%s", out)
	}
	const most = 1024
	if n, _ := strconv.Atoi(string(m[1])); n > most {
		t.Errorf("manifests allocates %s bytes in %s allocations at package init, want at most %d: build tables on first use (sync.OnceValue) or as static data", m[1], m[2], most)
	}
}
