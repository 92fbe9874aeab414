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
	"syscall"

	"github.com/toolhost/toolhost/host/internal/supervisor"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == supervisor.ReaperArg {
		// The host's executable doubles as each plugin's process-group
		// reaper (see supervisor.Reap).
		os.Exit(supervisor.Reap(os.Args[2:]))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
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
		fmt.Fprintln(stderr, "error:", err)
		return 1
	}
	return 0
}

// exitCode is an error that only carries an exit code (the command already
// printed what went wrong).
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit %d", int(e)) }
