package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolhost/toolhost/registry"
)

// describeCacheFile remembers, in the cache folder, the binaries (by
// sha256, with the actions their tool.yaml declared) whose Describe
// matched, so `host list` starts a plugin to check it only once per build.
const describeCacheFile = "describe-ok.json"

// describeKey is what a check holds for: the binary's sha256 and the
// manifest's actions.
func describeKey(t *registry.Tool) string {
	return t.SHA256 + " " + strings.Join(t.Manifest.ActionNames(), ",")
}

// checkActions checks, as `host check` does, that the binary of every
// ready tool implements the actions its tool.yaml declares (it starts the
// plugin and asks Describe), skipping the binaries checked before. It
// returns the problem of each tool that failed, by name. A failure is not
// remembered: the next `host list` checks again.
func checkActions(ctx context.Context, a *app, snap *registry.Snapshot, cacheDir string) map[string]string {
	path := filepath.Join(cacheDir, describeCacheFile)
	ok := map[string]bool{}
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, &ok) // a damaged cache is checked again
	}
	problems := map[string]string{}
	changed := false
	for _, t := range snap.Tools {
		if !t.Ready || t.SHA256 == "" || ok[describeKey(t)] {
			continue
		}
		if err := a.supervisor.Warm(ctx, t); err != nil {
			problems[t.Name()] = err.Error()
			continue
		}
		ok[describeKey(t)] = true
		changed = true
	}
	if changed {
		if err := writeDescribeCache(path, ok); err != nil {
			a.logger.Debug("describe cache not saved", "error", err)
		}
	}
	return problems
}

// writeDescribeCache replaces the cache file whole (write, then rename).
func writeDescribeCache(path string, ok map[string]bool) error {
	b, err := json.Marshal(ok)
	if err != nil {
		return fmt.Errorf("list: encode describe cache: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("list: describe cache: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), describeCacheFile+".*")
	if err != nil {
		return fmt.Errorf("list: describe cache: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("list: write describe cache: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("list: write describe cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("list: save describe cache: %w", err)
	}
	return nil
}
