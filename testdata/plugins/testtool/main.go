// Command testtool is a plugin that misbehaves on request, so the host's
// tests can prove each supervision and hygiene property against a real
// process: echo, slow, crash, panic, stdin, env, garbage, big, version,
// relay (agents), hold (cancellation), spawn, hog, spin and storm.
package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolhost/toolhost/cli/markdown"
	"github.com/toolhost/toolhost/sdk"
)

// version is set with -ldflags "-X main.version=…" so tests can tell binaries apart.
var version = "1"

func main() {
	sdk.Main(sdk.Plugin{Actions: map[string]sdk.Handler{
		"echo":         echo,
		"slow":         slow,
		"crash":        func(context.Context, *sdk.Request) (*sdk.Result, error) { os.Exit(3); return nil, nil },
		"panic":        func(context.Context, *sdk.Request) (*sdk.Result, error) { panic("deliberate panic") },
		"stdin":        stdin,
		"env":          env,
		"garbage":      garbage,
		"big":          big,
		"version":      func(context.Context, *sdk.Request) (*sdk.Result, error) { return data("version", version), nil },
		"delete-thing": echo,
		"fail":         fail,
		"relay":        relay,
		"keep-host":    keepHost,
		"relay-kept":   relayKept,
		"hold":         hold,
		"spawn":        spawn,
		"escape":       escape,
		"hog":          hog,
		"spin":         spin,
		"storm":        storm,
	}, RenderMarkdown: markdown.Render})
}

func data(kv ...any) *sdk.Result {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return &sdk.Result{Data: m}
}

func echo(_ context.Context, req *sdk.Request) (*sdk.Result, error) {
	var a struct {
		Text       string `json:"text"`
		MaxResults int    `json:"max-results"`
	}
	if err := req.Bind(&a); err != nil {
		return nil, err
	}
	r := data("text", a.Text, "max_results", a.MaxResults, "caller", req.Caller, "version", version)
	r.Markdown = "**echo:** " + a.Text
	return r, nil
}

func slow(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
	var a struct {
		MS int `json:"ms"`
	}
	if err := req.Bind(&a); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(time.Duration(a.MS) * time.Millisecond)
	for step := 0; time.Now().Before(deadline); step++ {
		req.Progress(float64(step), 0, "working")
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return data("slept_ms", a.MS, "version", version), nil
}

func stdin(context.Context, *sdk.Request) (*sdk.Result, error) {
	done := make(chan int64, 1)
	go func() {
		n, _ := io.Copy(io.Discard, os.Stdin)
		done <- n
	}()
	select {
	case n := <-done:
		return data("eof", true, "bytes", n), nil
	case <-time.After(2 * time.Second):
		return data("eof", false), nil
	}
}

func env(context.Context, *sdk.Request) (*sdk.Result, error) {
	var names []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		names = append(names, k)
	}
	sort.Strings(names)
	wd, _ := os.Getwd()
	return data("names", names, "pid", os.Getpid(), "ppid", os.Getppid(), "wd", wd, "path", os.Getenv("PATH")), nil
}

func garbage(context.Context, *sdk.Request) (*sdk.Result, error) {
	fmt.Println(`{"jsonrpc":"2.0","id":1,"result":"garbage from a plugin"}`)
	fmt.Fprintln(os.Stdout, "more garbage")
	return data("ok", true), nil
}

func big(_ context.Context, req *sdk.Request) (*sdk.Result, error) {
	var a struct {
		Bytes int `json:"bytes"`
	}
	if err := req.Bind(&a); err != nil {
		return nil, err
	}
	return data("blob", strings.Repeat("x", a.Bytes)), nil
}

func fail(context.Context, *sdk.Request) (*sdk.Result, error) {
	return nil, &sdk.Error{Code: "thing_not_found", Message: "no such thing", NextStep: "try another thing"}
}

// hold opens the named pipe fifo for writing, writes "started", waits until
// the call's context ends, then writes ctx.Err() and returns it: a test
// reading the pipe sees the plugin's own view of its cancellation.
func hold(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
	var a struct {
		FIFO string `json:"fifo"`
	}
	if err := req.Bind(&a); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(a.FIFO, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := fmt.Fprintln(f, "started"); err != nil {
		return nil, err
	}
	<-ctx.Done()
	fmt.Fprintln(f, ctx.Err())
	return nil, ctx.Err()
}

// relay calls another tool through the host (only agents get a host client).
func relay(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
	var a struct {
		Tool      string         `json:"tool"`
		Action    string         `json:"action"`
		Args      map[string]any `json:"args"`
		Confirmed bool           `json:"confirmed"`
	}
	if err := req.Bind(&a); err != nil {
		return nil, err
	}
	host := req.Host()
	if host == nil {
		return nil, sdk.Errorf("no_host", "this plugin was not given a host client")
	}
	res, err := host.Call(ctx, a.Tool, a.Action, a.Args, a.Confirmed)
	if err != nil {
		return nil, err
	}
	return data("relayed", res.Data, "markdown", res.Markdown), nil
}

// kept is the host client keep-host kept: an agent's bug (a client cached
// across calls) that must not carry one call's confirmation into another.
var kept struct {
	sync.Mutex
	host sdk.Host
}

// keepHost keeps the call's host client, reports progress so the caller
// knows, and waits until the call ends.
func keepHost(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
	kept.Lock()
	kept.host = req.Host()
	kept.Unlock()
	req.Progress(1, 1, "kept")
	<-ctx.Done()
	return data("kept", true), nil
}

// relayKept makes a nested call through the host client keep-host kept.
func relayKept(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
	var a struct {
		Tool       string         `json:"tool"`
		Action     string         `json:"action"`
		Args       map[string]any `json:"args"`
		Confirmed  bool           `json:"confirmed"`
		Background bool           `json:"background"`
	}
	if err := req.Bind(&a); err != nil {
		return nil, err
	}
	kept.Lock()
	host := kept.host
	kept.Unlock()
	if host == nil {
		return nil, sdk.Errorf("no_host", "keep-host kept no host client")
	}
	if a.Background {
		ctx = context.Background()
	}
	res, err := host.Call(ctx, a.Tool, a.Action, a.Args, a.Confirmed)
	if err != nil {
		return nil, err
	}
	return data("relayed", res.Data), nil
}

// spawn starts a long sleep as a child process and leaves it running, as a
// plugin that shells out would: the host must not let it outlive the plugin.
func spawn(context.Context, *sdk.Request) (*sdk.Result, error) {
	cmd := exec.Command("sleep", "300")
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { _ = cmd.Wait() }()
	return data("child", cmd.Process.Pid, "pid", os.Getpid()), nil
}

// escape leaves a sleep that has left the plugin's process group and
// session (setsid) and whose parent, a shell, has exited: a daemon the
// plugin started. The host must not let it outlive the plugin either.
func escape(context.Context, *sdk.Request) (*sdk.Result, error) {
	out, err := exec.Command("/bin/sh", "-c", "setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $!").Output()
	if err != nil {
		return nil, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		return nil, fmt.Errorf("escape: the shell said %q: %w", out, err)
	}
	// The shell echoes the pid once it has forked: wait for setsid.
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if g := procGroup(strconv.Itoa(pid)); g != "" && g != procGroup("self") {
			break
		}
	}
	return data("grandchild", pid, "pid", os.Getpid()), nil
}

// procGroup reads a process's group from /proc/PID/stat (Linux), or "".
func procGroup(pid string) string {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	i := strings.LastIndexByte(string(b), ')')
	if err != nil || i < 0 {
		return ""
	}
	if f := strings.Fields(string(b[i+1:])); len(f) > 2 {
		return f[2]
	}
	return ""
}

// hog allocates and touches mb MiB, then holds it until the call ends.
func hog(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
	var a struct {
		MB int `json:"mb"`
	}
	if err := req.Bind(&a); err != nil {
		return nil, err
	}
	held := make([][]byte, 0, a.MB)
	for i := 0; i < a.MB; i++ {
		b := make([]byte, 1<<20)
		for j := range b {
			b[j] = byte(j)
		}
		held = append(held, b)
	}
	req.Progress(float64(a.MB), float64(a.MB), "holding")
	<-ctx.Done()
	return data("held_mb", len(held)), nil
}

// spin burns CPU until the call ends.
func spin(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
	req.Progress(0, 0, "spinning")
	n := 0
	for ctx.Err() == nil {
		for i := 0; i < 1e6; i++ {
			n += i
		}
	}
	return data("n", n), nil
}

// storm misbehaves on a random percent of calls — panics, exits the
// process, hangs past the timeout, or answers garbage (stray stdout and a
// result that is not valid UTF-8) — and echoes n otherwise.
func storm(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
	var a struct {
		N       int `json:"n"`
		Percent int `json:"percent"`
	}
	if err := req.Bind(&a); err != nil {
		return nil, err
	}
	if rand.IntN(100) < a.Percent {
		switch rand.IntN(4) {
		case 0:
			panic("storm: deliberate panic")
		case 1:
			os.Exit(7)
		case 2:
			<-ctx.Done()
			return nil, ctx.Err()
		default:
			fmt.Println("\x00garbage\xff{\"jsonrpc\":")
			return &sdk.Result{Data: map[string]any{"n": a.N}, Markdown: "not utf-8: \xff\xfe"}, nil
		}
	}
	return data("n", a.N), nil
}
