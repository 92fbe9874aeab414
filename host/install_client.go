package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/toolhost/toolhost/host/internal/clientconfig"
	"github.com/toolhost/toolhost/manifests"
)

// clientEnv is this system's side of a client's config path.
func clientEnv() (clientconfig.Env, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return clientconfig.Env{}, err
	}
	return clientconfig.Env{GOOS: runtime.GOOS, Home: home, AppData: os.Getenv("APPDATA"),
		XDGConfigHome: os.Getenv("XDG_CONFIG_HOME")}, nil
}

// lookupClient finds a client by name, or says which ones there are.
func lookupClient(cmd, name string) (clientconfig.Client, error) {
	c, ok := clientconfig.Lookup(name)
	if !ok {
		hint := ""
		if s := manifests.Suggest(name, clientconfig.Names()); len(s) > 0 {
			hint = fmt.Sprintf(" (did you mean %s?)", strings.Join(s, " or "))
		}
		return c, fmt.Errorf("%s: unknown client %q%s; known: %s", cmd, name, hint, strings.Join(clientconfig.Names(), ", "))
	}
	return c, nil
}

// configPath is the client's config file on this system.
func configPath(c clientconfig.Client) (string, error) {
	env, err := clientEnv()
	if err != nil {
		return "", err
	}
	return c.Path(env, func(p string) bool { _, err := os.Stat(p); return err == nil }), nil
}

func newInstallClientCmd() *cobra.Command {
	var printOnly, dryRun, statusLine, importAll, confirm bool
	var dir string
	cmd := &cobra.Command{
		Use:   "install-client CLIENT [--dry-run | --print | --import-servers [--confirm] [--dir DIR]]",
		Short: "Add toolhost to an MCP client's config (" + strings.Join(clientconfig.Names(), ", ") + ")",
		Long: "install-client adds the entry `toolhost` (this binary, `serve`) to the client's config file on this\n" +
			"system, changing nothing else in it (comments in a JSONC file included). Run again, it says it is\n" +
			"already installed. The file as it was before the first change is kept as FILE.bak.\n\n" +
			"With --import-servers (claude-code, claude-desktop) it moves the client's own MCP servers behind\n" +
			"toolhost: every `npx -y PACKAGE@VERSION` entry (Claude Code: ~/.claude.json's user and per-project\n" +
			"entries and ./.mcp.json; Claude Desktop: claude_desktop_config.json) becomes a plugin folder in DIR\n" +
			"(default: the first plugins folder), as new-plugin --from-npm writes it. It first shows what becomes\n" +
			"which folder and what cannot be imported and why, writing nothing; --confirm writes the folders, then\n" +
			"takes the imported entries out and adds the toolhost entry, their env values moved into its env (never\n" +
			"into tool.yaml), each file kept first as FILE.bak-import-TIME.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := lookupClient("install-client", args[0])
			if err != nil {
				return err
			}
			if statusLine && c.Name != "claude-code" {
				return fmt.Errorf("install-client: --statusline is for claude-code only, not %s", c.Name)
			}
			if importAll && printOnly {
				return &usageError{err: errors.New("install-client: --print does not go with --import-servers, which shows what it would do without --confirm"), next: hostCmd("install-client --help")}
			}
			if (confirm || dir != "") && !importAll {
				return &usageError{err: errors.New("install-client: --confirm and --dir go with --import-servers"), next: hostCmd("install-client --help")}
			}
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("install-client: find the host binary: %w", err)
			}
			if real, err := filepath.EvalSymlinks(exe); err == nil {
				exe = real
			}
			if importAll {
				path, err := configPath(c)
				if err != nil {
					return fmt.Errorf("install-client: %w", err)
				}
				if dir == "" {
					dir = pluginPath()[0]
				}
				if dir, err = filepath.Abs(dir); err != nil {
					return fmt.Errorf("install-client: %w", err)
				}
				if err := importServers(cmd.Context(), cmd.OutOrStdout(), c, path, exe, dir, confirm && !dryRun); err != nil {
					return fmt.Errorf("install-client: %w", err)
				}
				return nil
			}
			if printOnly {
				return writeJSON(cmd.OutOrStdout(), map[string]any{c.Key: map[string]any{clientconfig.ServerName: c.Entry(exe)}})
			}
			path, err := configPath(c)
			if err != nil {
				return fmt.Errorf("install-client: %w", err)
			}
			o, err := clientconfig.Install(c, path, exe, dryRun)
			if err != nil {
				return fmt.Errorf("install-client: %w", err)
			}
			report(cmd.OutOrStdout(), o, dryRun, "toolhost is already installed in %s, unchanged",
				"added toolhost to %s; restart "+c.Name+" to pick it up")
			if !dryRun && shipped != "" {
				a := newApp(cmd.ErrOrStderr(), hclog.Warn)
				defer a.close()
				if names := shippedNotApproved(a.registry.Scan()); len(names) > 0 {
					fmt.Fprintf(cmd.OutOrStdout(), "next: approve the plugins this release shipped (%s) with %s; until then %s cannot run them\n",
						strings.Join(names, ", "), hostCmd("approve --shipped"), c.Name)
				}
			}
			if statusLine {
				return installStatusLine(cmd.OutOrStdout(), dryRun)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&printOnly, "print", false, "print the config entry instead of writing it")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "show the change as a diff and write nothing")
	cmd.Flags().BoolVar(&statusLine, "statusline", false, "claude-code: also set its status line to the usage plugin's statusline")
	cmd.Flags().BoolVar(&importAll, "import-servers", false, "move the client's npx MCP servers into plugin folders behind toolhost (a dry run without --confirm)")
	cmd.Flags().BoolVar(&confirm, "confirm", false, "with --import-servers: write the folders and change the config")
	cmd.Flags().StringVar(&dir, "dir", "", "with --import-servers: the folder to write the plugins in (default: the first plugins folder)")
	return cmd
}

func newUninstallClientCmd() *cobra.Command {
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "uninstall-client CLIENT [--dry-run]",
		Short: "Take toolhost out of an MCP client's config, changing nothing else",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := lookupClient("uninstall-client", args[0])
			if err != nil {
				return err
			}
			path, err := configPath(c)
			if err != nil {
				return fmt.Errorf("uninstall-client: %w", err)
			}
			o, err := clientconfig.Uninstall(c, path, dryRun)
			if err != nil {
				return fmt.Errorf("uninstall-client: %w", err)
			}
			report(cmd.OutOrStdout(), o, dryRun, "toolhost is not installed in %s, nothing to do",
				"took toolhost out of %s; restart "+c.Name+" to drop it")
			return nil
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "show the change as a diff and write nothing")
	return cmd
}

// report says what an install or uninstall did.
func report(w io.Writer, o clientconfig.Outcome, dryRun bool, unchanged, changed string) {
	switch {
	case !o.Changed:
		fmt.Fprintf(w, unchanged+"\n", o.Path)
	case dryRun:
		fmt.Fprintf(w, "would change %s (dry run, nothing written):\n%s", o.Path, o.Diff)
	default:
		fmt.Fprintf(w, changed+"\n", o.Path)
		if o.Backup != "" {
			fmt.Fprintf(w, "the file as it was before toolhost first changed it: %s\n", o.Backup)
		}
	}
}
