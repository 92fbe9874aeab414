package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/toolhost/toolhost/host/internal/scaffold"
)

// toolhostModule is the module path a Go plugin requires.
const toolhostModule = "github.com/toolhost/toolhost"

func newNewPluginCmd() *cobra.Command {
	var o scaffold.Options
	var parent, clone string
	var npm npmOptions
	cmd := &cobra.Command{
		Use:   "new-plugin NAME [--kind tool|agent] [--lang go|python] [--dir DIR] | new-plugin --from-npm PACKAGE@VERSION [NAME]",
		Short: "Write a new plugin folder, build it, run its test and approve it, ready to call",
		Long: "new-plugin writes DIR/NAME (DIR: the first plugins folder, by default) with a tool.yaml, one action\n" +
			"(greet) and its test, in Go on the SDK or in Python on the runtime of sdk/python; then builds it, runs\n" +
			"its test, approves the folder and shows it as `host list` does. A Go plugin outside the toolhost\n" +
			"module gets a go.mod whose replace points at the toolhost clone (--toolhost, default: this installation).\n\n" +
			"With --from-npm it writes a folder for the MCP server PACKAGE@VERSION published on npm instead: tool.yaml\n" +
			"(protocol: mcp, entrypoint: the script the package's bin names), package.json pinning that exact version,\n" +
			"and package-lock.json and node_modules from npm with install scripts off. NAME defaults to the package's\n" +
			"name without its scope and \"server\"/\"mcp\" (memory for @modelcontextprotocol/server-memory). The\n" +
			"server runs only after `approve NAME`, which lists its tools and pins them.",
		Args: func(cmd *cobra.Command, args []string) error {
			if npm.spec != "" {
				return cobra.RangeArgs(0, 1)(cmd, args)
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if parent == "" {
				parent = pluginPath()[0]
			}
			if npm.spec != "" {
				if len(args) == 1 {
					npm.name = args[0]
				}
				return newPluginFromNPM(cmd.Context(), cmd.OutOrStdout(), parent, npm)
			}
			o.Name = args[0]
			abs, err := filepath.Abs(parent)
			if err != nil {
				return fmt.Errorf("new-plugin: %w", err)
			}
			o.Dir = filepath.Join(abs, o.Name)
			out := cmd.OutOrStdout()
			root := moduleRoot(abs)
			if o.Lang == "go" && root == "" {
				if clone == "" && isToolhostClone(installDir()) {
					clone = installDir()
				}
				if clone == "" || !isToolhostClone(clone) {
					return errors.New("new-plugin: a Go plugin outside the toolhost module needs a toolhost clone for its go.mod's replace: give --toolhost DIR")
				}
				o.Replace, _ = filepath.Abs(clone)
			}
			files, err := scaffold.Write(o)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "wrote %s: %s\n", o.Dir, strings.Join(files, ", "))
			if err := buildAndTest(cmd.Context(), out, o, root); err != nil {
				return fmt.Errorf("new-plugin: %w (the folder is left as written: fix it, then %s)", err, hostCmd("approve "+o.Name))
			}
			a := newAppDev(cmd.ErrOrStderr(), hclog.Warn, false, false)
			defer a.close()
			if t, _ := a.registry.Scan().Tool(o.Name); t == nil {
				fmt.Fprint(out, notOnPluginPath(o.Name, abs))
				return nil
			}
			changes, err := a.registry.Approve([]string{o.Name}, approver()+" via host new-plugin")
			if err != nil {
				return fmt.Errorf("new-plugin: approve: %w", err)
			}
			printApproval(out, changes)
			fmt.Fprintln(out)
			snap := a.registry.Scan()
			t, _ := snap.Tool(o.Name)
			status := "ready"
			if !t.Ready {
				status = "not ready: " + t.NotReady
			}
			fmt.Fprintf(out, "%s  %s  %s  %d action(s)  %s\n", t.Name(), t.Manifest.Kind, t.Manifest.Version, len(t.Manifest.Actions), status)
			fmt.Fprintf(out, "try it: %s\n", hostCmd("call "+o.Name+" greet --arg name=Ana"))
			return nil
		},
	}
	cmd.Flags().StringVar(&o.Kind, "kind", "tool", "tool or agent")
	cmd.Flags().StringVar(&o.Lang, "lang", "go", "go or python")
	cmd.Flags().StringVar(&parent, "dir", "", "the folder to create NAME in (default: the first plugins folder)")
	cmd.Flags().StringVar(&npm.spec, "from-npm", "", "write a folder for the MCP server PACKAGE@VERSION from npm")
	cmd.Flags().StringArrayVar(&npm.args, "server-arg", nil, "with --from-npm: an argument the server starts with (repeat for several)")
	cmd.Flags().StringArrayVar(&npm.env, "env", nil, "with --from-npm: the name of an environment variable the server gets from the host's (repeat for several)")
	cmd.Flags().BoolVar(&npm.dryRun, "dry-run", false, "with --from-npm: show the folder and its tool.yaml and write nothing")
	cmd.Flags().StringVar(&clone, "toolhost", "", "a toolhost clone for a Go plugin's go.mod replace (default: this installation, when it is one)")
	return cmd
}

// isToolhostClone reports whether dir holds the toolhost module's go.mod.
func isToolhostClone(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "module ") {
			return strings.TrimSpace(strings.TrimPrefix(line, "module ")) == toolhostModule
		}
	}
	return false
}

// moduleRoot is the root of the toolhost module holding dir, or "".
func moduleRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			if isToolhostClone(d) {
				return d
			}
			return ""
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// buildAndTest builds the new plugin's entrypoint and runs its test,
// showing each command.
func buildAndTest(ctx context.Context, out io.Writer, o scaffold.Options, root string) error {
	type step struct {
		dir  string
		args []string
	}
	var steps []step
	switch {
	case o.Lang == "python":
		py := "/usr/bin/python3"
		if _, err := os.Stat(py); err != nil {
			py = "python3"
		}
		steps = []step{{o.Dir, []string{py, "-m", "unittest", "discover", "-s", o.Dir}}}
	case root != "":
		rel, _ := filepath.Rel(root, o.Dir)
		pkg := "./" + filepath.ToSlash(rel)
		steps = []step{{root, []string{"go", "build", "-o", filepath.Join(o.Dir, o.Name), pkg}}, {root, []string{"go", "test", pkg}}}
	default:
		steps = []step{{o.Dir, []string{"go", "mod", "tidy"}}, {o.Dir, []string{"go", "build", "-o", o.Name, "."}}, {o.Dir, []string{"go", "test", "./..."}}}
	}
	for _, s := range steps {
		fmt.Fprintf(out, "$ %s\n", strings.Join(s.args, " "))
		c := exec.CommandContext(ctx, s.args[0], s.args[1:]...)
		c.Dir = s.dir
		b, err := c.CombinedOutput()
		if err != nil {
			out.Write(b)
			return fmt.Errorf("%s: %w", strings.Join(s.args, " "), err)
		}
	}
	return nil
}

// notOnPluginPath is new-plugin's advice when the folder it wrote into is
// not one the host reads: put it in front of the current HOST_PLUGIN_PATH,
// or, when that is unset, in front of an empty entry, which keeps the
// default folders (and so the shipped plugins) on the path.
func notOnPluginPath(name, dir string) string {
	sep := string(os.PathListSeparator)
	cur := os.Getenv("HOST_PLUGIN_PATH")
	why := ""
	if cur == "" {
		why = fmt.Sprintf(" (the trailing %q keeps the default folders, which hold the shipped plugins)", sep)
	}
	return fmt.Sprintf("%s is not in a plugins folder the host reads: run the host with HOST_PLUGIN_PATH=%s%s%s%s, then %s\n",
		name, dir, sep, cur, why, hostCmd("approve "+name))
}
