// Command host is toolhost: an MCP server (`host serve`) that exposes every
// plugin on the machine through six generic tools, and the terminal commands
// to list, call and check them.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"runtime/trace"
	"syscall"

	"github.com/toolhost/toolhost/host/internal/mcpbridge"
	"github.com/toolhost/toolhost/host/internal/supervisor"
	"github.com/toolhost/toolhost/registry"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == supervisor.ReaperArg {
		// The host's executable doubles as each plugin's process-group
		// reaper (see supervisor.Reap).
		os.Exit(supervisor.Reap(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == mcpbridge.Arg {
		// And as the bridge an MCP server's plugin runs behind (see
		// mcpbridge).
		os.Exit(mcpbridge.Run())
	}
	// The first SIGINT or SIGTERM ends ctx: commands stop, and `host serve`
	// stops reading and answers the calls in flight. A second one ends the
	// force context too: serve stops at once, cancelling those calls.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	force, cancelForce := context.WithCancel(context.Background())
	finished := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
		case <-finished:
			return
		}
		again := make(chan os.Signal, 1)
		signal.Notify(again, os.Interrupt, syscall.SIGTERM)
		stop()
		select {
		case <-again:
			cancelForce()
		case <-finished:
		}
	}()
	stopProfile := record("HOST_CPUPROFILE", pprof.StartCPUProfile, pprof.StopCPUProfile)
	stopTrace := record("HOST_TRACE", trace.Start, trace.Stop)
	var allocs io.Writer
	stopAllocs := record("HOST_MEMPROFILE", func(w io.Writer) error { allocs = w; return nil },
		func() { _ = pprof.Lookup("allocs").WriteTo(allocs, 0) })
	invokedAs = commandName(os.Args[0])
	registry.Command = invokedAs
	code := run(withForce(ctx, force), os.Args[1:], os.Stdout, os.Stderr)
	stopAllocs()
	stopTrace()
	stopProfile()
	close(finished)
	stop()
	cancelForce()
	os.Exit(code)
}

// record starts a developer aid that writes the whole run to the file
// its environment variable names (HOST_CPUPROFILE: a CPU profile;
// HOST_TRACE: an execution trace for `go tool trace`, every goroutine's
// wake-ups and every thread's system calls on the way of a call;
// HOST_MEMPROFILE: the allocations profile at the end, for `go tool pprof
// -sample_index=alloc_space`); unset,
// it starts nothing. It returns what stops it.
func record(variable string, start func(io.Writer) error, stop func()) func() {
	path := os.Getenv(variable)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = start(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, variable+":", err)
		return func() {}
	}
	return func() {
		stop()
		f.Close()
	}
}

// forceKey is the context key of the force context.
type forceKey struct{}

// withForce attaches to ctx the context that ends on a second signal.
func withForce(ctx, force context.Context) context.Context {
	return context.WithValue(ctx, forceKey{}, force)
}

// forceContext is the context that ends on a second signal; without one
// attached, ctx itself.
func forceContext(ctx context.Context) context.Context {
	if f, ok := ctx.Value(forceKey{}).(context.Context); ok {
		return f
	}
	return ctx
}

// run executes the command line and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	if err := root.ExecuteContext(ctx); err != nil {
		if ec, ok := err.(exitCode); ok {
			return int(ec)
		}
		if u, ok := asUsage(err); ok {
			fmt.Fprintf(stderr, "error: %v\nnext: %s\n", u.err, u.next)
			return 2
		}
		fmt.Fprintln(stderr, "error:", err)
		return 1
	}
	return 0
}

// exitCode is an error that only carries an exit code (the command already
// printed what went wrong).
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit %d", int(e)) }
