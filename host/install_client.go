package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolhost/toolhost/manifests"
)

// clientConfig says where a client keeps its MCP servers and how an entry
// looks.
type clientConfig struct {
	path  func(home string) string
	key   string // the object holding the servers
	entry func(exe string) map[string]any
}

var clients = map[string]clientConfig{
	"claude-code": {
		path: func(home string) string { return filepath.Join(home, ".claude.json") },
		key:  "mcpServers",
		entry: func(exe string) map[string]any {
			return map[string]any{"type": "stdio", "command": exe, "args": []string{"serve"}}
		},
	},
	"cursor": {
		path:  func(home string) string { return filepath.Join(home, ".cursor", "mcp.json") },
		key:   "mcpServers",
		entry: func(exe string) map[string]any { return map[string]any{"command": exe, "args": []string{"serve"}} },
	},
	"claude-desktop": {
		path: func(home string) string {
			return filepath.Join(home, ".config", "Claude", "claude_desktop_config.json")
		},
		key:   "mcpServers",
		entry: func(exe string) map[string]any { return map[string]any{"command": exe, "args": []string{"serve"}} },
	},
	"opencode": {
		path: func(home string) string { return filepath.Join(home, ".config", "opencode", "opencode.json") },
		key:  "mcp",
		entry: func(exe string) map[string]any {
			return map[string]any{"type": "local", "command": []string{exe, "serve"}, "enabled": true}
		},
	},
}

func clientNames() []string {
	names := make([]string, 0, len(clients))
	for n := range clients {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func newInstallClientCmd() *cobra.Command {
	var printOnly bool
	cmd := &cobra.Command{
		Use:   "install-client CLIENT",
		Short: "Add toolhost to an MCP client's config (" + strings.Join(clientNames(), ", ") + ")",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, ok := clients[args[0]]
			if !ok {
				return fmt.Errorf("unknown client %q (did you mean %v?); known: %s", args[0],
					manifests.Suggest(args[0], clientNames()), strings.Join(clientNames(), ", "))
			}
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("install-client: find the host binary: %w", err)
			}
			if real, err := filepath.EvalSymlinks(exe); err == nil {
				exe = real
			}
			entry := c.entry(exe)
			if printOnly {
				return writeJSON(cmd.OutOrStdout(), map[string]any{c.key: map[string]any{"toolhost": entry}})
			}
			home, err := os.UserHomeDir()
			if err != nil {
				return fmt.Errorf("install-client: %w", err)
			}
			path := c.path(home)
			if err := mergeServer(path, c.key, entry); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "added toolhost to %s; restart %s to pick it up\n", path, args[0])
			return nil
		},
	}
	cmd.Flags().BoolVar(&printOnly, "print", false, "print the config entry instead of writing it")
	return cmd
}

// mergeServer adds the toolhost entry under key in the JSON file at path,
// keeping everything else; the old file is kept as path.bak.
func mergeServer(path, key string, entry map[string]any) error {
	doc := map[string]any{}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("install-client: read %s: %w", path, err)
	default:
		if err := json.Unmarshal(b, &doc); err != nil {
			return fmt.Errorf("install-client: %s is not valid JSON (%v); fix it or add the entry by hand (see --print)", path, err)
		}
		if err := os.WriteFile(path+".bak", b, 0o600); err != nil {
			return fmt.Errorf("install-client: back up %s: %w", path, err)
		}
	}
	servers, _ := doc[key].(map[string]any)
	if servers == nil {
		servers = map[string]any{}
	}
	servers["toolhost"] = entry
	doc[key] = servers
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("install-client: encode: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("install-client: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(out, '\n'), 0o600); err != nil {
		return fmt.Errorf("install-client: write %s: %w", path, err)
	}
	return os.Rename(tmp, path)
}
