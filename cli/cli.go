// Package cli is the terminal side shared by `host call` and a plugin's
// command-line mode: one arg builder (flags typed by the manifest's args),
// one result writer and one table of exit codes. Both front ends parse
// their own flag syntax (`--arg NAME=VALUE` and `--NAME VALUE`) into Flags
// and hand the outcome of the call to a Writer, so a user sees the same
// args, the same JSON and the same exit codes from either.
package cli

import (
	"fmt"

	"github.com/toolhost/toolhost/sdk/wire"
)

// Exit codes of every command that runs an action.
const (
	// ExitOK: the action ran and answered.
	ExitOK = 0
	// ExitFailure: the action ran, or was refused at run time, and failed.
	ExitFailure = 1
	// ExitUsage: the command line was wrong (unknown tool, action or arg,
	// a missing or mistyped arg, both --args and --arg): fix it and run it
	// again.
	ExitUsage = 2
)

// usageCodes are the error codes that mean the command line itself was
// wrong, answered with ExitUsage.
var usageCodes = map[wire.Code]bool{
	wire.CodeInvalidArgs:   true,
	wire.CodeUnknownTool:   true,
	wire.CodeUnknownAction: true,
	wire.CodeUnknownSkill:  true,
}

// ExitCode is the exit code for an error envelope: ExitOK for nil,
// ExitUsage for a usage code, else ExitFailure.
func ExitCode(e *wire.Error) int {
	switch {
	case e == nil:
		return ExitOK
	case usageCodes[e.Code]:
		return ExitUsage
	default:
		return ExitFailure
	}
}

// ExitCodeTable is the exit codes of `host call` and of a plugin's CLI
// mode, for their --help.
var ExitCodeTable = fmt.Sprintf("Exit codes (the same for `host call` and a plugin's CLI mode):\n"+
	"  %d  the action ran and answered\n"+
	"  %d  the action failed, or was refused when it ran (approval_required, not_ready, timeout, …)\n"+
	"  %d  the command line was wrong: unknown tool, action or arg, a missing or mistyped arg (invalid_args, unknown_*)",
	ExitOK, ExitFailure, ExitUsage)
