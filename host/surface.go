package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/toolhost/toolhost/host/internal/mcpproto"
	"github.com/toolhost/toolhost/host/internal/surface"
)

// surfaceDir is HOST_SURFACE_DIR, or the installation's surfaces/ folder.
func surfaceDir() string {
	if d := os.Getenv("HOST_SURFACE_DIR"); d != "" {
		return d
	}
	return filepath.Join(installDir(), "surfaces")
}

// curatedServer loads the surface named name against the registry's
// snapshot and builds its MCP server. A published tool whose action is gone
// or irreversible stops it; other disagreements (args changed since the
// review) are logged, and `host surface check` fails on them.
func curatedServer(a *app, name string) (*mcpproto.Server, error) {
	files := surface.Files{Dir: surfaceDir(), Name: name}
	d, err := surface.Parse(files.Declaration())
	if err != nil {
		return nil, fmt.Errorf("serve --surface %s: %w", name, err)
	}
	resolved, findings := surface.Resolve(d, a.registry.Snapshot())
	var blocking []string
	for _, f := range findings {
		if f.Blocking {
			blocking = append(blocking, f.String())
		} else {
			a.logger.Warn("the surface disagrees with the registry: run `host surface check`", "surface", name, "problem", f.String())
		}
	}
	if len(blocking) > 0 {
		return nil, fmt.Errorf("serve --surface %s: %s cannot be served:\n  %s", name, files.Declaration(), strings.Join(blocking, "\n  "))
	}
	srv, err := surface.NewServer(surface.Options{Declaration: d, Resolved: resolved, Runner: a.callRunner(), Version: version,
		Logger: a.logger.Named("surface")})
	if err != nil {
		return nil, err
	}
	if p, err := surface.ReadPublished(files.Published()); err == nil && p.ToolsDigest != srv.ToolsDigest() {
		a.logger.Warn("the served tools differ from the published snapshot: run `host surface check`", "surface", name,
			"snapshot", files.Published(), "published_digest", p.ToolsDigest, "served_digest", srv.ToolsDigest())
	}
	a.logger.Info("curated surface", "surface", name, "surface_version", d.Version.String(), "tools", len(resolved))
	return srv, nil
}

func newSurfaceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "surface",
		Short: "Check or diff a curated surface (surfaces/NAME.yaml) against the registry and its published snapshot",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "check [NAME]",
		Short: "Fail on a published tool whose action is gone, changed or irreversible, or a change without its surface_version bump",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := auditSurface(cmd, args)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			d := r.Declaration
			if len(r.Problems) > 0 {
				for _, p := range r.Problems {
					fmt.Fprintf(out, "FAIL %s\n", indent(p))
				}
				fmt.Fprintf(out, "\nsurface %s %s: %d problem(s)\n", d.Surface, d.Version, len(r.Problems))
				return exitCode(1)
			}
			fmt.Fprintf(out, "surface %s %s: %d published tools agree with the registry, %s and %s (tools digest %s)\n",
				d.Surface, d.Version, len(r.Tools), filepath.Base(surfaceFiles(args).Published()), filepath.Base(surfaceFiles(args).ServerJSON()), r.Published.ToolsDigest)
			return nil
		},
	})
	var write bool
	diff := &cobra.Command{
		Use:   "diff [NAME]",
		Short: "Show what the declaration would change in the published surface (and each action's current args_digest); --write records it",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := auditSurface(cmd, args)
			if err != nil {
				return err
			}
			printDiff(cmd.OutOrStdout(), r)
			if write {
				if err := r.Write(surfaceFiles(args)); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "\nwrote %s and %s\n", surfaceFiles(args).Published(), surfaceFiles(args).ServerJSON())
			}
			return nil
		},
	}
	diff.Flags().BoolVar(&write, "write", false, "record the published list and server.json (refused without the surface_version bump the changes need)")
	cmd.AddCommand(diff)
	return cmd
}

func surfaceFiles(args []string) surface.Files {
	name := "chat"
	if len(args) > 0 {
		name = args[0]
	}
	return surface.Files{Dir: surfaceDir(), Name: name}
}

func auditSurface(cmd *cobra.Command, args []string) (*surface.Report, error) {
	a := newApp(cmd.ErrOrStderr(), hclog.Warn)
	defer a.close()
	snap := a.registry.Scan()
	r, err := surface.Audit(surfaceFiles(args), snap, version)
	if err != nil {
		return nil, fmt.Errorf("surface: %w", err)
	}
	return r, nil
}

// printDiff is `host surface diff`: each published tool's state against
// the registry, then the changes from the committed snapshot.
func printDiff(w io.Writer, r *surface.Report) {
	d := r.Declaration
	findings := map[string][]string{}
	for _, f := range r.Findings {
		findings[f.Tool] = append(findings[f.Tool], f.Message)
	}
	resolved := map[string]*surface.Resolved{}
	for _, t := range r.Resolved {
		resolved[t.Name] = t
	}
	fmt.Fprintf(w, "surface %s %s (%s)\n", d.Surface, d.Version, d.Path)
	for _, t := range d.Tools {
		state := "ok"
		if len(findings[t.Name]) > 0 {
			state = strings.Join(findings[t.Name], "\n      ")
		}
		fmt.Fprintf(w, "  %-24s %s %s\n", t.Name, t.ToolName, t.Action)
		if rt := resolved[t.Name]; rt != nil {
			fmt.Fprintf(w, "      args_digest: %s\n", surface.ArgsDigest(rt.Action))
		}
		fmt.Fprintf(w, "      %s\n", state)
	}
	if r.Committed == nil {
		fmt.Fprintln(w, "\nno published snapshot yet")
		return
	}
	if len(r.Changes) == 0 {
		fmt.Fprintf(w, "\nno change from the published %s\n", r.Committed.SurfaceVersion)
		return
	}
	fmt.Fprintf(w, "\nchanges from the published %s (need a %s bump):\n", r.Committed.SurfaceVersion, r.Needed)
	for _, c := range r.Changes {
		fmt.Fprintf(w, "  %s\n", c)
	}
}
