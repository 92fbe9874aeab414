package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/python"
)

// host runs `host ARGS…` in e and returns its exit code, stdout and stderr.
func (e *env) host(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(hostBin, args...)
	cmd.Env = e.vars
	cmd.Dir = e.plugins
	out, errOut, code := testplugin.Run(t, cmd)
	return code, string(out), string(errOut)
}

// listed is the tool's entry in `host list --json`, or nil.
func (e *env) listed(t *testing.T, name string) map[string]any {
	t.Helper()
	code, out, errOut := e.host(t, "list", "--json")
	if code != 0 {
		t.Fatalf("host list: exit %d: %s", code, errOut)
	}
	var l struct {
		Tools []map[string]any `json:"tools"`
	}
	must(t, json.Unmarshal([]byte(out), &l))
	for _, tool := range l.Tools {
		if tool["name"] == name {
			return tool
		}
	}
	return nil
}

// until calls run_tool tool/action until done says so, failing after a
// generous liveness limit; the watcher's pick-up time is not asserted.
func until(t *testing.T, cs *mcp.ClientSession, what string, args map[string]any, done func(sc map[string]any, isErr bool) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		sc, isErr := callTool(t, cs, "run_tool", args)
		if done(sc, isErr) {
			return sc
		}
		if time.Now().After(deadline) {
			t.Fatalf("never saw %s; last answer %v", what, sc)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestHandDroppedToolNeedsApproval: a plugin folder dropped in while the
// host serves is listed "new — needs approval" and refused with the command
// that approves it; after `host approve` it runs in the same session.
func TestHandDroppedToolNeedsApproval(t *testing.T) {
	e := newEnv(t)
	cs := goClient(t, e, "2025-11-25", nil)
	dir := filepath.Join(e.plugins, "handmade")
	must(t, os.MkdirAll(dir, 0o755))
	testplugin.CopyBinary(t, testplugin.Build(t, "2"), filepath.Join(dir, "testtool"))
	must(t, os.WriteFile(filepath.Join(dir, "tool.yaml"), []byte(strings.Replace(testplugin.Manifest, "name: testtool", "name: handmade", 1)), 0o644))

	args := map[string]any{"tool": "handmade", "action": "version"}
	sc := until(t, cs, "the dropped tool refused as needing approval", args, func(sc map[string]any, isErr bool) bool {
		if !isErr {
			t.Fatalf("an unapproved plugin ran: %v", sc)
		}
		return errorCode(sc) == "not_ready"
	})
	env := sc["error"].(map[string]any)
	if msg, next := env["message"].(string), env["next_step"].(string); !strings.Contains(msg, "new — needs approval") || !strings.Contains(next, "host approve handmade") {
		t.Fatalf("refusal does not say why and how to approve: %v", env)
	}
	if tool := e.listed(t, "handmade"); tool == nil || tool["approval"] != "new" || tool["ready"] != false {
		t.Fatalf("host list: %v", tool)
	}
	if _, out, _ := e.host(t, "list"); !strings.Contains(out, "new — needs approval") {
		t.Fatalf("host list does not say new — needs approval:\n%s", out)
	}

	code, out, errOut := e.host(t, "approve", "handmade")
	if code != 0 || !strings.Contains(out, "handmade: approved (it was new)") || !strings.Contains(out, "delete-thing (irreversible)") {
		t.Fatalf("host approve: exit %d\n%s%s", code, out, errOut)
	}
	sc = until(t, cs, "the approved tool running without a restart", args, func(sc map[string]any, isErr bool) bool { return !isErr })
	if sc["version"] != "2" {
		t.Fatalf("ran %v", sc)
	}
}

// TestTamperedPluginNeverRuns: after approval, a replaced binary, a run
// copy rewritten with its mtime restored, or an edited manifest (also one
// edited in place behind the manifest cache): none runs
// (in the serving host, in a fresh `host call`), each is listed as changed,
// and `host check` fails.
func TestTamperedPluginNeverRuns(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(t *testing.T, e *env)
		want   string // in the reason
	}{
		{"binary replaced", func(t *testing.T, e *env) {
			testplugin.CopyBinary(t, testplugin.Build(t, "2"), filepath.Join(e.plugins, "testtool", "testtool"))
		}, "changed files: ~testtool"},
		{"run copy rewritten, mtime restored", func(t *testing.T, e *env) {
			copies, _ := filepath.Glob(filepath.Join(e.cacheHome(), "toolhost", "run", "*", "testtool"))
			if len(copies) != 1 {
				t.Fatalf("run copies %v, want one", copies)
			}
			rewriteKeepMtime(t, copies[0], testplugin.Build(t, "2"))
		}, "run copy"},
		{"manifest edited", func(t *testing.T, e *env) {
			m := strings.Replace(testplugin.Manifest, "  - name: version\n    description: Say which build of the binary runs.\n    read_only: true\n",
				"  - name: version\n    description: Say which build of the binary runs.\n    reversible: true\n", 1)
			must(t, os.WriteFile(filepath.Join(e.plugins, "testtool", "tool.yaml"), []byte(m), 0o644))
		}, "action version was read-only, is now reversible"},
		{"manifest edited behind the manifest cache, mtime restored", func(t *testing.T, e *env) {
			// The serving host parsed the approved manifest and cached it;
			// the edit keeps the size and the mtime, so only its bytes
			// (the cache's key) show it.
			if _, err := os.Stat(registry.ManifestCachePath(filepath.Join(e.cacheHome(), "toolhost"))); err != nil {
				t.Fatalf("the serving host kept no manifest cache: %v", err)
			}
			path := filepath.Join(e.plugins, "testtool", "tool.yaml")
			st, err := os.Stat(path)
			must(t, err)
			m := strings.Replace(testplugin.Manifest, "timeout: 5s", "timeout: 9s", 1)
			must(t, os.WriteFile(path, []byte(m), 0o644))
			must(t, os.Chtimes(path, st.ModTime(), st.ModTime()))
		}, "changed files: ~tool.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			cs := goClient(t, e, "2025-11-25", nil)
			version := map[string]any{"tool": "testtool", "action": "version"}
			if sc, isErr := callTool(t, cs, "run_tool", version); isErr || sc["version"] != "1" {
				t.Fatalf("approved plugin: %v", sc)
			}
			// Stop the running process, so the next call launches again
			// (and the run copy is not a busy executable).
			callTool(t, cs, "run_tool", map[string]any{"tool": "testtool", "action": "crash"})
			tt.tamper(t, e)

			sc := until(t, cs, "the tampered plugin refused", version, func(sc map[string]any, isErr bool) bool {
				if !isErr {
					if sc["version"] != "1" {
						t.Fatalf("the tampered plugin ran: %v", sc)
					}
					return false
				}
				return errorCode(sc) == "not_ready"
			})
			if msg := sc["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "changed — needs approval") && !strings.Contains(msg, "run copy changed") {
				t.Fatalf("refusal: %v", sc)
			}
			if code, out, _ := e.host(t, "call", "testtool", "version"); code != 1 || !strings.Contains(out, "not_ready") {
				t.Fatalf("host call ran the tampered plugin: exit %d\n%s", code, out)
			}
			if tool := e.listed(t, "testtool"); tool["approval"] != "changed" || !strings.Contains(tool["not_ready"].(string), "changed — needs approval") ||
				!strings.Contains(tool["not_ready"].(string), tt.want) {
				t.Fatalf("host list: %v; want changed, saying %q", tool, tt.want)
			}
			if code, out, _ := e.host(t, "check"); code != 1 || !strings.Contains(out, "FAIL testtool") {
				t.Fatalf("host check passed a tampered plugin: exit %d\n%s", code, out)
			}
		})
	}
}

// cacheHome is XDG_CACHE_HOME in e.
func (e *env) cacheHome() string {
	home := ""
	for _, kv := range e.vars {
		if v, ok := strings.CutPrefix(kv, "XDG_CACHE_HOME="); ok {
			home = v
		}
	}
	return home
}

// rewriteKeepMtime overwrites path in place with src's bytes and sets its
// mode and modification time back: only the change time shows it.
func rewriteKeepMtime(t *testing.T, path, src string) {
	t.Helper()
	st, err := os.Stat(path)
	must(t, err)
	b, err := os.ReadFile(src)
	must(t, err)
	must(t, os.Chmod(filepath.Dir(path), 0o700))
	must(t, os.Chmod(path, 0o700))
	must(t, os.WriteFile(path, b, 0o700))
	must(t, os.Chmod(path, st.Mode().Perm()))
	must(t, os.Chmod(filepath.Dir(path), 0o500))
	must(t, os.Chtimes(path, st.ModTime(), st.ModTime()))
}

// TestBuildApprovesOnlyTrackedFolders is what `make build` runs
// (`host approve --tracked`) on a git checkout: the folder whose files git
// tracks unmodified (its built binary ignored, and the Python runtime make
// copies from sdk/python) is approved; a folder an agent wrote, a modified
// manifest, a stray file beside a shipped binary, or an edited copy of the
// runtime stay new — needs approval.
func TestBuildApprovesOnlyTrackedFolders(t *testing.T) {
	repo := t.TempDir()
	gitIn := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitIn("init", "-q")
	ignore, err := os.ReadFile(filepath.Join(repoRoot, ".gitignore"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(repo, ".gitignore"), ignore, 0o644))
	plugins := filepath.Join(repo, "plugins")
	bin := testplugin.Build(t, "1")
	add := func(name string) string {
		dir := filepath.Join(plugins, name)
		must(t, os.MkdirAll(dir, 0o755))
		must(t, os.WriteFile(filepath.Join(dir, "tool.yaml"), []byte(strings.Replace(testplugin.Manifest, "name: testtool", "name: "+name, 1)), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("# "+name+"\n"), 0o644))
		return dir
	}
	for _, name := range []string{"shipped", "edited", "payload", "oldruntime"} {
		add(name)
	}
	gitIn("add", ".")
	gitIn("commit", "-q", "-m", "shipped plugins")
	add("agentwrote") // never committed
	for _, name := range []string{"shipped", "edited", "payload", "agentwrote", "oldruntime"} {
		testplugin.CopyBinary(t, bin, filepath.Join(plugins, name, "testtool")) // the build output, git-ignored
	}
	for _, name := range []string{"shipped", "oldruntime"} { // make plugins' copies, git-ignored
		_, err := python.WriteRuntime(filepath.Join(plugins, name))
		must(t, err)
	}
	must(t, os.WriteFile(filepath.Join(plugins, "oldruntime", "plugin_pb2.py"), []byte("# an older runtime\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(plugins, "edited", "tool.yaml"), []byte(strings.Replace(testplugin.Manifest, "name: testtool", "name: edited", 1)+"# edited\n"), 0o644))
	testplugin.CopyBinary(t, bin, filepath.Join(plugins, "payload", "helper")) // ignored too, but not the entrypoint

	e := &env{plugins: plugins, vars: append(filteredEnviron(), "HOST_PLUGIN_PATH="+plugins, "HOST_SKILL_PATH="+t.TempDir(),
		"XDG_CACHE_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())}
	code, out, errOut := e.host(t, "approve", "--tracked")
	if code != 0 {
		t.Fatalf("host approve --tracked: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"shipped: approved (it was new)", "agentwrote: git does not track its tool.yaml",
		"edited: files not tracked unmodified in git: M plugins/edited/tool.yaml", "payload: files not tracked unmodified in git: !! plugins/payload/helper",
		"oldruntime: files not tracked unmodified in git: !! plugins/oldruntime/plugin_pb2.py"} {
		if !strings.Contains(out, want) {
			t.Errorf("approve --tracked does not say %q:\n%s", want, out)
		}
	}
	for name, want := range map[string]string{"shipped": "approved", "agentwrote": "new", "edited": "new", "payload": "new", "oldruntime": "new"} {
		tool := e.listed(t, name)
		if tool == nil || tool["approval"] != want || tool["ready"] != (want == "approved") {
			t.Errorf("%s after make build's approval: %v, want %s", name, tool, want)
		}
	}
	if code, out, _ := e.host(t, "call", "agentwrote", "version"); code != 1 || !strings.Contains(out, "new — needs approval") {
		t.Errorf("the folder an agent wrote ran: exit %d\n%s", code, out)
	}
}

// TestDevModeSkipsTheLockLoudly: `host serve --dev` runs an unapproved
// plugin and says on stderr that the lock is off.
func TestDevModeSkipsTheLockLoudly(t *testing.T) {
	e := newEnv(t)
	cmd := e.serveCmd("--dev")
	var stderr testplugin.LockedBuffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "dev-e2e", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	must(t, err)
	defer cs.Close()
	// Dropped in after the start, so nothing approved it.
	dir := filepath.Join(e.plugins, "unapproved")
	must(t, os.MkdirAll(dir, 0o755))
	testplugin.CopyBinary(t, testplugin.Build(t, "2"), filepath.Join(dir, "testtool"))
	must(t, os.WriteFile(filepath.Join(dir, "tool.yaml"), []byte(strings.Replace(testplugin.Manifest, "name: testtool", "name: unapproved", 1)), 0o644))
	until(t, cs, "--dev running the unapproved plugin", map[string]any{"tool": "unapproved", "action": "version"}, func(sc map[string]any, isErr bool) bool {
		if isErr && errorCode(sc) != "unknown_tool" {
			t.Fatalf("--dev refused the unapproved plugin: %v", sc)
		}
		return !isErr && sc["version"] == "2"
	})
	if !strings.Contains(stderr.String(), "approval lock is OFF") {
		t.Fatalf("--dev said nothing on stderr:\n%s", stderr.String())
	}
}

// TestStartChecksAtFirstLaunch: `host serve` reads no plugin folder at
// start that its hash cache has not seen (here the cache is deleted after
// the approval); the first call reads it before the launch. An unchanged
// plugin runs; one whose binary was swapped between the start and the
// first call is refused with what changed and the command that approves
// it, and is listed not ready from then on.
func TestStartChecksAtFirstLaunch(t *testing.T) {
	for _, swap := range []bool{false, true} {
		t.Run(fmt.Sprintf("swapped=%v", swap), func(t *testing.T) {
			e := newEnv(t)
			cmd := e.serveCmd() // approves, keeping the hashes: delete them
			must(t, os.RemoveAll(registry.HashCachePath(filepath.Join(e.cacheHome(), "toolhost"))))
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "lock-e2e", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd},
				&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			must(t, err)
			defer cs.Close() // started: its one scan is done
			if swap {
				// Rewritten in place, so the file list is unchanged and
				// only reading the binary shows it.
				b, err := os.ReadFile(testplugin.Build(t, "2"))
				must(t, err)
				must(t, os.WriteFile(filepath.Join(e.plugins, "testtool", "testtool"), b, 0o755))
			}
			sc, isErr := callTool(t, cs, "run_tool", map[string]any{"tool": "testtool", "action": "version"})
			if !swap {
				if isErr || sc["version"] != "1" {
					t.Fatalf("the unchanged plugin did not run: %v", sc)
				}
				return
			}
			if !isErr || errorCode(sc) != "not_ready" {
				t.Fatalf("the swapped binary ran or was refused wrongly: %v", sc)
			}
			env := sc["error"].(map[string]any)
			if msg, next := env["message"].(string), env["next_step"].(string); !strings.Contains(msg, "changed — needs approval") ||
				!strings.Contains(msg, "changed files: ~testtool") || !strings.Contains(next, "host approve testtool") {
				t.Fatalf("refusal does not say what changed and how to approve it: %v", env)
			}
			caps, _ := callTool(t, cs, "capabilities", map[string]any{})
			if !strings.Contains(fmt.Sprint(caps["not_ready"]), "testtool") {
				t.Fatalf("capabilities after the refused launch does not list testtool not ready: %v", caps)
			}
		})
	}
}
