package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/host/internal/npmserver"
	"github.com/toolhost/toolhost/manifests"
)

// npmOptions are new-plugin's --from-npm flags.
type npmOptions struct {
	spec, name string
	args, env  []string
	dryRun     bool
}

// newPluginFromNPM writes parent/NAME for the npm MCP server o.spec, or
// with o.dryRun shows what it would write.
func newPluginFromNPM(ctx context.Context, out io.Writer, parent string, o npmOptions) error {
	pl, err := planNPMPlugin(ctx, parent, o.spec, o.name, o.args, o.env)
	if err != nil {
		return fmt.Errorf("new-plugin: %w", err)
	}
	manifest, err := pl.Manifest()
	if err != nil {
		return fmt.Errorf("new-plugin: %w", err)
	}
	if o.dryRun {
		fmt.Fprintf(out, "would write %s (dry run, nothing written): %s\n%s", pl.Dir, strings.Join(pl.Files(), ", "), indentBlock(manifest))
		return nil
	}
	if err := npmserver.Write(ctx, "", pl, func(s string) { fmt.Fprintln(out, s) }); err != nil {
		return fmt.Errorf("new-plugin: %w", err)
	}
	fmt.Fprintf(out, "wrote %s: %s (%s@%s)\n", pl.Dir, strings.Join(pl.Files(), ", "), pl.Package.Name, pl.Package.Version)
	if !slices.Contains(absPaths(pluginPath()), filepath.Dir(pl.Dir)) {
		fmt.Fprint(out, notOnPluginPath(pl.Name, filepath.Dir(pl.Dir)))
		return nil
	}
	fmt.Fprintf(out, "next: %s starts the server, lists its tools and pins them; then they are actions of %s\n", hostCmd("approve "+pl.Name), pl.Name)
	return nil
}

// planNPMPlugin looks the package up and names its folder under parent
// (name defaults to the one the package suggests).
func planNPMPlugin(ctx context.Context, parent, spec, name string, args, env []string) (npmserver.Plugin, error) {
	if name == "" {
		pkg, _ := npmserver.Spec(spec)
		name = npmserver.ToolName(pkg)
	}
	if !manifests.IsKebab(name) {
		return npmserver.Plugin{}, fmt.Errorf("plugin name %q: use lowercase kebab-case, e.g. memory", name)
	}
	for _, e := range env {
		if manifests.HostOnlyEnv(e) {
			return npmserver.Plugin{}, fmt.Errorf("--env %s: the host passes its own HOST_* variables to no plugin", e)
		}
	}
	p, err := npmserver.Lookup(ctx, "", spec)
	if err != nil {
		return npmserver.Plugin{}, err
	}
	abs, err := filepath.Abs(parent)
	if err != nil {
		return npmserver.Plugin{}, err
	}
	pl := npmserver.Plugin{Name: name, Dir: filepath.Join(abs, name), Package: p, Args: args, Env: env}
	if _, err := pl.Package.Entrypoint(); err != nil {
		return pl, err
	}
	return pl, nil
}

// absPaths makes each folder of dirs absolute.
func absPaths(dirs []string) []string {
	out := make([]string, 0, len(dirs))
	for _, d := range dirs {
		if a, err := filepath.Abs(d); err == nil {
			out = append(out, a)
		}
	}
	return out
}

// indentBlock indents every line of s by four spaces.
func indentBlock(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			b.WriteString("    " + l)
		}
	}
	return b.String()
}
