package registry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/manifests"
)

// A snapshot lists tools by name whatever order the plugin folders are
// scanned in: capabilities and `host list` read them in this order.
func TestToolsAreInNameOrder(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	addTool(t, first, "zeta", "", true)
	addTool(t, first, "mid", "", true)
	addTool(t, second, "alpha", "", true)
	snap := New(Options{PluginDirs: []string{first, second}, Getenv: func(string) string { return "" }}).Scan()
	var got []string
	for _, tool := range snap.Tools {
		got = append(got, tool.Name())
	}
	if strings.Join(got, " ") != "alpha mid zeta" {
		t.Fatalf("tools in order %v, want alpha mid zeta", got)
	}
}

// The watcher rescans for a change in a plugins or skills folder (the
// folder itself or anything under it) or to a plugins folder's lock file,
// and for nothing else, however alike the names.
func TestRelevantChanges(t *testing.T) {
	base := t.TempDir()
	plugins, skills := filepath.Join(base, "plugins"), filepath.Join(base, "skills")
	r := New(Options{PluginDirs: []string{plugins + string(filepath.Separator)}, SkillDirs: []string{skills}})
	tests := []struct {
		path string
		want bool
	}{
		{plugins, true},
		{filepath.Join(plugins, "alpha", "bin"), true},
		{filepath.Join(base, "plugins.lock"), true},
		{skills, true},
		{filepath.Join(skills, "tips", SkillFile), true},
		{filepath.Join(base, "plugins2", "alpha", "bin"), false},
		{filepath.Join(base, "plugins.lock.tmp"), false},
		{filepath.Join(base, "skills.lock"), false},
		{filepath.Join(base, "other.txt"), false},
		{base, false},
	}
	for _, tt := range tests {
		if got := r.relevant(tt.path); got != tt.want {
			t.Errorf("relevant(%s) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

// RunCopy never hands out an entrypoint outside the plugin folder, even
// for a Tool made by hand rather than by a scan (which refuses one).
func TestEntrypointOutsideTheFolderRefused(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "alpha")
	writeFile(t, filepath.Join(dir, "tool.yaml"), "x", 0o644)
	writeFile(t, filepath.Join(base, "outside"), "#!/bin/sh\n", 0o755)
	d, err := DigestFolder(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	tool := &Tool{Manifest: &manifests.Manifest{Name: "alpha"}, Dir: dir, Binary: filepath.Join(base, "outside"), Digest: d.Sum, Files: d.Files}
	bin, err := RunCopy(tool, filepath.Join(base, "run"), nil)
	if err == nil || !strings.Contains(err.Error(), "is outside the plugin folder") {
		t.Fatalf("entrypoint outside the folder: got %q, %v", bin, err)
	}
}

// An agent that is not ready for a reason of its own keeps that reason:
// what it uses is only checked for agents otherwise ready.
func TestAgentKeepsItsOwnReason(t *testing.T) {
	root := t.TempDir()
	addTool(t, root, "agent", strings.Replace(strings.ReplaceAll(validManifest, "%s", "agent"), "entrypoint: bin",
		"kind: agent\nentrypoint: bin\nuses: [gamma]\nsecrets:\n  - {name: api-token, env: AGENT_TOKEN, required: true}", 1), true)
	tool, _ := New(Options{PluginDirs: []string{root}, Getenv: func(string) string { return "" }}).Scan().Tool("agent")
	if tool == nil || tool.Ready || tool.NotReady != "secret api-token needs environment variable AGENT_TOKEN" {
		t.Fatalf("agent: %+v, want not ready for its secret", tool)
	}
}

// A plugins folder that does not exist yet is watched from its parent, and
// an entry of a plugins folder that is a dangling link is no plugin: the
// scan and the watch go on.
func TestMissingAndDanglingFoldersAreSkipped(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "plugins")
	addTool(t, root, "alpha", "", true)
	if err := os.Symlink(filepath.Join(base, "nowhere"), filepath.Join(root, "ghost")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	r := New(Options{PluginDirs: []string{root, filepath.Join(base, "later")}})
	w, err := r.StartWatch()
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	snap := r.Snapshot()
	if len(snap.Tools) != 1 || snap.Tools[0].Name() != "alpha" || len(snap.Broken) != 0 {
		t.Fatalf("tools %v, broken %v: want alpha alone", snap.Tools, snap.Broken)
	}
}

// An entrypoint named like an interpreter cache (which the digest, the
// approval and the run copy leave out) is not ready, saying why: it could
// never be launched from its run copy.
func TestEntrypointNamedLikeACacheIsNotReady(t *testing.T) {
	for _, ep := range []string{"run.pyc", "__pycache__/run", ".DS_Store"} {
		t.Run(ep, func(t *testing.T) {
			root := t.TempDir()
			writeFile(t, filepath.Join(root, "alpha", "tool.yaml"),
				strings.Replace(strings.ReplaceAll(validManifest, "%s", "alpha"), "entrypoint: bin", "entrypoint: "+ep, 1), 0o644)
			writeFile(t, filepath.Join(root, "alpha", filepath.FromSlash(ep)), "#!/bin/sh\n", 0o755)
			tool, _ := New(Options{PluginDirs: []string{root}}).Scan().Tool("alpha")
			if tool == nil || tool.Ready || !strings.Contains(tool.NotReady, "is left out of the plugin's run copy") {
				t.Fatalf("alpha with entrypoint %s: %+v, want not ready for its name", ep, tool)
			}
		})
	}
}

// A tool.yaml that cannot be read is listed broken with the read error,
// and the other plugins load.
func TestUnreadableManifestIsBroken(t *testing.T) {
	root := t.TempDir()
	addTool(t, root, "alpha", "", true)
	path := filepath.Join(root, "beta", "tool.yaml")
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	snap := New(Options{PluginDirs: []string{root}, Getenv: func(string) string { return "" }}).Scan()
	if len(snap.Broken) != 1 || snap.Broken[0].Path != path || !strings.Contains(snap.Broken[0].Error, "is a directory") {
		t.Fatalf("broken %+v, want %s with its read error", snap.Broken, path)
	}
	if tool, _ := snap.Tool("alpha"); tool == nil || !tool.Ready {
		t.Fatalf("alpha beside an unreadable manifest: %+v", tool)
	}
}
