package main

import (
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolhost/toolhost/cli"
	"github.com/toolhost/toolhost/cli/markdown"
	"github.com/toolhost/toolhost/sdk/wire"
)

// terminal is how a command prints for the person at the terminal: rendered
// when stdout is a terminal and --json was not given, next steps worded as
// host commands.
func terminal(cmd *cobra.Command, asJSON bool) *cli.Term {
	t := cli.Detect(cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr(), os.Getenv)
	t.Render = t.Render && !asJSON
	t.Words = hostWords
	t.Markdown = markdown.Render
	return t
}

// terminalWidth is the width a table printed on cmd's stdout fits: the
// terminal's, or 0 (no limit) when stdout is not a terminal.
func terminalWidth(cmd *cobra.Command) int {
	t := cli.Detect(cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr(), os.Getenv)
	if !t.Render {
		return 0
	}
	return t.Width
}

// hostWords is a next step as a host command line: `host capabilities
// xlsx`, `host call xlsx read-sheet --arg path=book.xlsx --confirm`, `host
// skill NAME`.
func hostWords(s *wire.Step) string {
	var b strings.Builder
	switch s.Run {
	case wire.StepSkill:
		b.WriteString("run `" + invokedAs + " skill " + cli.Quote(s.Tool) + "`")
	case wire.StepCall:
		if s.Confirm && len(s.Args) == 0 {
			b.WriteString("run the same `" + invokedAs + " call " + cli.Quote(s.Tool) + " " + cli.Quote(s.Action) + " …` again with --confirm")
			break
		}
		b.WriteString("run `" + invokedAs + " call " + cli.Quote(s.Tool) + " " + cli.Quote(s.Action))
		for _, k := range slices.Sorted(maps.Keys(s.Args)) {
			b.WriteString(" --arg " + cli.Quote(k+"="+cli.ArgText(s.Args[k])))
		}
		if s.Confirm {
			b.WriteString(" --confirm")
		}
		b.WriteString("`")
	default:
		b.WriteString("run `" + invokedAs + " capabilities")
		for _, w := range []string{s.Tool, s.Action} {
			if w != "" {
				b.WriteString(" " + cli.Quote(w))
			}
		}
		for _, k := range []string{"search", "kind"} {
			if v, ok := s.Args[k].(string); ok && v != "" {
				b.WriteString(" --" + k + " " + cli.Quote(v))
			}
		}
		b.WriteString("`")
	}
	if s.Why != "" {
		b.WriteString(" " + s.Why)
	}
	return b.String()
}
