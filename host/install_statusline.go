package main

import (
	"fmt"
	"io"
	"os"

	"github.com/toolhost/toolhost/cli"
	"github.com/toolhost/toolhost/host/internal/clientconfig"
	"github.com/toolhost/toolhost/registry"
)

// installStatusLine points Claude Code's status line at the usage plugin's
// `statusline` command (its binary run directly: it runs on every update,
// so it starts no host).
func installStatusLine(w io.Writer, dryRun bool) error {
	snap := registry.New(registry.Options{PluginDirs: pluginPath()}).Scan()
	t, _ := snap.Tool("usage")
	if t == nil {
		return fmt.Errorf("install-client --statusline: the usage plugin is not installed in %v; install it first (make build puts it in plugins/)", pluginPath())
	}
	if _, err := os.Stat(t.Binary); err != nil {
		return fmt.Errorf("install-client --statusline: the usage plugin's binary: %w; build it first (make build)", err)
	}
	env, err := clientEnv()
	if err != nil {
		return fmt.Errorf("install-client --statusline: %w", err)
	}
	path := clientconfig.StatusLinePath(env, os.Getenv("CLAUDE_CONFIG_DIR"))
	o, err := clientconfig.InstallStatusLine(path, cli.Quote(t.Binary)+" statusline", dryRun)
	if err != nil {
		return fmt.Errorf("install-client --statusline: %w", err)
	}
	report(w, o, dryRun, "Claude Code's status line is already the usage plugin's in %s, unchanged",
		"set Claude Code's status line to the usage plugin's in %s; it shows from the next update")
	return nil
}
