package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/registry"
)

// TestPruneRunCopies makes a real run copy of an installed plugin beside
// old and young copies of folders no longer installed, finished and not:
// prune keeps the installed one and the young ones (another host may be
// using them), removes the old ones (read-only as they are), and a dry run
// removes nothing.
func TestPruneRunCopies(t *testing.T) {
	plugins := t.TempDir()
	testplugin.Install(t, plugins, "1")
	reg := registry.New(registry.Options{PluginDirs: []string{plugins}})
	snap := reg.Scan()
	tool, _ := snap.Tool("testtool")
	if tool == nil {
		t.Fatal("testtool not installed")
	}
	runDir := t.TempDir()
	bin, err := registry.RunCopy(tool, runDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(runDir, "0000000000000000000000000000000000000000000000000000000000000000")
	testplugin.WriteFile(t, filepath.Join(stale, "old-binary"), "x")
	os.Chmod(filepath.Join(stale, "old-binary"), 0o400)
	os.Chmod(stale, 0o500)
	young := filepath.Join(runDir, "1111111111111111111111111111111111111111111111111111111111111111")
	testplugin.WriteFile(t, filepath.Join(young, "f"), "x")
	oldTmp := filepath.Join(runDir, ".copy-123")
	newTmp := filepath.Join(runDir, ".copy-456")
	testplugin.WriteFile(t, filepath.Join(oldTmp, "f"), "x")
	testplugin.WriteFile(t, filepath.Join(newTmp, "f"), "x")
	now := time.Now()
	for _, old := range []string{oldTmp, stale} {
		if err := os.Chtimes(old, now.Add(-time.Hour), now.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
	}

	dry, err := pruneRunCopies(runDir, keepDigests(snap), now, true)
	if err != nil || len(dry.Removed) != 2 {
		t.Fatalf("dry run: %+v %v", dry, err)
	}
	if _, err := os.Stat(stale); err != nil {
		t.Fatal("the dry run removed a copy")
	}
	p, err := pruneRunCopies(runDir, keepDigests(snap), now, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Removed) != 2 || p.Kept != 1 || p.Freed != 2 {
		t.Errorf("got %+v, want 2 removed (2 bytes), 1 kept", p)
	}
	for _, gone := range []string{stale, oldTmp} {
		if _, err := os.Stat(gone); err == nil {
			t.Errorf("%s still there", gone)
		}
	}
	for _, kept := range []string{bin, newTmp, young} {
		if _, err := os.Stat(kept); err != nil {
			t.Errorf("%s removed: %v", kept, err)
		}
	}
}
