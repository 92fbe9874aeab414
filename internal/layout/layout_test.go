package layout

import (
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/toolhost/toolhost"

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
	Standard   bool
}

// listPackages runs `go list -json -deps=false` over the whole module.
func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", module+"/...")
	cmd.Dir = "../.."
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(out)
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("go list: %v", err)
	}
	return pkgs
}

// under reports whether the import path is the module's folder prefix or
// inside it.
func under(path, prefix string) bool {
	return path == module+"/"+prefix || strings.HasPrefix(path, module+"/"+prefix+"/")
}

// TestImportDirections checks docs/design.md's layout rules on every package.
func TestImportDirections(t *testing.T) {
	for _, p := range listPackages(t) {
		rel := strings.TrimPrefix(p.ImportPath, module+"/")
		me := p.ImportPath
		for _, dep := range p.Deps {
			switch {
			case under(me, "sdk") && (under(dep, "host") || under(dep, "registry")):
				t.Errorf("%s depends on %s: sdk never imports host or registry", p.ImportPath, dep)
			case under(me, "host") && (dep == module+"/sdk" || strings.HasPrefix(dep, module+"/plugins/")):
				t.Errorf("%s depends on %s: host never imports sdk (the author API) or plugins", p.ImportPath, dep)
			case under(me, "registry") && (strings.HasPrefix(dep, module+"/host") || strings.HasPrefix(dep, module+"/sdk") ||
				strings.Contains(dep, "hashicorp/go-plugin") || strings.Contains(dep, "modelcontextprotocol")):
				t.Errorf("%s depends on %s: registry imports manifests only, never host, sdk, go-plugin or MCP", p.ImportPath, dep)
			case under(me, "manifests") && strings.Contains(dep, ".") && !strings.HasPrefix(dep, "gopkg.in/yaml.v3") &&
				!strings.HasPrefix(dep, "github.com/agnivade/levenshtein") &&
				!strings.HasPrefix(dep, "github.com/yosida95/uritemplate/") && !isStd(dep):
				// uritemplate checks the RFC 6570 resource templates a
				// manifest declares (the MCP SDK's own parser, so the host
				// accepts exactly what it will serve).
				t.Errorf("%s depends on %s: manifests imports only yaml.v3, levenshtein, uritemplate and the standard library", p.ImportPath, dep)
			case (under(me, "host/internal/mcpserver") && under(dep, "host/internal/surface")) ||
				(under(me, "host/internal/surface") && under(dep, "host/internal/mcpserver")):
				t.Errorf("%s depends on %s: the generic and the curated surface never import each other", p.ImportPath, dep)
			case under(me, "host/internal/mcpproto") && (under(dep, "host/internal/mcpserver") || under(dep, "host/internal/surface")):
				t.Errorf("%s depends on %s: the protocol layer imports neither surface", p.ImportPath, dep)
			case under(me, "host/internal/mcpproto") && under(dep, "host/internal/dispatch"):
				t.Errorf("%s depends on %s: the protocol layer does not know the domain (host/internal/toolresult turns an outcome into a result)", p.ImportPath, dep)
			case under(me, "cli") && (under(dep, "host") || under(dep, "registry") || dep == module+"/sdk" || strings.HasPrefix(dep, module+"/plugins/")):
				t.Errorf("%s depends on %s: cli (shared by host call and plugin CLI mode) imports only manifests and sdk/wire", p.ImportPath, dep)
			case under(dep, "tests") && !under(me, "tests"):
				t.Errorf("%s depends on %s: nothing imports tests", p.ImportPath, dep)
			}
		}
		if strings.HasPrefix(rel, "plugins/") {
			own := module + "/" + strings.Join(strings.SplitN(rel, "/", 3)[:2], "/")
			for _, imp := range p.Imports {
				// cli/markdown is the optional terminal renderer a plugin
				// whose results carry Markdown sets (sdk.Plugin.RenderMarkdown);
				// it stays out of sdk so that no other plugin pays its start-up.
				// cli/table, the terminal's table printer, is what a plugin
				// rendering its own Markdown without glamour fits tables with.
				// manifests holds the types of a manifest; like sdk, it never
				// reaches the host.
				if strings.HasPrefix(imp, module+"/") && imp != module+"/sdk" && imp != module+"/cli/markdown" && imp != module+"/cli/table" && imp != module+"/manifests" && imp != own && !strings.HasPrefix(imp, own+"/") {
					t.Errorf("%s imports %s: a plugin imports only sdk, cli/markdown, cli/table, manifests and its own packages", p.ImportPath, imp)
				}
			}
		}
	}
}

// isStd reports whether an import path looks like the standard library's
// vendored golang.org/x packages, which `go list -deps` shows as
// vendor/golang.org/x/….
func isStd(dep string) bool { return strings.HasPrefix(dep, "vendor/") }

// TestSurfacesShareOneProtocolLayer: the generic surface (mcpserver) and
// the curated one (surface) both speak MCP through mcpproto, and neither
// imports the other (TestImportDirections enforces that part for every
// package, tests included, through Deps).
func TestSurfacesShareOneProtocolLayer(t *testing.T) {
	found := map[string]pkg{}
	for _, p := range listPackages(t) {
		found[p.ImportPath] = p
	}
	proto := module + "/host/internal/mcpproto"
	for _, s := range []string{"host/internal/mcpserver", "host/internal/surface"} {
		p, ok := found[module+"/"+s]
		if !ok {
			t.Fatalf("no package %s", s)
		}
		if !slices.Contains(p.Imports, proto) {
			t.Errorf("%s does not import %s: both surfaces must share the one protocol layer", s, proto)
		}
		for _, other := range []string{"host/internal/mcpserver", "host/internal/surface"} {
			if other != s && slices.ContainsFunc(p.Deps, func(d string) bool { return under(d, other) }) {
				t.Errorf("%s depends on %s: the surfaces never import each other", s, other)
			}
		}
	}
}
