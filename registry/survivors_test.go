package registry

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolhost/toolhost/manifests"
)

// Tests for what registry mutants of the 2026-12-01 sample changed unseen
// (testdata/mutate.md lists them by position).

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

// Search finds skills when asked for every kind or for skills, and never
// when asked for tools or agents.
func TestSearchKindFilterForSkills(t *testing.T) {
	root, skills := t.TempDir(), t.TempDir()
	addTool(t, root, "xlsx", "", true)
	writeFile(t, filepath.Join(skills, "sheet-tips", "SKILL.md"), "---\nname: sheet-tips\ndescription: How to read a sheet well.\n---\nbody\n", 0o644)
	snap := New(Options{PluginDirs: []string{root}, SkillDirs: []string{skills}}).Scan()
	kinds := func(ms []Match) string {
		var k []string
		for _, m := range ms {
			k = append(k, m.Kind+":"+m.Name)
		}
		return strings.Join(k, " ")
	}
	tests := []struct {
		kind      string
		skill     bool
		wantTools bool
	}{
		{"", true, true},
		{"skill", true, false},
		{"tool", false, true},
		{"agent", false, false},
	}
	for _, tt := range tests {
		t.Run("kind="+tt.kind, func(t *testing.T) {
			got := kinds(snap.Search("sheet", tt.kind))
			if strings.Contains(got, "skill:sheet-tips") != tt.skill {
				t.Errorf("Search(sheet, %q) = %q: skill listed %v, want %v", tt.kind, got, !tt.skill, tt.skill)
			}
			if strings.Contains(got, "tool:xlsx") != tt.wantTools {
				t.Errorf("Search(sheet, %q) = %q: tool listed %v, want %v", tt.kind, got, !tt.wantTools, tt.wantTools)
			}
		})
	}
}

// A skill needs both a name and a description: either alone is a broken
// skill that names what is missing.
func TestSkillNeedsNameAndDescription(t *testing.T) {
	tests := []struct{ name, front string }{
		{"no description", "name: half\n"},
		{"no name", "description: Half a skill.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			skills := t.TempDir()
			writeFile(t, filepath.Join(skills, "half", "SKILL.md"), "---\n"+tt.front+"---\nbody\n", 0o644)
			snap := New(Options{SkillDirs: []string{skills}}).Scan()
			if len(snap.Skills) != 0 {
				t.Fatalf("skill accepted: %+v", snap.Skills[0])
			}
			if len(snap.Broken) != 1 || !strings.Contains(snap.Broken[0].Error, "name and description are required") {
				t.Fatalf("broken: %+v", snap.Broken)
			}
		})
	}
}

// Tests for the survivors of the 2026-12-02 run (the whole 240; testdata/
// mutate.md lists each by function).

// Options left zero or negative take their documented defaults (Debounce
// 150ms, Rescan 30s, Getenv the process environment); set ones are kept.
func TestNewTakesTheDocumentedDefaults(t *testing.T) {
	tests := []struct {
		name             string
		debounce, rescan time.Duration
		wantD, wantR     time.Duration
	}{
		{"zero", 0, 0, 150 * time.Millisecond, 30 * time.Second},
		{"negative", -time.Second, -time.Second, 150 * time.Millisecond, 30 * time.Second},
		{"set", time.Millisecond, time.Minute, time.Millisecond, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(Options{Debounce: tt.debounce, Rescan: tt.rescan})
			if r.opts.Debounce != tt.wantD || r.opts.Rescan != tt.wantR {
				t.Fatalf("Debounce %v, Rescan %v; want %v, %v", r.opts.Debounce, r.opts.Rescan, tt.wantD, tt.wantR)
			}
		})
	}
}

// A required secret is looked up through Options.Getenv when it is given,
// and in the process environment when it is not.
func TestSecretsComeFromGetenvOrTheEnvironment(t *testing.T) {
	root := t.TempDir()
	addTool(t, root, "secret", strings.Replace(strings.ReplaceAll(validManifest, "%s", "secret"), "entrypoint: bin",
		"entrypoint: bin\nsecrets:\n  - {name: api-token, env: SURVIVOR_TEST_TOKEN, required: true}", 1), true)
	tests := []struct {
		name      string
		getenv    func(string) string
		env       string
		wantReady bool
	}{
		{"given Getenv has it", func(k string) string { return map[string]string{"SURVIVOR_TEST_TOKEN": "t0k"}[k] }, "", true},
		{"given Getenv lacks it, the environment has it", func(string) string { return "" }, "t0k", false},
		{"no Getenv, the environment has it", nil, "t0k", true},
		{"no Getenv, the environment lacks it", nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("SURVIVOR_TEST_TOKEN", tt.env)
			tool, _ := New(Options{PluginDirs: []string{root}, Getenv: tt.getenv}).Scan().Tool("secret")
			if tool == nil {
				t.Fatal("secret not loaded")
			}
			if tool.Ready != tt.wantReady {
				t.Fatalf("ready %v (%s), want %v", tool.Ready, tool.NotReady, tt.wantReady)
			}
			if !tt.wantReady && !strings.Contains(tool.NotReady, "secret api-token needs environment variable SURVIVOR_TEST_TOKEN") {
				t.Fatalf("not ready for %q, want it to name the secret and its variable", tool.NotReady)
			}
		})
	}
}

// The approval key is at least 16 bytes of hex: a shorter or partly
// unreadable key file is damaged, and the error names the file and the fix.
func TestReadKeyRefusesAShortOrDamagedKey(t *testing.T) {
	tests := []struct {
		name, file string
		wantLen    int // 0: refused
	}{
		{"32 bytes", strings.Repeat("ab", 32) + "\n", 32},
		{"16 bytes, the least", strings.Repeat("ab", 16), 16},
		{"15 bytes", strings.Repeat("ab", 15) + "\n", 0},
		{"20 bytes, then not hex", strings.Repeat("ab", 20) + "zz\n", 0},
		{"empty", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := t.TempDir()
			writeFile(t, filepath.Join(state, KeyFile), tt.file, 0o600)
			key, err := ReadKey(state)
			if tt.wantLen > 0 {
				if err != nil || len(key) != tt.wantLen {
					t.Fatalf("got %d bytes, %v; want a %d-byte key", len(key), err, tt.wantLen)
				}
				return
			}
			if err == nil || key != nil || !strings.Contains(err.Error(), filepath.Join(state, KeyFile)+" is damaged: delete it") {
				t.Fatalf("got %x, %v; want an error naming the damaged file", key, err)
			}
		})
	}
}

// A damaged approval key makes every approved tool changed, saying the key
// is damaged and what to do, not that its entry was signed by someone else.
func TestDamagedKeyIsNamed(t *testing.T) {
	_, r := lockedRegistry(t)
	if _, err := r.Approve(nil, "tester via test"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(r.opts.StateDir, KeyFile), "not a key\n", 0o600)
	tool := alpha(t, r)
	if tool.Ready || tool.Approval != ApprovalChanged || !strings.Contains(tool.NotReady, KeyFile+" is damaged: delete it") {
		t.Fatalf("with a damaged key: ready %v, %s: %s", tool.Ready, tool.Approval, tool.NotReady)
	}
}

// Approving a new tool lists what it declares: its actions, its secrets
// when it has any (and no secrets line when it has none), its files.
func TestApprovingANewToolListsItsSecrets(t *testing.T) {
	tests := []struct {
		name, manifest string
		want           string // the secrets line
	}{
		{"two secrets", strings.Replace(strings.ReplaceAll(validManifest, "%s", "alpha"), "entrypoint: bin",
			"entrypoint: bin\nsecrets:\n  - {name: api-token, env: ALPHA_TOKEN}\n  - {name: db-password, env: ALPHA_DB}", 1), "secrets: api-token from $ALPHA_TOKEN, db-password from $ALPHA_DB"},
		{"no secrets", "", "secrets: none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, r := lockedRegistry(t)
			if tt.manifest != "" {
				writeFile(t, filepath.Join(root, "alpha", "tool.yaml"), tt.manifest, 0o644)
			}
			changes, err := r.Approve([]string{"alpha"}, "tester via test")
			if err != nil {
				t.Fatal(err)
			}
			what := changes[0].What
			var secrets []string
			for _, line := range what {
				if strings.HasPrefix(line, "secrets") {
					secrets = append(secrets, line)
				}
			}
			if strings.Join(secrets, "|") != tt.want {
				t.Fatalf("approval of a new tool says %q; want the secrets line %q", what, tt.want)
			}
		})
	}
}

// The lock file is readable beside the plugins (0644), the key and the
// hash cache by their owner only (0600), whatever the umask made of the
// temporary file they were written through.
func TestApprovalFilesModes(t *testing.T) {
	_, r := lockedRegistry(t)
	cacheFile := filepath.Join(t.TempDir(), "cache", "hashes.json")
	r.opts.Hashes = NewHashCache(cacheFile, nil)
	if _, err := r.Approve(nil, "tester via test"); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{
		LockPath(r.opts.PluginDirs[0]):          0o644,
		filepath.Join(r.opts.StateDir, KeyFile): 0o600,
		cacheFile:                               0o600,
	} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if runtime.GOOS != "windows" && st.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", path, st.Mode().Perm(), want)
		}
	}
}

// A hash cache that cannot be saved says so and leaves nothing behind: no
// temporary file beside it for each scan (every 30 s) that tried.
func TestFailedSaveLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "plugin.bin")
	writeFile(t, file, "#!/bin/sh\n", 0o755)
	cacheDir := t.TempDir()
	cacheFile := filepath.Join(cacheDir, "hashes.json")
	// A folder where the cache file goes: the rename onto it fails.
	writeFile(t, filepath.Join(cacheFile, "keep"), "x", 0o644)
	hc := NewHashCache(cacheFile, []byte("0123456789abcdef0123456789abcdef"))
	if _, _, err := hc.Sum(file); err != nil {
		t.Fatal(err)
	}
	if _, ok := hc.entries[file]; !ok {
		t.Skip("this system gives no change time: nothing is cached, nothing saved")
	}
	if err := hc.Save(); err == nil || !strings.Contains(err.Error(), "registry: save hash cache") {
		t.Fatalf("save onto a folder: %v, want an error", err)
	}
	entries, err := os.ReadDir(cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "hashes.json" {
			t.Errorf("left behind beside the hash cache: %s", e.Name())
		}
	}
}

// An edited SKILL.md is read again at the next scan; an unchanged one is
// not parsed again.
func TestEditedSkillIsReadAgain(t *testing.T) {
	skills := t.TempDir()
	path := filepath.Join(skills, "sheet-tips", SkillFile)
	writeFile(t, path, "---\nname: sheet-tips\ndescription: First words.\n---\nbody\n", 0o644)
	writeFile(t, filepath.Join(skills, "other", SkillFile), "---\nname: other\ndescription: Left alone.\n---\nbody\n", 0o644)
	r := New(Options{SkillDirs: []string{skills}})
	first := r.Scan()
	writeFile(t, path, "---\nname: sheet-tips\ndescription: Second words.\n---\nbody\n", 0o644)
	second := r.Scan()
	if sk, _ := second.Skill("sheet-tips"); sk == nil || sk.Description != "Second words." {
		t.Fatalf("after the edit: %+v, want the description Second words.", sk)
	}
	a, _ := first.Skill("other")
	b, _ := second.Skill("other")
	if a != b {
		t.Error("an unchanged skill was parsed again")
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

// The cache folder (run copies and the hash cache) follows the user cache
// folder, $XDG_CACHE_HOME on Linux.
func TestDefaultCacheDir(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("XDG_CACHE_HOME is the cache folder on Linux only")
	}
	root := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", root)
	if got, want := DefaultCacheDir(), filepath.Join(root, "toolhost"); got != want {
		t.Errorf("DefaultCacheDir() = %s, want %s", got, want)
	}
	if got, want := DefaultRunDir(), filepath.Join(root, "toolhost", "run"); got != want {
		t.Errorf("DefaultRunDir() = %s, want %s", got, want)
	}
}

// A folder that changes between the scan and the copy is refused with what
// changed, and no run copy is left to be launched later.
func TestFolderChangedWhileCopiedLeavesNoCopy(t *testing.T) {
	root := t.TempDir()
	addTool(t, root, "alpha", "", true)
	runDir := filepath.Join(t.TempDir(), "run")
	tool, _ := New(Options{PluginDirs: []string{root}, RunDir: runDir}).Scan().Tool("alpha")
	if tool == nil || !tool.Ready {
		t.Fatalf("alpha: %+v", tool)
	}
	writeFile(t, filepath.Join(root, "alpha", "extra.txt"), "x", 0o644)
	_, err := RunCopy(tool, runDir, NewHashCache("", nil))
	if err == nil || !strings.Contains(err.Error(), "changed while it was copied (+extra.txt)") {
		t.Fatalf("run copy of a folder changed since the scan: %v", err)
	}
	entries, _ := os.ReadDir(runDir)
	if len(entries) != 0 {
		t.Fatalf("left in the run folder: %v", entries)
	}
}

// An approved tool whose folder changed after the scan is refused at its
// launch as an approval error (what a person does: approve it again), even
// when the scan read every file (no VerifyAtLaunch).
func TestApprovedFolderChangedAfterTheScan(t *testing.T) {
	root, r := lockedRegistry(t)
	if _, err := r.Approve(nil, "tester via test"); err != nil {
		t.Fatal(err)
	}
	tool := alpha(t, r)
	if !tool.Ready || tool.Unverified {
		t.Fatalf("alpha: ready %v, unverified %v: %s", tool.Ready, tool.Unverified, tool.NotReady)
	}
	writeFile(t, filepath.Join(root, "alpha", "lib", "helper.py"), "import os\n", 0o644)
	_, err := RunCopy(tool, r.opts.RunDir, NewHashCache("", nil))
	var ae *ApprovalError
	if !errors.As(err, &ae) || !strings.HasPrefix(ae.Reason, "changed — needs approval") ||
		!strings.Contains(ae.Reason, "~lib/helper.py") || !strings.Contains(ae.NextStep, "host approve alpha") {
		t.Fatalf("launch of an approved tool changed since the scan: %v, want an ApprovalError", err)
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

// Removing a run copy that is already gone is not an error.
func TestRemoveRunCopyOfAMissingFolder(t *testing.T) {
	if err := RemoveRunCopy(filepath.Join(t.TempDir(), "gone")); err != nil {
		t.Fatal(err)
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

// A given state or run folder is used as given; an empty one is the
// user's default (under XDG_STATE_HOME and the user cache folder).
func TestNewKeepsGivenFolders(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	given := New(Options{StateDir: "/given/state", RunDir: "/given/run"})
	if given.opts.StateDir != "/given/state" || given.opts.RunDir != "/given/run" {
		t.Errorf("given folders became %s and %s", given.opts.StateDir, given.opts.RunDir)
	}
	def := New(Options{})
	if def.opts.StateDir != DefaultStateDir() || def.opts.RunDir != DefaultRunDir() {
		t.Errorf("default folders are %s and %s, want %s and %s", def.opts.StateDir, def.opts.RunDir, DefaultStateDir(), DefaultRunDir())
	}
}

// Approving with a damaged key file refuses, names the file and leaves it
// as it was: a new key made silently would unapprove every tool.
func TestApproveWithADamagedKeyRefuses(t *testing.T) {
	_, r := lockedRegistry(t)
	keyFile := filepath.Join(r.opts.StateDir, KeyFile)
	writeFile(t, keyFile, "not a key\n", 0o600)
	if _, err := r.Approve(nil, "tester via test"); err == nil || !strings.Contains(err.Error(), keyFile+" is damaged") {
		t.Fatalf("approve with a damaged key: %v, want an error naming it", err)
	}
	if raw, _ := os.ReadFile(keyFile); string(raw) != "not a key\n" {
		t.Fatalf("the damaged key file now holds %q", raw)
	}
}

// An unknown name with nothing near it is refused without an empty "did
// you mean".
func TestApproveUnknownNameWithNothingNear(t *testing.T) {
	_, r := lockedRegistry(t)
	_, err := r.Approve([]string{"zzzzzzzz"}, "x")
	if err == nil || err.Error() != `registry: approve: no tool or agent named "zzzzzzzz"` {
		t.Fatalf("got %v", err)
	}
}

// A query word that is a whole word of a tool's or action's name ranks
// above one that is only part of a name, whatever the names' order.
func TestWholeNameWordsRankFirst(t *testing.T) {
	root := t.TempDir()
	addTool(t, root, "xlsx", "", true)
	for _, name := range []string{"asheetsx", "axlsx", "acredentialx"} {
		addTool(t, root, name, "name: "+name+"\ndescription: A tool for tests.\nversion: 1.0.0\nentrypoint: bin\nactions:\n"+
			"  - name: convert\n    description: Convert a file.\n    read_only: true\n", true)
	}
	snap := New(Options{PluginDirs: []string{root}}).Scan()
	tests := []struct{ query, want string }{
		{"sheet", "xlsx/read-sheet"},  // a word of the action's name; asheetsx has it inside
		{"xlsx", "xlsx/"},             // the tool's name; axlsx has it inside
		{"credential", "xlsx/list-c"}, // a plural word after a dash; acredentialx has it inside
		{"sheets", "xlsx/read-sheet"}, // a plural query for a singular word; asheetsx has it inside
	}
	for _, tt := range tests {
		got := snap.Search(tt.query, "")
		if len(got) == 0 || !strings.HasPrefix(got[0].Name+"/"+got[0].Action, tt.want) {
			t.Errorf("Search(%q) = %+v, want %s first", tt.query, got, tt.want)
		}
	}
}

// The debug log says when the hash cache could not be saved or a folder
// could not be watched, and says nothing of either when all went well.
func TestDebugLogNamesOnlyFailures(t *testing.T) {
	tests := []struct {
		name      string
		cacheDir  bool // a folder where the cache file goes
		wantSaved bool
	}{
		{"all well", false, true},
		{"cache not saved", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			addTool(t, root, "alpha", "", true)
			cacheFile := filepath.Join(t.TempDir(), "hashes.json")
			if tt.cacheDir {
				writeFile(t, filepath.Join(cacheFile, "keep"), "x", 0o644)
			}
			var log bytes.Buffer
			r := New(Options{PluginDirs: []string{root}, Hashes: NewHashCache(cacheFile, []byte("0123456789abcdef")),
				Logger: hclog.New(&hclog.LoggerOptions{Output: &log, Level: hclog.Debug})})
			w, err := r.StartWatch()
			if err != nil {
				t.Fatal(err)
			}
			w.Close()
			if _, ok := r.opts.Hashes.entries[filepath.Join(root, "alpha", "bin")]; !ok {
				t.Skip("this system gives no change time: nothing is cached, nothing saved")
			}
			if got := strings.Contains(log.String(), "hash cache not saved"); got == tt.wantSaved {
				t.Errorf("log says the cache was not saved: %v, want %v:\n%s", got, !tt.wantSaved, log.String())
			}
			if strings.Contains(log.String(), "watch folder") {
				t.Errorf("log speaks of watching folders that were all watched:\n%s", log.String())
			}
		})
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

// A folder added to (or removed from) an approved plugin, every file as it
// was, makes it changed, and the reason says so rather than nothing.
func TestAddedFolderIsNamedAsTheChange(t *testing.T) {
	root, r := lockedRegistry(t)
	if _, err := r.Approve(nil, "tester via test"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "alpha", "cache"), 0o755); err != nil {
		t.Fatal(err)
	}
	tool := alpha(t, r)
	if tool.Ready || !strings.HasPrefix(tool.NotReady, "changed — needs approval: folders added or removed (every file is as approved) since tester via test approved it") {
		t.Fatalf("after an empty folder was added: ready %v: %s", tool.Ready, tool.NotReady)
	}
	changes, err := r.Approve([]string{"alpha"}, "tester via test")
	if err != nil {
		t.Fatal(err)
	}
	if what := strings.Join(changes[0].What, "; "); what != "folders added or removed (every file is as approved)" {
		t.Fatalf("approve says %q", what)
	}
	// A changed file is named, and no folder is said to have changed.
	writeFile(t, filepath.Join(root, "alpha", "lib", "helper.py"), "import os\n", 0o644)
	if tool := alpha(t, r); !strings.HasPrefix(tool.NotReady, "changed — needs approval: changed files: ~lib/helper.py since") {
		t.Fatalf("after a file changed: %s", tool.NotReady)
	}
}

// Of two skills with the same name, the one found first (the skill folders
// in their order, then the plugin folders; each folder's children by name)
// is served and the other is listed broken, however many skills there are.
func TestFirstSkillOfANameWins(t *testing.T) {
	user, other := t.TempDir(), t.TempDir()
	skill := func(dir, folder, name, desc string) string {
		p := filepath.Join(dir, folder, SkillFile)
		writeFile(t, p, "---\nname: "+name+"\ndescription: "+desc+"\n---\nbody\n", 0o644)
		return p
	}
	for i := range 30 {
		skill(other, fmt.Sprintf("filler-%02d", i), fmt.Sprintf("filler-%02d", i), "Filler.")
	}
	first := skill(user, "z-tips", "tips", "From the user's folder.")
	second := skill(user, "zz-tips", "tips", "Also from the user's folder.")
	third := skill(other, "a-tips", "tips", "From the other folder.")
	snap := New(Options{SkillDirs: []string{user, other}}).Scan()
	if sk, _ := snap.Skill("tips"); sk == nil || sk.Path != first {
		t.Fatalf("served %+v, want %s", sk, first)
	}
	var broken []string
	for _, b := range snap.Broken {
		broken = append(broken, b.Path)
		if !strings.Contains(b.Error, `"tips" is already taken by `+first) {
			t.Errorf("broken %s: %s", b.Path, b.Error)
		}
	}
	if strings.Join(broken, " ") != second+" "+third {
		t.Fatalf("broken %v, want %s then %s", broken, second, third)
	}
}
