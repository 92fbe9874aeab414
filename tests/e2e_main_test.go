// Package tests holds the end-to-end tests: they build the real host and
// plugin binaries once (TestMain) and drive `host serve` the way MCP
// clients do — raw JSON-RPC lines, the Go SDK's client, and the npm clients
// people use.
package tests

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/rpctest"
	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/sdk/python"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts under testdata/")

var (
	// repoRoot is the module's root folder.
	repoRoot string
	// hostBin is the built host binary (in a bin/ folder, as installed).
	hostBin string
	// realPlugins is a plugins folder holding every plugin under plugins/
	// that has a tool.yaml and builds.
	realPlugins string
	// realPluginNames are the plugins in realPlugins.
	realPluginNames []string
	// stateHome is the XDG_STATE_HOME of every host the tests start (set
	// in this process's environment too): the approval key is there, so
	// the plugins testplugin.Approve approves run with the lock on.
	stateHome string
)

func TestMain(m *testing.M) {
	flag.Parse()
	_, file, _, _ := runtime.Caller(0)
	repoRoot = filepath.Dir(filepath.Dir(file))
	tmp, err := os.MkdirTemp("", "toolhost-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(tmp)
		// The host and the plugins build at once: two go commands, each
		// compiling and linking its packages in parallel.
		hostBin = filepath.Join(tmp, "bin", "host")
		hostBuilt := make(chan error, 1)
		go func() {
			out, err := goBuild(hostBin, "./host", "-ldflags", "-X main.version="+hostVersion)
			if err != nil {
				err = fmt.Errorf("build host: %w\n%s", err, out)
			}
			hostBuilt <- err
		}()
		realPlugins = filepath.Join(tmp, "plugins")
		pluginsErr := buildRealPlugins(realPlugins, filepath.Join(tmp, "build"))
		if err := <-hostBuilt; err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if pluginsErr != nil {
			fmt.Fprintf(os.Stderr, "e2e: %v\n", pluginsErr)
			return 1
		}
		stateHome = filepath.Join(tmp, "state")
		if err := os.Setenv("XDG_STATE_HOME", stateHome); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if len(realPluginNames) > 0 {
			if err := testplugin.ApproveErr(realPlugins, stateHome, ""); err != nil {
				fmt.Fprintf(os.Stderr, "approve the real plugins: %v\n", err)
				return 1
			}
		}
		return m.Run()
	}()
	os.Exit(code)
}

// hostVersion is the version the e2e host is built with, so transcripts do
// not change with the release number.
const hostVersion = "0.0.0-e2e"

func goBuild(out, pkg string, flags ...string) ([]byte, error) {
	cmd := exec.Command("go", append(append([]string{"build"}, flags...), "-o", out, pkg)...)
	cmd.Dir = repoRoot
	return cmd.CombinedOutput()
}

// buildRealPlugins builds each plugins/NAME with a tool.yaml into
// dir/NAME, the Go ones in one go command (through the scratch folder
// build) with the settings `make plugins` uses, so they are the binaries a
// person runs and come from make's build cache. A plugin that does not
// build, or cannot be copied, fails the whole run: a test must never
// quietly fall back to the test plugin.
func buildRealPlugins(dir, build string) error {
	manifests, err := filepath.Glob(filepath.Join(repoRoot, "plugins", "*", "tool.yaml"))
	if err != nil || len(manifests) == 0 {
		return fmt.Errorf("no plugins/*/tool.yaml under %s (%v)", repoRoot, err)
	}
	type goPlugin struct{ name, entry string }
	var goPlugins []goPlugin
	var pkgs []string
	for _, m := range manifests {
		src := filepath.Dir(m)
		name := filepath.Base(src)
		raw, err := os.ReadFile(m)
		if err != nil {
			return fmt.Errorf("plugin %s: %w", name, err)
		}
		dst := filepath.Join(dir, name)
		if !hasGoSources(src) {
			// A plugin in another language (plugins/text) runs as it is;
			// one in Python gets the runtime of sdk/python, as make does.
			if err := copyTree(src, dst); err != nil {
				return fmt.Errorf("plugin %s: copy: %w", name, err)
			}
			if py, _ := filepath.Glob(filepath.Join(src, "*.py")); len(py) > 0 {
				if _, err := python.WriteRuntime(dst); err != nil {
					return fmt.Errorf("plugin %s: %w", name, err)
				}
			}
			realPluginNames = append(realPluginNames, name)
			continue
		}
		entry := name
		for _, line := range strings.Split(string(raw), "\n") {
			if v, ok := strings.CutPrefix(line, "entrypoint:"); ok {
				entry = strings.TrimSpace(strings.SplitN(v, "#", 2)[0])
			}
		}
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return fmt.Errorf("plugin %s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(dst, "tool.yaml"), raw, 0o644); err != nil {
			return fmt.Errorf("plugin %s: %w", name, err)
		}
		goPlugins = append(goPlugins, goPlugin{name, entry})
		pkgs = append(pkgs, "./plugins/"+name)
	}
	if len(pkgs) == 0 {
		return nil
	}
	// As the Makefile's PLUGIN_CGO and PLUGIN_TAGS.
	cmd := exec.Command("go", append([]string{"build", "-tags", "grpcnotrace", "-o", build + string(filepath.Separator)}, pkgs...)...)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("plugins %v do not all build (fix them, or the tests that use them cannot run): %w\n%s", pkgs, err, firstLines(string(out), 20))
	}
	for _, p := range goPlugins {
		if err := os.Rename(filepath.Join(build, p.name), filepath.Join(dir, p.name, p.entry)); err != nil {
			return fmt.Errorf("plugin %s: %w", p.name, err)
		}
		realPluginNames = append(realPluginNames, p.name)
	}
	slices.Sort(realPluginNames)
	return nil
}

// hasGoSources reports whether dir holds Go sources other than tests.
func hasGoSources(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			return true
		}
	}
	return false
}

// copyTree copies the regular files under src to dst, keeping their modes
// (an interpreted plugin's entrypoint stays executable); Go tests and
// interpreter caches are left out.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if d.Name() == "__pycache__" {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		}
		if strings.HasSuffix(path, "_test.go") || !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// env is one host installation for a test: a plugins folder with the test
// plugin (and fixtures), a skills folder, and host-owned caches.
type env struct {
	plugins string
	skills  string
	vars    []string
	t       testing.TB
}

// sheetsManifest is a fixture tool with sheet-like actions. Its binary is
// the test plugin, which does not implement them: the tests only ask about
// it (capabilities, did_you_mean, the gate), which never starts it.
const sheetsManifest = `name: sheets
kind: tool
description: Fixture spreadsheet tool for the transcripts.
version: 0.0.1
entrypoint: sheets
actions:
  - name: list-sheets
    description: List the sheets of a workbook.
    read_only: true
    args:
      - {name: path, type: string, required: true, description: Local .xlsx file}
  - name: read-sheet
    description: Read one sheet's rows as a JSON 2D array.
    read_only: true
    args:
      - {name: path, type: string, required: true, description: Local .xlsx file}
      - {name: sheet, type: string, description: Sheet name (default first)}
      - {name: max-results, type: integer, minimum: 1, default: 1000, description: Most rows to return}
    narrow_with: [sheet, max-results]
`

// bigManifest is a fixture tool whose full schema is over the transcripts'
// HOST_CAPABILITIES_MAX_BYTES, so {name} answers its index.
func bigManifest() string {
	var b strings.Builder
	b.WriteString("name: bigtool\nkind: tool\ndescription: Fixture tool with many actions.\nversion: 0.0.1\nentrypoint: bigtool\nactions:\n")
	for i := range 12 {
		fmt.Fprintf(&b, "  - name: action-%02d\n    description: Fixture action number %d, described at some length so the schema grows.\n    read_only: true\n    args:\n", i, i)
		for _, a := range []string{"alpha", "beta", "gamma"} {
			fmt.Fprintf(&b, "      - {name: %s, type: string, description: The %s argument of this action}\n", a, a)
		}
	}
	return b.String()
}

const skillMD = `---
name: weekly-review
description: How to review the week's spend with the usage and notes tools.
---
# Weekly review

1. Call capabilities with {"search":"usage"}.
2. Run the usage tool's get-savings action.
`

func newEnv(t *testing.T, extra ...string) *env {
	t.Helper()
	e := &env{plugins: t.TempDir(), skills: t.TempDir(), t: t}
	dir := testplugin.Install(t, e.plugins, "1")
	bin := filepath.Join(dir, "testtool")
	for name, manifest := range map[string]string{"sheets": sheetsManifest, "bigtool": bigManifest()} {
		d := filepath.Join(e.plugins, name)
		must(t, os.MkdirAll(d, 0o755))
		must(t, os.WriteFile(filepath.Join(d, "tool.yaml"), []byte(manifest), 0o644))
		testplugin.CopyBinary(t, bin, filepath.Join(d, name))
	}
	must(t, os.MkdirAll(filepath.Join(e.skills, "weekly-review"), 0o755))
	must(t, os.WriteFile(filepath.Join(e.skills, "weekly-review", "SKILL.md"), []byte(skillMD), 0o644))
	home := t.TempDir()
	e.vars = append(filteredEnviron(),
		"HOST_PLUGIN_PATH="+e.plugins,
		"HOST_SKILL_PATH="+e.skills,
		"XDG_CACHE_HOME="+filepath.Join(home, "cache"),
		"XDG_DATA_HOME="+filepath.Join(home, "data"),
		"XDG_STATE_HOME="+stateHome,
		"HOST_LOG_LEVEL=debug",
	)
	e.vars = append(e.vars, extra...)
	e.approve()
	return e
}

// approve approves every plugin in e's plugins folder with the approval key
// of the XDG_STATE_HOME the host gets (the last one in e.vars), so the
// end-to-end tests run with the lock on, and keeps the files' hashes in the
// hash cache of its XDG_CACHE_HOME, as `host approve` does. newEnv and serveCmd call it: what a
// test installs before starting the host runs; what it drops in while the
// host serves waits for approval.
func (e *env) approve() {
	state, cache := stateHome, ""
	for _, kv := range e.vars {
		if v, ok := strings.CutPrefix(kv, "XDG_STATE_HOME="); ok {
			state = v
		}
		if v, ok := strings.CutPrefix(kv, "XDG_CACHE_HOME="); ok {
			cache = v
		}
	}
	if err := testplugin.ApproveErr(e.plugins, state, cache); err != nil {
		e.t.Fatalf("approve %s: %v", e.plugins, err)
	}
}

// filteredEnviron is the test's environment without HOST_* settings.
func filteredEnviron() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOST_") {
			out = append(out, kv)
		}
	}
	return out
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// serveCmd is `host serve` in e.
func (e *env) serveCmd(args ...string) *exec.Cmd {
	if e.t != nil {
		e.approve()
	}
	cmd := exec.Command(hostBin, append([]string{"serve"}, args...)...)
	cmd.Env = e.vars
	cmd.Dir = e.plugins
	return cmd
}

// wireProc is a `host serve` process driven with raw JSON-RPC lines
// through rpctest, the one JSON-RPC test driver.
type wireProc struct {
	*rpctest.Conn
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  <-chan string // every line the host wrote (rpctest's)
	stderr *testplugin.LockedBuffer
	exited chan struct{} // closed when the process has exited
	err    error         // its exit status, once exited is closed
}

func (e *env) startWire(t *testing.T) *wireProc {
	t.Helper()
	cmd := e.serveCmd()
	stdin, err := cmd.StdinPipe()
	must(t, err)
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	w := &wireProc{t: t, cmd: cmd, stdin: stdin, stderr: &testplugin.LockedBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = w.stderr
	must(t, cmd.Start())
	w.Conn = rpctest.New(t, stdin, stdout)
	w.Conn.Context = func() string { return "host stderr:\n" + w.stderr.String() }
	w.lines = w.Conn.Lines()
	go func() {
		<-w.Conn.Ended()
		w.err = cmd.Wait()
		close(w.exited)
	}()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-w.exited:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("host stderr:\n%s", w.stderr.String())
		}
	})
	return w
}

// closeAndWait closes stdin and waits for the host to exit.
func (w *wireProc) closeAndWait() error {
	w.t.Helper()
	w.stdin.Close()
	for range w.lines {
	}
	select {
	case <-w.exited:
		return w.err
	case <-time.After(60 * time.Second):
		w.t.Fatal("host did not exit after stdin closed")
	}
	return nil
}

// structured returns a tools/call answer's structuredContent and isError.
func structured(t *testing.T, m map[string]any) (map[string]any, bool) {
	t.Helper()
	res, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("not a result: %v", m)
	}
	sc, _ := res["structuredContent"].(map[string]any)
	isErr, _ := res["isError"].(bool)
	return sc, isErr
}

func errorCode(sc map[string]any) string {
	e, _ := sc["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func (w *wireProc) initialize() { w.Initialize("e2e-wire") }

func runToolLine(id int, tool, action, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool":%q,"action":%q,"args":%s}}}`, id, tool, action, args)
}

var _ = context.Background
