// Package testplugin builds the misbehaving test plugin
// (testdata/plugins/testtool) into a plugin folder for the host's tests.
package testplugin

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/registry"
)

// Manifest is the tool.yaml of the test plugin, named testtool.
const Manifest = `name: testtool
kind: tool
description: A plugin that misbehaves on request, for the host's tests.
version: 1.0.0
entrypoint: testtool
timeout: 5s
concurrency: 2
env: [TESTTOOL_PASS]
actions:
  - name: echo
    description: Echo the text back with the caller info.
    read_only: true
    args:
      - {name: text, type: string, required: true, description: What to echo}
      - {name: max-results, type: integer, minimum: 1, description: Unused limit}
  - name: slow
    description: Sleep for ms milliseconds, reporting progress.
    read_only: true
    args:
      - {name: ms, type: integer, minimum: 0, required: true}
  - name: crash
    description: Exit the process in the middle of the call.
    read_only: true
  - name: panic
    description: Panic in the handler.
    read_only: true
  - name: stdin
    description: Read stdin to EOF.
    read_only: true
  - name: env
    description: List the environment variable names the plugin sees.
    read_only: true
  - name: garbage
    description: Print garbage to stdout, then succeed.
    read_only: true
  - name: big
    description: Return a result of about the given size.
    read_only: true
    args:
      - {name: bytes, type: integer, minimum: 0, required: true}
    narrow_with: [bytes]
  - name: version
    description: Say which build of the binary runs.
    read_only: true
  - name: delete-thing
    description: Pretend to delete a thing (irreversible by name).
    args:
      - {name: text, type: string, required: true}
  - name: fail
    description: Fail with a plugin error code.
    read_only: true
  - name: relay
    description: Call another tool through the host (agents only).
    read_only: true
    args:
      - {name: tool, type: string, required: true}
      - {name: action, type: string, required: true}
      - {name: args, type: object}
      - {name: confirmed, type: boolean}
  - name: keep-host
    description: Keep this call's host client for later calls, report progress, and wait until the call ends.
    read_only: true
  - name: relay-kept
    description: Call another tool through the host client keep-host kept (another call's), with this call's context.
    read_only: true
    args:
      - {name: tool, type: string, required: true}
      - {name: action, type: string, required: true}
      - {name: args, type: object}
      - {name: confirmed, type: boolean}
      - {name: background, type: boolean, description: Use a context of no call instead of this call's}
  - name: hold
    description: Write "started" to a named pipe, wait for the call's cancellation, write ctx.Err() to it.
    read_only: true
    args:
      - {name: fifo, type: string, required: true}
  - name: spawn
    description: Start a child process that sleeps, and leave it running.
    read_only: true
  - name: escape
    description: Leave a grandchild that calls setsid (its own session and group) sleeping, its parent gone.
    read_only: true
  - name: hog
    description: Hold mb MiB of memory until the call ends.
    read_only: true
    args:
      - {name: mb, type: integer, minimum: 1, required: true}
  - name: spin
    description: Burn CPU until the call ends.
    read_only: true
  - name: storm
    description: Misbehave (panic, exit, hang, garbage) on a random percent of calls; else echo n.
    read_only: true
    args:
      - {name: n, type: integer}
      - {name: percent, type: integer, minimum: 0, maximum: 100}
`

// AgentManifest is the test plugin's binary declared as an agent named
// testagent, which may call testtool: the host gives it a host client for
// its relay action.
var AgentManifest = strings.Replace(Manifest, "name: testtool\nkind: tool", "name: testagent\nkind: agent\nuses: [testtool]", 1)

var (
	buildMu sync.Mutex
	built   = map[string]string{}
)

// Build compiles the test plugin with the given version string (cached per
// version for the test binary's lifetime) and returns the binary's path.
func Build(t testing.TB, version string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if p, ok := built[version]; ok {
		return p
	}
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", "testdata", "plugins", "testtool")
	dir, err := os.MkdirTemp("", "testtool-build-")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "testtool")
	cmd := exec.Command("go", "build", "-ldflags", "-X main.version="+version, "-o", out, ".")
	cmd.Dir = src
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build test plugin: %v\n%s", err, b)
	}
	built[version] = out
	return out
}

// Install puts the test plugin (built with version) and its manifest into
// pluginsDir/testtool and returns that folder.
func Install(t testing.TB, pluginsDir, version string) string {
	t.Helper()
	return install(t, filepath.Join(pluginsDir, "testtool"), Manifest, version)
}

// install puts the test plugin (built with version) and manifest into dir.
func install(t testing.TB, dir, manifest, version string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tool.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	CopyBinary(t, Build(t, version), filepath.Join(dir, "testtool"))
	return dir
}

// CopyBinary copies an executable atomically (write then rename), as an
// author's build would replace it.
func CopyBinary(t testing.TB, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		t.Fatal(err)
	}
}

// InstallAgent puts the test plugin, declared as the agent testagent, into
// pluginsDir/testagent and returns that folder.
func InstallAgent(t testing.TB, pluginsDir string) string {
	t.Helper()
	return install(t, filepath.Join(pluginsDir, "testagent"), AgentManifest, "1")
}

// Approve approves every plugin in pluginsDir, as `host approve --all`
// does, with the approval key under stateHome: the XDG_STATE_HOME of the
// host under test ("" means this process's). A host started with that
// XDG_STATE_HOME runs them. Call it after installing or replacing a plugin;
// the end-to-end tests run with the approval lock on. The hashes it reads
// are not kept: use ApproveCached for a host that should find them.
func Approve(t testing.TB, pluginsDir, stateHome string) {
	t.Helper()
	if err := approve(pluginsDir, stateHome, ""); err != nil {
		t.Fatal(err)
	}
}

// ApproveCached is Approve that also keeps, as `host approve` does, the
// files' hashes in the persisted hash cache under cacheHome (the host's
// XDG_CACHE_HOME), so the host's start finds them.
func ApproveCached(t testing.TB, pluginsDir, stateHome, cacheHome string) {
	t.Helper()
	if err := approve(pluginsDir, stateHome, cacheHome); err != nil {
		t.Fatal(err)
	}
}

// ApproveErr is ApproveCached for TestMain, where there is no testing.TB
// (cacheHome "": the hashes are not kept).
func ApproveErr(pluginsDir, stateHome, cacheHome string) error {
	return approve(pluginsDir, stateHome, cacheHome)
}

func approve(pluginsDir, stateHome, cacheHome string) error {
	stateDir := registry.DefaultStateDir()
	if stateHome != "" {
		stateDir = filepath.Join(stateHome, "toolhost")
	}
	hashes := registry.NewHashCache("", nil)
	if cacheHome != "" {
		// The key is read as the host reads it; Approve makes it when
		// there is none yet.
		key, err := registry.ReadKey(stateDir)
		if err != nil {
			return err
		}
		hashes = registry.NewHashCache(registry.HashCachePath(filepath.Join(cacheHome, "toolhost")), key)
	}
	r := registry.New(registry.Options{PluginDirs: []string{pluginsDir}, RequireApproval: true, StateDir: stateDir,
		RunDir: filepath.Join(stateDir, "no-run-copies"), Hashes: hashes})
	_, err := r.Approve(nil, "test via testplugin.Approve")
	return err
}
