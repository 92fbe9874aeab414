package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/toolhost/toolhost/host/internal/clientconfig"
	"github.com/toolhost/toolhost/host/internal/npmserver"
	"github.com/toolhost/toolhost/manifests"
)

// serverSource is one mcpServers object in one of a client's config files.
type serverSource struct {
	file  string
	loc   []string // the member names leading to the object
	scope string   // what the client calls it
}

// importPlan is what becomes of one server entry.
type importPlan struct {
	src   serverSource
	name  string // the entry's name in the config
	shown string // its command line (or url), for the person
	// plugin is the folder the entry becomes, when it can be imported.
	plugin npmserver.Plugin
	// env holds the entry's variables: their values move to the toolhost
	// entry's env, their names into tool.yaml.
	env map[string]string
	// sameAs, when set, is the entry already planned that this one is
	// identical to: one plugin serves both.
	sameAs *importPlan
	// why says why the entry cannot be imported; empty when it can.
	why string
}

// sharedScope is the scope of a project's .mcp.json, which its team shares.
const sharedScope = "project, shared"

// importSources lists the config files and objects holding c's servers.
func importSources(c clientconfig.Client, main string) ([]serverSource, error) {
	switch c.Name {
	case "claude-desktop":
		return []serverSource{{file: main, loc: []string{"mcpServers"}, scope: "Claude Desktop"}}, nil
	case "claude-code":
		srcs := []serverSource{{file: main, loc: []string{"mcpServers"}, scope: "user"}}
		if doc, err := os.ReadFile(main); err == nil && len(strings.TrimSpace(string(doc))) > 0 {
			projects, err := clientconfig.Projects(doc)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", main, err)
			}
			for _, p := range projects {
				srcs = append(srcs, serverSource{file: main, loc: []string{"projects", p, "mcpServers"}, scope: "local to " + p})
			}
		}
		if wd, err := os.Getwd(); err == nil {
			srcs = append(srcs, serverSource{file: filepath.Join(wd, ".mcp.json"), loc: []string{"mcpServers"}, scope: sharedScope})
		}
		return srcs, nil
	}
	return nil, fmt.Errorf("--import-servers reads Claude Code's and Claude Desktop's configs (claude-code, claude-desktop), not %s's", c.Name)
}

var nonKebab = regexp.MustCompile(`[^a-z0-9]+`)

// planImport reads every server entry of srcs and decides what becomes
// of it, looking each npm package up.
func planImport(ctx context.Context, srcs []serverSource, dir string, hostEnv map[string]string) ([]*importPlan, error) {
	var plans []*importPlan
	looked := map[string]lookup{}
	byName := map[string]*importPlan{}
	envOwner := map[string]*importPlan{}
	for _, src := range srcs {
		doc, err := os.ReadFile(src.file)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && len(strings.TrimSpace(string(doc))) == 0) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", src.file, err)
		}
		entries, names, err := clientconfig.Servers(doc, src.loc...)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", src.file, err)
		}
		for _, n := range names {
			if n == clientconfig.ServerName {
				continue
			}
			p := &importPlan{src: src, name: n}
			plans = append(plans, p)
			p.why = planEntry(ctx, p, entries[n], dir, looked)
			if p.why != "" {
				continue
			}
			if q := byName[p.plugin.Name]; q != nil {
				if sameServer(p, q) {
					p.sameAs = q
					continue
				}
				p.why = fmt.Sprintf("the entry %s (%s) becomes the plugin %s already: rename one of them in the client's config and run again", q.name, q.src.scope, p.plugin.Name)
				continue
			}
			for k, v := range p.env {
				if h, ok := hostEnv[k]; ok && h != v {
					p.why = fmt.Sprintf("its %s differs from the one the toolhost entry sets already, and the host passes one value of each variable to every plugin that names it", k)
				}
				if q := envOwner[k]; q != nil && q.env[k] != v {
					p.why = fmt.Sprintf("its %s differs from the one of %s (%s), and the host passes one value of each variable to every plugin that names it", k, q.name, q.src.scope)
				}
			}
			if p.why != "" {
				continue
			}
			for k := range p.env {
				if envOwner[k] == nil {
					envOwner[k] = p
				}
			}
			byName[p.plugin.Name] = p
		}
	}
	return plans, nil
}

// lookup is npm's answer for one package spec, asked once per import.
type lookup struct {
	pkg npmserver.Package
	err error
}

// planEntry fills p from one config entry; it returns why the entry
// cannot be imported, or "".
func planEntry(ctx context.Context, p *importPlan, e map[string]any, dir string, looked map[string]lookup) string {
	typ, _ := e["type"].(string)
	if url, ok := e["url"].(string); ok || (typ != "" && typ != "stdio") {
		p.shown = strings.TrimSpace(typ + " " + url)
		return "a remote server: toolhost hosts local servers it supervises, not remote ones; keep it in the client's config"
	}
	command, _ := e["command"].(string)
	var args []string
	if raw, ok := e["args"].([]any); ok {
		for _, a := range raw {
			s, ok := a.(string)
			if !ok {
				return fmt.Sprintf("its args hold %v, not a string", a)
			}
			args = append(args, s)
		}
	}
	p.shown = strings.TrimSpace(command + " " + strings.Join(args, " "))
	p.env = map[string]string{}
	if raw, ok := e["env"].(map[string]any); ok {
		for k, v := range raw {
			s, ok := v.(string)
			if !ok {
				return fmt.Sprintf("its env %s is %v, not a string", k, v)
			}
			if manifests.HostOnlyEnv(k) {
				return fmt.Sprintf("its env names %s, and the host passes its own HOST_* variables to no plugin", k)
			}
			p.env[k] = s
		}
	}
	spec, serverArgs, why := npmserver.FromCommand(command, args)
	if why != "" {
		return why
	}
	name := strings.Trim(nonKebab.ReplaceAllString(strings.ToLower(p.name), "-"), "-")
	if !manifests.IsKebab(name) {
		pkg, _ := npmserver.Spec(spec)
		name = npmserver.ToolName(pkg)
	}
	pl := npmserver.Plugin{Name: name, Dir: filepath.Join(dir, name), Args: serverArgs}
	for k := range p.env {
		pl.Env = append(pl.Env, k)
	}
	sort.Strings(pl.Env)
	if _, err := os.Stat(pl.Dir); err == nil {
		return fmt.Sprintf("%s exists already: remove it or rename the entry, and run again", pl.Dir)
	}
	for _, d := range pluginPath() {
		if _, err := os.Stat(filepath.Join(d, name, "tool.yaml")); err == nil {
			return fmt.Sprintf("a plugin named %s is in %s already: rename the entry in the client's config and run again", name, d)
		}
	}
	l, seen := looked[spec]
	if !seen {
		l.pkg, l.err = npmserver.Lookup(ctx, "", spec)
		looked[spec] = l
	}
	pkg, err := l.pkg, l.err
	if err != nil {
		return err.Error()
	}
	pl.Package = pkg
	if _, err := pkg.Entrypoint(); err != nil {
		return err.Error()
	}
	p.plugin = pl
	return ""
}

// sameServer reports whether two entries start the same server the same way.
func sameServer(a, b *importPlan) bool {
	return a.plugin.Package.Name == b.plugin.Package.Name && a.plugin.Package.Version == b.plugin.Package.Version &&
		slices.Equal(a.plugin.Args, b.plugin.Args) && fmt.Sprint(a.env) == fmt.Sprint(b.env)
}

// importServers is `install-client CLIENT --import-servers`: a dry run
// unless confirm.
func importServers(ctx context.Context, out io.Writer, c clientconfig.Client, main, exe, dir string, confirm bool) error {
	srcs, err := importSources(c, main)
	if err != nil {
		return err
	}
	hostEnv := map[string]string{}
	if doc, err := os.ReadFile(main); err == nil && len(strings.TrimSpace(string(doc))) > 0 {
		cur, _, err := clientconfig.Servers(doc, c.Key)
		if err != nil {
			return fmt.Errorf("%s: %w", main, err)
		}
		if env, ok := cur[clientconfig.ServerName]["env"].(map[string]any); ok {
			for k, v := range env {
				hostEnv[k] = fmt.Sprint(v)
			}
		}
	}
	plans, err := planImport(ctx, srcs, dir, hostEnv)
	if err != nil {
		return err
	}
	var ok, bad []*importPlan
	for _, p := range plans {
		if p.why == "" {
			ok = append(ok, p)
		} else {
			bad = append(bad, p)
		}
	}
	if !confirm {
		fmt.Fprintf(out, "dry run, nothing written (--confirm does it): %s's servers\n", c.Name)
	}
	if len(plans) == 0 {
		fmt.Fprintf(out, "no server entries to import in %s\n", strings.Join(sourceFiles(srcs), ", "))
		return nil
	}
	fmt.Fprintf(out, "%d of %d server entries become plugin folders in %s:\n", len(ok), len(plans), dir)
	for _, p := range ok {
		fmt.Fprintf(out, "  %s (%s, %s): %s\n", p.name, p.src.scope, p.src.file, p.shown)
		if p.src.scope == sharedScope {
			fmt.Fprintf(out, "      %s is the project's, often shared through git: the entry leaves it for everyone who checks it out\n", filepath.Base(p.src.file))
		}
		if p.sameAs != nil {
			fmt.Fprintf(out, "      the same server as %s (%s): its plugin %s serves both\n", p.sameAs.name, p.sameAs.src.scope, p.plugin.Name)
			continue
		}
		fmt.Fprintf(out, "      -> %s  %s@%s  args %q\n", p.plugin.Dir, p.plugin.Package.Name, p.plugin.Package.Version, p.plugin.Args)
		if len(p.plugin.Env) > 0 {
			fmt.Fprintf(out, "      env %s: the values move to the toolhost entry's env in %s; tool.yaml gets the names only\n", strings.Join(p.plugin.Env, ", "), main)
		}
	}
	if len(bad) > 0 {
		fmt.Fprintf(out, "%d cannot be imported and stay in the client's config as they are:\n", len(bad))
		for _, p := range bad {
			fmt.Fprintf(out, "  %s (%s, %s): %s\n      %s\n", p.name, p.src.scope, p.src.file, p.shown, p.why)
		}
	}
	if len(ok) == 0 {
		return nil
	}
	files := editedFiles(ok, main)
	if !confirm {
		fmt.Fprintf(out, "then: the imported entries leave %s (each backed up first as FILE.bak-import-TIME) and the toolhost entry serves them from %s\n",
			strings.Join(files, " and "), main)
		return nil
	}
	// The folders first: an entry leaves its config only once its folder is there.
	var done []*importPlan
	var failed []string
	for _, p := range ok {
		if p.sameAs == nil {
			if err := npmserver.Write(ctx, "", p.plugin, nil); err != nil {
				p.why = err.Error()
				failed = append(failed, fmt.Sprintf("%s: %v", p.name, err))
				continue
			}
			fmt.Fprintf(out, "wrote %s (%s@%s)\n", p.plugin.Dir, p.plugin.Package.Name, p.plugin.Package.Version)
		} else if p.sameAs.why != "" {
			continue
		}
		done = append(done, p)
	}
	if len(done) > 0 {
		if err := rewriteConfigs(out, c, done, main, exe, dir); err != nil {
			return err
		}
		var names []string
		for _, p := range done {
			if p.sameAs == nil {
				names = append(names, p.plugin.Name)
			}
		}
		fmt.Fprintf(out, "next: %s starts each server, lists its tools and pins them; then restart %s\n", hostCmd("approve "+strings.Join(names, " ")), c.Name)
	}
	if len(failed) > 0 {
		return fmt.Errorf("could not write %d plugin folder(s); their entries stay in the config:\n  %s", len(failed), strings.Join(failed, "\n  "))
	}
	return nil
}

func sourceFiles(srcs []serverSource) []string {
	var out []string
	for _, s := range srcs {
		if !slices.Contains(out, s.file) {
			out = append(out, s.file)
		}
	}
	return out
}

// editedFiles lists the config files an import changes: those the
// imported entries leave, and main, which gets the toolhost entry.
func editedFiles(done []*importPlan, main string) []string {
	out := []string{main}
	for _, p := range done {
		if !slices.Contains(out, p.src.file) {
			out = append(out, p.src.file)
		}
	}
	return out
}

// rewriteConfigs takes the imported entries out of their files and puts
// the toolhost entry, with the entries' env values, into main; each file
// is backed up first.
func rewriteConfigs(out io.Writer, c clientconfig.Client, done []*importPlan, main, exe, dir string) error {
	now := time.Now()
	for _, file := range editedFiles(done, main) {
		o, err := clientconfig.Rewrite(file, false, now, func(doc []byte) ([]byte, bool, error) {
			changed := false
			for _, p := range done {
				if p.src.file != file {
					continue
				}
				d, ch, err := clientconfig.RemoveAt(doc, p.src.loc, p.name)
				if err != nil {
					return nil, false, err
				}
				doc, changed = d, changed || ch
			}
			if file != main {
				return doc, changed, nil
			}
			entry, err := toolhostEntry(c, doc, exe, dir, done)
			if err != nil {
				return nil, false, err
			}
			d, ch, err := clientconfig.Set(doc, c.Key, clientconfig.ServerName, entry)
			return d, changed || ch, err
		})
		if err != nil {
			return fmt.Errorf("install-client: %w (the plugin folders are written; the config is as it was)", err)
		}
		if o.Changed {
			fmt.Fprintf(out, "changed %s", o.Path)
			if o.Backup != "" {
				fmt.Fprintf(out, " (as it was: %s)", o.Backup)
			}
			fmt.Fprintln(out)
		}
	}
	return nil
}

// toolhostEntry is the host's entry for main: the client's own form, with
// the env of the entry already there, the imported entries' env values,
// and HOST_PLUGIN_PATH when dir is not a folder the host reads by default.
func toolhostEntry(c clientconfig.Client, doc []byte, exe, dir string, done []*importPlan) (map[string]any, error) {
	entry := c.Entry(exe)
	env := map[string]any{}
	if len(strings.TrimSpace(string(doc))) > 0 {
		cur, _, err := clientconfig.Servers(doc, c.Key)
		if err != nil {
			return nil, err
		}
		if old, ok := cur[clientconfig.ServerName]["env"].(map[string]any); ok {
			for k, v := range old {
				env[k] = v
			}
		}
	}
	for _, p := range done {
		for k, v := range p.env {
			env[k] = v
		}
	}
	if !slices.Contains(defaultPluginPath(), dir) {
		if pp, _ := env["HOST_PLUGIN_PATH"].(string); !slices.Contains(filepath.SplitList(pp), dir) {
			env["HOST_PLUGIN_PATH"] = dir + string(os.PathListSeparator) + pp
		}
	}
	if len(env) > 0 {
		entry["env"] = env
	}
	return entry, nil
}
