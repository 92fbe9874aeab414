// Package npmserver installs an MCP server published on npm into a plugin
// folder, for `host new-plugin --from-npm` and `host install-client
// --import-servers`: a package.json pinning the exact version, the
// package-lock.json and node_modules npm writes from it with install
// scripts off, and a tool.yaml (protocol: mcp) whose entrypoint is the
// script the package's bin names. Nothing is fetched when the plugin runs.
package npmserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Package is what npm says about one version of a package.
type Package struct {
	Name        string
	Version     string
	Description string
	// Bin maps each command the package installs to its script, relative
	// to the package's folder.
	Bin map[string]string
	// Dependencies are the package's own dependencies, by name.
	Dependencies map[string]string
	Keywords     []string
}

// Spec splits "name@version" (the name may be scoped: "@scope/name@1.2.3");
// version is "" when the spec names none.
func Spec(s string) (name, version string) {
	at := strings.LastIndexByte(s, '@')
	if at <= 0 {
		return s, ""
	}
	return s[:at], s[at+1:]
}

var npmName = regexp.MustCompile(`^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$`)

// mcpLibraries are the packages an MCP server is built on: a package that
// depends on none of them and does not call itself an MCP server is
// refused before anything is installed.
var mcpLibraries = []string{"@modelcontextprotocol/sdk", "fastmcp", "mcp-framework", "@mastra/mcp", "mcp-proxy"}

// Lookup asks npm (npmCmd, "npm" when empty) for the package spec names:
// an exact version, a range or a dist-tag ("latest" when spec has none);
// a range resolves to the newest version it matches. It fails with a
// clear error when npm has no such package or version, and when the
// package is not an MCP server: no bin to start, or neither an MCP
// library among its dependencies nor "mcp" in its name or keywords.
func Lookup(ctx context.Context, npmCmd, spec string) (Package, error) {
	name, version := Spec(spec)
	if !npmName.MatchString(name) {
		return Package{}, fmt.Errorf("npm package %q: not a package name (want NAME@VERSION, e.g. @modelcontextprotocol/server-memory@2026.8.31)", spec)
	}
	if version == "" {
		version = "latest"
	}
	if npmCmd == "" {
		npmCmd = "npm"
	}
	c := exec.CommandContext(ctx, npmCmd, "view", name+"@"+version, "name", "version", "description", "bin", "dependencies", "keywords", "--json")
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if errors.Is(err, exec.ErrNotFound) {
		return Package{}, fmt.Errorf("npm view %s: npm is not installed: install Node.js (which brings npm)", spec)
	}
	var fail struct {
		Error struct {
			Code, Summary string
		} `json:"error"`
	}
	if json.Unmarshal(out, &fail) == nil && fail.Error.Code != "" {
		if fail.Error.Code == "E404" {
			if strings.HasPrefix(fail.Error.Summary, "No match found") {
				return Package{}, fmt.Errorf("npm view %s: %s has no version %s; `npm view %s versions` lists them", spec, name, version, name)
			}
			return Package{}, fmt.Errorf("npm view %s: npm has no package %s: check its name", spec, name)
		}
		return Package{}, fmt.Errorf("npm view %s: %s %s", spec, fail.Error.Code, firstLine(fail.Error.Summary))
	}
	if err != nil {
		return Package{}, fmt.Errorf("npm view %s: %w: %s", spec, err, firstLine(stderr.String()))
	}
	// A range matching several versions gives a list, oldest first.
	var list []json.RawMessage
	if json.Unmarshal(out, &list) == nil {
		if len(list) == 0 {
			return Package{}, fmt.Errorf("npm view %s: %s has no version matching %s", spec, name, version)
		}
		out = list[len(list)-1]
	}
	if len(bytes.TrimSpace(out)) == 0 {
		return Package{}, fmt.Errorf("npm view %s: %s has no version matching %s", spec, name, version)
	}
	var raw struct {
		Name, Version, Description string
		Bin                        json.RawMessage
		Dependencies               map[string]string
		Keywords                   []string
	}
	if err := json.Unmarshal(out, &raw); err != nil {
		return Package{}, fmt.Errorf("npm view %s: %w", spec, err)
	}
	p := Package{Name: raw.Name, Version: raw.Version, Description: strings.TrimSpace(raw.Description),
		Dependencies: raw.Dependencies, Keywords: raw.Keywords, Bin: map[string]string{}}
	var one string
	if json.Unmarshal(raw.Bin, &one) == nil && one != "" {
		p.Bin[unscoped(p.Name)] = one
	} else {
		_ = json.Unmarshal(raw.Bin, &p.Bin)
	}
	if len(p.Bin) == 0 {
		return p, fmt.Errorf("npm package %s@%s is not an MCP server toolhost can start: its package.json names no bin (the command `npx %s` would run)", p.Name, p.Version, p.Name)
	}
	if !p.looksMCP() {
		return p, fmt.Errorf("npm package %s@%s does not look like an MCP server: it depends on no MCP library (%s) and neither its name nor its keywords say mcp", p.Name, p.Version, strings.Join(mcpLibraries, ", "))
	}
	return p, nil
}

func (p Package) looksMCP() bool {
	for _, l := range mcpLibraries {
		if _, ok := p.Dependencies[l]; ok {
			return true
		}
	}
	if strings.Contains(strings.ToLower(p.Name), "mcp") {
		return true
	}
	return slices.ContainsFunc(p.Keywords, func(k string) bool {
		k = strings.ToLower(k)
		return k == "mcp" || strings.Contains(k, "model context protocol") || strings.Contains(k, "modelcontextprotocol")
	})
}

// Command is the bin the server starts with: the only one, else the one
// named like the package, else the only one whose name says mcp.
func (p Package) Command() (string, error) {
	names := make([]string, 0, len(p.Bin))
	for n := range p.Bin {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 1 {
		return names[0], nil
	}
	if _, ok := p.Bin[unscoped(p.Name)]; ok {
		return unscoped(p.Name), nil
	}
	var mcp []string
	for _, n := range names {
		if strings.Contains(n, "mcp") {
			mcp = append(mcp, n)
		}
	}
	if len(mcp) == 1 {
		return mcp[0], nil
	}
	return "", fmt.Errorf("npm package %s@%s has several commands (%s) and none is plainly the server: write its tool.yaml's entrypoint by hand", p.Name, p.Version, strings.Join(names, ", "))
}

// Entrypoint is the server's script, relative to the plugin folder.
func (p Package) Entrypoint() (string, error) {
	cmd, err := p.Command()
	if err != nil {
		return "", err
	}
	rel := path.Clean(strings.TrimPrefix(filepath.ToSlash(p.Bin[cmd]), "./"))
	if rel == "." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
		return "", fmt.Errorf("npm package %s@%s: its bin %s points outside the package (%q)", p.Name, p.Version, cmd, p.Bin[cmd])
	}
	return path.Join("node_modules", p.Name, rel), nil
}

// ToolName is the plugin name the package suggests: its unscoped name in
// kebab-case without the words saying it is an MCP server
// ("@modelcontextprotocol/server-memory" is "memory").
func ToolName(pkg string) string {
	n := strings.ToLower(unscoped(pkg))
	if scope, _, ok := strings.Cut(strings.TrimPrefix(pkg, "@"), "/"); ok && (n == "mcp" || n == "server" || n == "mcp-server") {
		n = strings.ToLower(scope) // @playwright/mcp is playwright
	}
	n = regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(n, "-")
	for _, affix := range []string{"mcp-server-", "server-", "mcp-"} {
		if s, ok := strings.CutPrefix(n, affix); ok && s != "" {
			n = s
			break
		}
	}
	for _, affix := range []string{"-mcp-server", "-server-mcp", "-mcp", "-server"} {
		if s, ok := strings.CutSuffix(n, affix); ok && s != "" {
			n = s
			break
		}
	}
	n = strings.Trim(n, "-")
	if n == "" || n[0] < 'a' || n[0] > 'z' {
		n = "mcp-" + n
	}
	return strings.TrimSuffix(n, "-")
}

func unscoped(name string) string {
	if i := strings.IndexByte(name, '/'); i >= 0 {
		return name[i+1:]
	}
	return name
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// Plugin is one plugin folder to write for an npm server.
type Plugin struct {
	// Name is the tool's name, kebab-case.
	Name string
	// Dir is the folder to create; it must not exist yet.
	Dir string
	// Package is the server's package, looked up with Lookup.
	Package Package
	// Args are the server's command-line arguments.
	Args []string
	// Env names the host's environment variables passed to the server.
	Env []string
}

// Manifest is the plugin's tool.yaml.
func (pl Plugin) Manifest() (string, error) {
	entry, err := pl.Package.Entrypoint()
	if err != nil {
		return "", err
	}
	desc := pl.Package.Description
	if desc == "" {
		desc = "MCP server " + pl.Package.Name
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# The MCP server %s@%s from npm, pinned by package.json and\n", pl.Package.Name, pl.Package.Version)
	b.WriteString("# package-lock.json beside this file (installed with scripts off).\n")
	fmt.Fprintf(&b, "name: %s\nkind: tool\nprotocol: mcp\ndescription: %s\nversion: %s\n", pl.Name, yamlString(desc), yamlString(pl.Package.Version))
	fmt.Fprintf(&b, "entrypoint: %s\ninterpreter: node\n", yamlString(entry))
	b.WriteString("args: " + yamlList(pl.Args) + "\n")
	b.WriteString("env: " + yamlList(pl.Env) + "\n")
	return b.String(), nil
}

// yamlString quotes s as JSON (which YAML reads) unless it is plain.
func yamlString(s string) string {
	if regexp.MustCompile(`^[A-Za-z0-9_./@][A-Za-z0-9 _./@()+,-]*$`).MatchString(s) && !strings.HasSuffix(s, " ") && !strings.Contains(s, ": ") {
		return s
	}
	b, _ := json.Marshal(s)
	return string(b)
}

func yamlList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		b, _ := json.Marshal(x)
		q[i] = string(b)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// packageJSON pins the server's exact version.
func (pl Plugin) packageJSON() ([]byte, error) {
	b, err := json.MarshalIndent(map[string]any{
		"name":         "toolhost-plugin-" + pl.Name,
		"private":      true,
		"description":  fmt.Sprintf("The MCP server %s for toolhost, pinned; install with npm ci --ignore-scripts", pl.Package.Name),
		"dependencies": map[string]string{pl.Package.Name: pl.Package.Version},
	}, "", "  ")
	return append(b, '\n'), err
}

// Files lists what Write writes, for a dry run.
func (pl Plugin) Files() []string {
	return []string{"tool.yaml", "package.json", "package-lock.json", "node_modules/"}
}

// Write creates pl.Dir: package.json, then package-lock.json and
// node_modules from `npm install --ignore-scripts` (npmCmd, "npm" when
// empty; its output goes to log), then tool.yaml once the entrypoint is
// there. On failure it removes the folder it created.
func Write(ctx context.Context, npmCmd string, pl Plugin, log func(string)) (err error) {
	manifest, err := pl.Manifest()
	if err != nil {
		return err
	}
	if _, err := os.Stat(pl.Dir); err == nil {
		return fmt.Errorf("%s exists already: pick another name or remove it", pl.Dir)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	pj, err := pl.packageJSON()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(pl.Dir, 0o755); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(pl.Dir)
		}
	}()
	if err := os.WriteFile(filepath.Join(pl.Dir, "package.json"), pj, 0o644); err != nil {
		return err
	}
	if npmCmd == "" {
		npmCmd = "npm"
	}
	args := []string{"install", "--ignore-scripts", "--no-bin-links", "--no-audit", "--no-fund", "--save-exact"}
	if log != nil {
		log("$ npm " + strings.Join(args, " "))
	}
	c := exec.CommandContext(ctx, npmCmd, args...)
	c.Dir = pl.Dir
	out, err := c.CombinedOutput()
	if err != nil {
		return fmt.Errorf("npm install %s@%s: %w\n%s", pl.Package.Name, pl.Package.Version, err, strings.TrimSpace(string(out)))
	}
	entry, _ := pl.Package.Entrypoint()
	if _, err := os.Stat(filepath.Join(pl.Dir, filepath.FromSlash(entry))); err != nil {
		return fmt.Errorf("npm package %s@%s: its bin's script %s is not in the installed package", pl.Package.Name, pl.Package.Version, entry)
	}
	return os.WriteFile(filepath.Join(pl.Dir, "tool.yaml"), []byte(manifest), 0o644)
}
