package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// invokedAs is the host command as the person typed it (`bin/host`,
// `./host`, or `host` when it was found on PATH), for the commands the
// host's hints tell them to run. main sets it from os.Args[0].
var invokedAs = "host"

// commandName is how to spell the host command in a hint, given argv0:
// argv0 itself when it has no folder (the shell found it on PATH), the
// bare name when PATH finds the same file under it, else argv0 as typed.
func commandName(argv0 string) string {
	if argv0 == "" {
		return "host"
	}
	if !strings.ContainsRune(argv0, os.PathSeparator) && !strings.ContainsRune(argv0, '/') {
		return argv0
	}
	base := filepath.Base(argv0)
	if onPath, err := exec.LookPath(base); err == nil {
		a, errA := os.Stat(onPath)
		b, errB := os.Stat(argv0)
		if errA == nil && errB == nil && os.SameFile(a, b) {
			return base
		}
	}
	return argv0
}

// hostCmd is a host command line to run, quoted for a hint: `bin/host list`.
func hostCmd(args string) string {
	return "`" + invokedAs + " " + args + "`"
}

// usageError is a wrong command line: an unknown command or flag, or the
// wrong number of arguments. run prints it and exits 2, as `host call`
// does for a wrong arg.
type usageError struct {
	err  error
	next string
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// markUsageErrors makes every command's flag and argument errors, and an
// unknown command, usage errors naming the help to read.
func markUsageErrors(root *cobra.Command) {
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{err: err, next: "run " + hostCmd(commandPath(c)+"--help")}
	})
	// Unknown commands: cobra's own check runs only for a root that
	// cannot run; this one says it once, with the next step.
	root.Args = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		err := fmt.Errorf("unknown command %q", args[0])
		if s := c.SuggestionsFor(args[0]); len(s) > 0 {
			err = fmt.Errorf("unknown command %q: did you mean %s?", args[0], strings.Join(s, " or "))
		}
		return &usageError{err: err, next: "run " + hostCmd("--help") + " for the commands"}
	}
	root.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if check := sub.Args; check != nil {
				sub.Args = func(cc *cobra.Command, args []string) error {
					if err := check(cc, args); err != nil {
						return &usageError{err: fmt.Errorf("%s: %w", cc.Name(), err), next: "run " + hostCmd(commandPath(cc)+"--help")}
					}
					return nil
				}
			}
			walk(sub)
		}
	}
	walk(root)
}

// commandPath is c's path below the root, with a trailing space ("" for
// the root): "surface check ".
func commandPath(c *cobra.Command) string {
	var words []string
	for ; c != nil && c.HasParent(); c = c.Parent() {
		words = append([]string{c.Name()}, words...)
	}
	if len(words) == 0 {
		return ""
	}
	return strings.Join(words, " ") + " "
}

// asUsage reports err as a usage error, when it is one.
func asUsage(err error) (*usageError, bool) {
	var u *usageError
	ok := errors.As(err, &u)
	return u, ok
}
