package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/toolhost/toolhost/registry"
)

// staleCopyAge is how old a run copy must be before prune removes it: a
// younger one may be another host (with other plugin folders, sharing this
// cache) making or about to run it. A copy removed while in use is made
// again at the next launch.
const staleCopyAge = 10 * time.Minute

func newCacheCmd() *cobra.Command {
	cache := &cobra.Command{
		Use:   "cache",
		Short: "The host's caches: run copies of plugin folders",
	}
	var dryRun bool
	prune := &cobra.Command{
		Use:   "prune [--dry-run]",
		Short: "Remove the run copies of plugin folders no longer installed as they are now (host serve does this at start)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a := newApp(cmd.ErrOrStderr(), hclog.Warn)
			defer a.close()
			p, err := pruneRunCopies(registry.DefaultRunDir(), keepDigests(a.registry.Scan()), time.Now(), dryRun)
			if err != nil {
				return err
			}
			verb := "removed"
			if dryRun {
				verb = "would remove"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s %d run cop%s (%s) from %s; kept %d\n", verb, len(p.Removed), plural(len(p.Removed)),
				humanBytes(p.Freed), registry.DefaultRunDir(), p.Kept)
			return nil
		},
	}
	prune.Flags().BoolVar(&dryRun, "dry-run", false, "say what would be removed, remove nothing")
	cache.AddCommand(prune)
	return cache
}

func plural(n int) string {
	if n == 1 {
		return "y"
	}
	return "ies"
}

// keepDigests are the run-copy names of every tool installed now.
func keepDigests(snap *registry.Snapshot) map[string]bool {
	keep := map[string]bool{}
	for _, t := range snap.Tools {
		if t.Digest != "" {
			keep[strings.TrimPrefix(t.Digest, "sha256:")] = true
		}
	}
	return keep
}

// pruned says what pruneRunCopies did.
type pruned struct {
	Removed []string
	Freed   int64
	Kept    int
}

// pruneRunCopies removes from runDir every run copy (finished or not)
// whose digest is not in keep and that is older than staleCopyAge.
func pruneRunCopies(runDir string, keep map[string]bool, now time.Time, dryRun bool) (pruned, error) {
	var p pruned
	entries, err := os.ReadDir(runDir)
	if os.IsNotExist(err) {
		return p, nil
	}
	if err != nil {
		return p, fmt.Errorf("cache prune: %w", err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		name := e.Name()
		if keep[name] {
			p.Kept++
			continue
		}
		if info, err := e.Info(); err != nil || now.Sub(info.ModTime()) < staleCopyAge {
			continue
		}
		dir := filepath.Join(runDir, name)
		size := folderSize(dir)
		if !dryRun {
			if err := registry.RemoveRunCopy(dir); err != nil {
				return p, fmt.Errorf("cache prune: remove %s: %w", dir, err)
			}
		}
		p.Removed = append(p.Removed, dir)
		p.Freed += size
	}
	return p, nil
}

func folderSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			if info, err := e.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// pruneAtStart removes, as `host serve` starts, the run copies of plugin
// folders no longer installed as they are now, and logs what it freed.
func (a *app) pruneAtStart(snap *registry.Snapshot) {
	p, err := pruneRunCopies(registry.DefaultRunDir(), keepDigests(snap), time.Now(), false)
	if err != nil {
		a.logger.Warn("run-copy cache not pruned", "error", err)
		return
	}
	if len(p.Removed) > 0 {
		a.logger.Info("pruned the run-copy cache", "removed", len(p.Removed), "freed", humanBytes(p.Freed), "kept", p.Kept)
	}
}
