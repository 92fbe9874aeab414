package registry

import (
	"bytes"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
)

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
		"entrypoint: bin\nsecrets:\n  - {name: api-token, env: REGISTRY_TEST_TOKEN, required: true}", 1), true)
	tests := []struct {
		name      string
		getenv    func(string) string
		env       string
		wantReady bool
	}{
		{"given Getenv has it", func(k string) string { return map[string]string{"REGISTRY_TEST_TOKEN": "t0k"}[k] }, "", true},
		{"given Getenv lacks it, the environment has it", func(string) string { return "" }, "t0k", false},
		{"no Getenv, the environment has it", nil, "t0k", true},
		{"no Getenv, the environment lacks it", nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("REGISTRY_TEST_TOKEN", tt.env)
			tool, _ := New(Options{PluginDirs: []string{root}, Getenv: tt.getenv}).Scan().Tool("secret")
			if tool == nil {
				t.Fatal("secret not loaded")
			}
			if tool.Ready != tt.wantReady {
				t.Fatalf("ready %v (%s), want %v", tool.Ready, tool.NotReady, tt.wantReady)
			}
			if !tt.wantReady && !strings.Contains(tool.NotReady, "secret api-token needs environment variable REGISTRY_TEST_TOKEN") {
				t.Fatalf("not ready for %q, want it to name the secret and its variable", tool.NotReady)
			}
		})
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
