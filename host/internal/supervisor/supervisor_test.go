//go:build linux

// The supervisor's tests drive the Linux process hygiene (/proc,
// Pdeathsig, the reaper as /proc/self/exe); for macOS and Windows `make
// test` cross-compiles and vets the package (make cross).

package supervisor

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// fixture is a plugins folder with the test plugin, its registry and a
// supervisor.
type fixture struct {
	plugins string
	reg     *registry.Registry
	sup     *Supervisor
}

func newFixture(t testing.TB, manifestEdit func(string) string, opts Options) *fixture {
	t.Helper()
	plugins := t.TempDir()
	dir := testplugin.Install(t, plugins, "1")
	if manifestEdit != nil {
		b, _ := os.ReadFile(filepath.Join(dir, "tool.yaml"))
		if err := os.WriteFile(filepath.Join(dir, "tool.yaml"), []byte(manifestEdit(string(b))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reg := registry.New(registry.Options{PluginDirs: []string{plugins}})
	snap := reg.Scan()
	if len(snap.Broken) > 0 || len(snap.Tools) != 1 || !snap.Tools[0].Ready {
		t.Fatalf("test plugin not loaded: %+v %+v", snap.Broken, snap.Tools)
	}
	if opts.CacheDir == "" {
		opts.CacheDir = t.TempDir()
	}
	if opts.Reaper == "" {
		opts.Reaper = "/proc/self/exe" // this test binary; TestMain runs Reap
	}
	sup := New(opts)
	t.Cleanup(sup.Close)
	return &fixture{plugins: plugins, reg: reg, sup: sup}
}

func (f *fixture) tool(t testing.TB) *registry.Tool {
	t.Helper()
	tool, _ := f.reg.Snapshot().Tool("testtool")
	if tool == nil {
		t.Fatal("testtool not in the registry")
	}
	return tool
}

func (f *fixture) call(t *testing.T, ctx context.Context, action string, args any) *wire.Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	if args == nil {
		raw = []byte("{}")
	}
	return f.sup.Call(ctx, f.tool(t), &wire.CallRequest{Action: action, ArgsJson: raw,
		Caller: &wire.Caller{ClientName: "test"}}, nil)
}

// startSlow starts a slow call on tool and returns once the plugin is
// running it (its first progress event arrived), with the channel its
// result will come on. Tests use it instead of sleeping, so a loaded
// machine cannot reorder them.
func (f *fixture) startSlow(t testing.TB, ctx context.Context, tool *registry.Tool, ms int) <-chan *wire.Result {
	t.Helper()
	started := make(chan struct{})
	var once sync.Once
	done := make(chan *wire.Result, 1)
	go func() {
		done <- f.sup.Call(ctx, tool, &wire.CallRequest{Action: "slow", ArgsJson: []byte(fmt.Sprintf(`{"ms":%d}`, ms))},
			func(*wire.Progress) { once.Do(func() { close(started) }) })
	}()
	select {
	case <-started:
	case r := <-done:
		t.Fatalf("slow call ended before it started: %v", r)
	case <-time.After(30 * time.Second):
		t.Fatal("slow call never started")
	}
	return done
}

// holdSlots starts n slow calls on tool that run until the returned func
// cancels them, returning once the plugin runs each, with the channels
// their results come on. The slots they take stay taken however slow the
// machine: a call of a fixed length, as these tests used, could end and
// free its slot before the test looked. The fixture's manifest must give
// them time (longTimeout).
func (f *fixture) holdSlots(t testing.TB, tool *registry.Tool, n int) (results []<-chan *wire.Result, release func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	for range n {
		results = append(results, f.startSlow(t, ctx, tool, int(10*time.Minute/time.Millisecond)))
	}
	return results, cancel
}

// longTimeout gives the test plugin's manifest a timeout of 10m, for calls
// that must run until the test ends them.
func longTimeout(m string) string { return strings.Replace(m, "timeout: 5s", "timeout: 10m", 1) }

func decode(t *testing.T, r *wire.Result) map[string]any {
	t.Helper()
	if r.GetError() != nil {
		t.Fatalf("call failed: %s: %s", r.GetError().GetCode(), r.GetError().GetMessage())
	}
	var m map[string]any
	if err := json.Unmarshal(r.GetJson(), &m); err != nil {
		t.Fatalf("result is not JSON: %v: %s", err, r.GetJson())
	}
	return m
}

func wantCode(t *testing.T, r *wire.Result, code wire.Code) {
	t.Helper()
	if wire.Code(r.GetError().GetCode()) != code {
		t.Fatalf("got %v, want error code %s", r, code)
	}
}

func TestEchoCarriesCallerAndMarkdown(t *testing.T) {
	f := newFixture(t, nil, Options{})
	r := f.call(t, context.Background(), "echo", map[string]any{"text": "héllo"})
	m := decode(t, r)
	if m["text"] != "héllo" || m["caller"].(map[string]any)["client_name"] != "test" {
		t.Fatalf("got %v", m)
	}
	if r.GetMarkdown() != "**echo:** héllo" {
		t.Fatalf("got markdown %q", r.GetMarkdown())
	}
}

func TestPluginStdinIsEOF(t *testing.T) {
	f := newFixture(t, nil, Options{})
	m := decode(t, f.call(t, context.Background(), "stdin", nil))
	if m["eof"] != true || m["bytes"].(float64) != 0 {
		t.Fatalf("plugin stdin is not /dev/null: %v", m)
	}
}

func TestPluginEnvironmentIsScrubbed(t *testing.T) {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=/home/x", "HOST_SECRET_TOKEN=leak", "TESTTOOL_PASS=yes", "XDG_DATA_HOME=/d", "AWS_SECRET_ACCESS_KEY=leak"}
	f := newFixture(t, nil, Options{Environ: env})
	m := decode(t, f.call(t, context.Background(), "env", nil))
	names := fmt.Sprint(m["names"])
	for _, want := range []string{"PATH", "HOME", "TESTTOOL_PASS", "XDG_DATA_HOME"} {
		if !strings.Contains(names, want) {
			t.Errorf("plugin env lacks %s: %s", want, names)
		}
	}
	for _, leak := range []string{"HOST_SECRET_TOKEN", "AWS_SECRET_ACCESS_KEY"} {
		if strings.Contains(names, leak) {
			t.Errorf("plugin env has host variable %s: %s", leak, names)
		}
	}
	wd, _ := os.Getwd()
	if m["wd"] != wd {
		t.Errorf("plugin runs in %v, want the host's working directory %s", m["wd"], wd)
	}
}

func TestPanicIsInternalErrorAndConcurrentCallSurvives(t *testing.T) {
	f := newFixture(t, nil, Options{})
	ctx := context.Background()
	done := f.startSlow(t, ctx, f.tool(t), 300)
	wantCode(t, f.call(t, ctx, "panic", nil), wire.CodeInternalError)
	slow := <-done
	if decode(t, slow)["slept_ms"].(float64) != 300 {
		t.Fatalf("concurrent call did not finish: %v", slow)
	}
}

func TestCrashThenRelaunch(t *testing.T) {
	f := newFixture(t, nil, Options{Backoff: time.Millisecond})
	ctx := context.Background()
	r := f.call(t, ctx, "crash", nil)
	wantCode(t, r, wire.CodePluginCrashed)
	if m := decode(t, f.call(t, ctx, "echo", map[string]any{"text": "again"})); m["text"] != "again" {
		t.Fatalf("relaunch failed: %v", m)
	}
}

func TestKeepsCrashingIsDisabled(t *testing.T) {
	clock := newFakeClock()
	f := newFixture(t, nil, Options{Backoff: time.Millisecond, MaxCrashes: 2, Clock: clock})
	ctx := context.Background()
	wantCode(t, f.call(t, ctx, "crash", nil), wire.CodePluginCrashed)
	clock.Advance(time.Second)
	wantCode(t, f.call(t, ctx, "crash", nil), wire.CodePluginCrashed)
	r := f.call(t, ctx, "echo", map[string]any{"text": "x"})
	wantCode(t, r, wire.CodeDisabled)
	if !strings.Contains(r.GetError().GetMessage(), "crashed 2 times") {
		t.Fatalf("disabled reason unclear: %s", r.GetError().GetMessage())
	}
}

func TestTimeoutNamesTheManifestLimit(t *testing.T) {
	f := newFixture(t, func(m string) string { return strings.Replace(m, "timeout: 5s", "timeout: 1s", 1) }, Options{})
	r := f.call(t, context.Background(), "slow", map[string]any{"ms": 5000})
	wantCode(t, r, wire.CodeTimeout)
	if !strings.Contains(r.GetError().GetMessage(), "1s") {
		t.Fatalf("timeout message does not name the limit: %s", r.GetError().GetMessage())
	}
}

// TestCancellationReachesPlugin: a caller's cancellation ends the call in
// the plugin, which goes on serving. The call would run 10 minutes: one of
// 4 s, as it was, finished by itself when the cancel came later than that
// on a loaded machine.
func TestCancellationReachesPlugin(t *testing.T) {
	f := newFixture(t, longTimeout, Options{})
	decode(t, f.call(t, context.Background(), "echo", map[string]any{"text": "warm"}))
	ctx, cancel := context.WithCancel(context.Background())
	done := f.startSlow(t, ctx, f.tool(t), int(10*time.Minute/time.Millisecond))
	cancel()
	wantCode(t, <-done, wire.CodeCancelled)
	// The plugin is still healthy: the cancelled handler returned.
	decode(t, f.call(t, context.Background(), "echo", map[string]any{"text": "after"}))
}

// TestBusyBeyondTheQueue: with a tool's slots taken and its queue full, one
// more call is busy at once; the queued calls run once the slots free. The
// slots are held until the test lets go: held for 1.5 s, as they were, a
// machine slow to queue the two calls and make the third let one of them
// take a slot, and the third then queued instead of being busy.
func TestBusyBeyondTheQueue(t *testing.T) {
	f := newFixture(t, longTimeout, Options{QueueFactor: 1}) // concurrency 2, 2 waiting
	ctx := context.Background()
	tool := f.tool(t)
	decode(t, f.call(t, ctx, "echo", map[string]any{"text": "warm"}))
	running, release := f.holdSlots(t, tool, 2)
	waiting := make(chan *wire.Result, 2)
	for i := 0; i < 2; i++ {
		go func() { waiting <- f.call(t, ctx, "slow", map[string]any{"ms": 10}) }()
	}
	f.sup.mu.Lock()
	st := f.sup.tools["testtool"]
	f.sup.mu.Unlock()
	for deadline := time.Now().Add(30 * time.Second); len(st.wait) < 2; {
		if time.Now().After(deadline) {
			t.Fatal("the two extra calls never queued")
		}
		time.Sleep(10 * time.Millisecond)
	}
	wantCode(t, f.call(t, ctx, "echo", map[string]any{"text": "one too many"}), wire.CodeBusy)
	release()
	for _, r := range running {
		wantCode(t, <-r, wire.CodeCancelled)
	}
	decode(t, <-waiting)
	decode(t, <-waiting)
}

func TestProgressIsForwarded(t *testing.T) {
	f := newFixture(t, nil, Options{})
	var mu sync.Mutex
	n := 0
	r := f.sup.Call(context.Background(), f.tool(t), &wire.CallRequest{Action: "slow", ArgsJson: []byte(`{"ms":200}`)},
		func(*wire.Progress) { mu.Lock(); n++; mu.Unlock() })
	decode(t, r)
	if n == 0 {
		t.Fatal("no progress event reached the host")
	}
}

func TestGarbageOnPluginStdoutDoesNotBreakCalls(t *testing.T) {
	f := newFixture(t, nil, Options{})
	decode(t, f.call(t, context.Background(), "garbage", nil))
	decode(t, f.call(t, context.Background(), "echo", map[string]any{"text": "still fine"}))
}

func TestPluginErrorCrossesAsData(t *testing.T) {
	f := newFixture(t, nil, Options{})
	r := f.call(t, context.Background(), "fail", nil)
	if e := r.GetError(); e.GetCode() != "thing_not_found" || e.GetNextStep() != "try another thing" {
		t.Fatalf("got %v", r)
	}
}

func TestReplacedBinaryWhileCallRuns(t *testing.T) {
	f := newFixture(t, nil, Options{})
	ctx := context.Background()
	done := f.startSlow(t, ctx, f.tool(t), 500)
	testplugin.CopyBinary(t, testplugin.Build(t, "2"), filepath.Join(f.plugins, "testtool", "testtool"))
	f.reg.Scan()
	if v := decode(t, f.call(t, ctx, "version", nil))["version"]; v != "2" {
		t.Fatalf("next call ran version %v, want 2", v)
	}
	if v := decode(t, <-done)["version"]; v != "1" {
		t.Fatalf("in-flight call ran version %v, want 1", v)
	}
}

// TestIdleStopAfterDrain: a plugin with a call in flight is never idle,
// however long the call runs past Idle; once its calls drain it stops after
// Idle. The call is held while the test looks: checked right after a
// finished call, as it was, a machine that took more than Idle to look
// could find it stopped already.
func TestIdleStopAfterDrain(t *testing.T) {
	f := newFixture(t, longTimeout, Options{Idle: 300 * time.Millisecond})
	running, release := f.holdSlots(t, f.tool(t), 1)
	time.Sleep(1500 * time.Millisecond) // Idle and a sweep (every 1s) pass while the call runs
	if got := f.sup.Running(); len(got) != 1 {
		t.Fatalf("running %v with a call in flight, want [testtool]", got)
	}
	release()
	wantCode(t, <-running[0], wire.CodeCancelled)
	deadline := time.Now().Add(10 * time.Second)
	for len(f.sup.Running()) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if got := f.sup.Running(); len(got) != 0 {
		t.Fatalf("idle plugin still running: %v", got)
	}
	decode(t, f.call(t, context.Background(), "echo", map[string]any{"text": "relaunched"}))
}

func TestDescribeMismatchIsNotReady(t *testing.T) {
	f := newFixture(t, func(m string) string {
		return m + "  - name: missing-action\n    description: Not in the binary.\n    read_only: true\n"
	}, Options{})
	r := f.call(t, context.Background(), "echo", map[string]any{"text": "x"})
	wantCode(t, r, wire.CodeNotReady)
	if !strings.Contains(r.GetError().GetMessage(), "missing-action") {
		t.Fatalf("mismatch not named: %s", r.GetError().GetMessage())
	}
}

// TestNoPluginOutlivesAKilledHost runs a child "host" (this test binary)
// that launches the plugin and prints its pid, its child's and its setsid
// grandchild's, SIGKILLs the child, and checks they are all gone: the
// plugin's reaper outlives the host, hears of its death and kills them.
func TestNoPluginOutlivesAKilledHost(t *testing.T) {
	if os.Getenv("SUPERVISOR_CHILD_PLUGINS") != "" {
		return
	}
	f := newFixture(t, nil, Options{})
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildHost$")
	cmd.Env = append(os.Environ(), "SUPERVISOR_CHILD_PLUGINS="+f.plugins, "SUPERVISOR_CHILD_CACHE="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := out.Read(buf)
	var pids []int
	for _, f := range strings.Fields(strings.TrimPrefix(strings.SplitN(string(buf[:n]), "\n", 2)[0], "PID ")) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("child said %q: %v", buf[:n], err)
		}
		pids = append(pids, pid)
	}
	if len(pids) != 3 {
		t.Fatalf("child said %q, want the plugin's pid, its child's and its setsid grandchild's", buf[:n])
	}
	for _, pid := range pids {
		t.Cleanup(func() {
			if alive(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		})
		if !alive(pid) {
			t.Fatalf("process %d not running before the kill", pid)
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	for i, pid := range pids {
		if !waitGone(pid) {
			t.Fatalf("%s %d outlived the SIGKILLed host", []string{"plugin", "the plugin's child", "the plugin's setsid grandchild"}[i], pid)
		}
	}
}

// TestChildHost is the child side of TestNoPluginOutlivesAKilledHost.
func TestChildHost(t *testing.T) {
	plugins := os.Getenv("SUPERVISOR_CHILD_PLUGINS")
	if plugins == "" {
		t.Skip("runs only as the child of TestNoPluginOutlivesAKilledHost")
	}
	reg := registry.New(registry.Options{PluginDirs: []string{plugins}})
	tool, _ := reg.Scan().Tool("testtool")
	sup := New(Options{CacheDir: os.Getenv("SUPERVISOR_CHILD_CACHE"), Reaper: "/proc/self/exe"})
	r := sup.Call(context.Background(), tool, &wire.CallRequest{Action: "spawn", ArgsJson: []byte("{}")}, nil)
	var m, e map[string]any
	_ = json.Unmarshal(r.GetJson(), &m)
	r = sup.Call(context.Background(), tool, &wire.CallRequest{Action: "escape", ArgsJson: []byte("{}")}, nil)
	_ = json.Unmarshal(r.GetJson(), &e)
	fmt.Printf("PID %v %v %v\n", m["pid"], m["child"], e["grandchild"])
	time.Sleep(time.Minute)
}

func TestSyncStopsRemovedPlugins(t *testing.T) {
	f := newFixture(t, nil, Options{})
	decode(t, f.call(t, context.Background(), "echo", map[string]any{"text": "x"}))
	f.sup.Sync(f.reg.Scan())
	if got := f.sup.Running(); len(got) != 1 {
		t.Fatalf("an unchanged plugin was stopped: %v", got)
	}
	os.RemoveAll(filepath.Join(f.plugins, "testtool"))
	f.sup.Sync(f.reg.Scan())
	deadline := time.Now().Add(10 * time.Second)
	for len(f.sup.Running()) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if got := f.sup.Running(); len(got) != 0 {
		t.Fatalf("removed plugin still running: %v", got)
	}
}

func TestCrashOfOnePluginLeavesAnotherAlone(t *testing.T) {
	f := newFixture(t, nil, Options{})
	testplugin.InstallAgent(t, f.plugins) // the same binary, a second process
	snap := f.reg.Scan()
	other, _ := snap.Tool("testagent")
	ctx := context.Background()
	done := f.startSlow(t, ctx, other, 600)
	wantCode(t, f.call(t, ctx, "crash", nil), wire.CodePluginCrashed)
	decode(t, <-done)
}
