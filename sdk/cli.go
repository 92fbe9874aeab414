package sdk

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/cli"
	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/sdk/wire"
)

// runCLI runs one action from the command line: `BIN ACTION [--arg value]…`
// or `BIN ACTION --json '{…}'`, typed by the tool.yaml beside the binary. On
// a terminal it prints the result for a person (cli.Term); piped, the
// result JSON (or the error envelope) on stdout. It returns the exit code:
// 0 success, 1 tool error, 2 usage error.
func runCLI(p Plugin, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	m, err := manifestBesideBinary()
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return cli.ExitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return runCLIWith(ctx, p, m, args, stdin, stdout, stderr, cli.Detect(stdin, stdout, stderr, os.Getenv))
}

// manifestBesideBinary reads the tool.yaml in the executable's folder.
func manifestBesideBinary() (*manifests.Manifest, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find executable: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	path := filepath.Join(filepath.Dir(exe), manifests.FileName)
	m, err := manifests.Parse(path)
	if err != nil {
		return nil, fmt.Errorf("read the manifest beside the binary: %w", err)
	}
	return m, nil
}

// runCLIWith is runCLI with the manifest, context and terminal given; a
// nil term prints as to a pipe.
func runCLIWith(ctx context.Context, p Plugin, m *manifests.Manifest, args []string, stdin io.Reader, stdout, stderr io.Writer, term *cli.Term) int {
	if term != nil {
		term.Words = pluginWords(m)
		term.Markdown = p.RenderMarkdown
	}
	w := &cli.Writer{Out: stdout, Err: stderr, Term: term}
	if len(args) == 0 {
		printToolUsage(stderr, m)
		return cli.ExitUsage
	}
	switch args[0] {
	case "-h", "--help", "help":
		printToolUsage(stdout, m)
		return cli.ExitOK
	case "--version", "-version":
		fmt.Fprintf(stdout, "%s %s\n", m.Name, m.Version)
		return cli.ExitOK
	}
	name := args[0]
	action := m.Action(name)
	if action == nil {
		return w.Fail(withNext(m, &Error{Code: CodeUnknownAction,
			Message:    fmt.Sprintf("unknown action %q of %s", name, m.Name),
			DidYouMean: manifests.Suggest(name, m.ActionNames()),
		}, wire.Step{Run: wire.StepCapabilities, Tool: m.Name, Why: "to list the actions"}))
	}
	fl, err := parseActionFlags(m, action, args[1:])
	if errors.Is(err, errHelp) {
		printActionUsage(stdout, m, action)
		return cli.ExitOK
	}
	if err != nil {
		return w.Fail(AsError(err))
	}
	w.PreferMarkdown = fl.markdown || term != nil && term.Render
	if fl.raw && term != nil {
		term.Render = false
		w.PreferMarkdown = fl.markdown
	}
	raw, e := cli.BuildArgs(action, fl.flags, fl.argsJSON)
	if e != nil {
		return w.Fail(e)
	}
	if irreversible, why := m.Irreversible(action); irreversible && !fl.confirm {
		if e := confirm(m, action, why, stdin, stderr, term); e != nil {
			return w.Fail(e)
		}
	}
	req, err := newCheckedRequest(action, raw)
	if err != nil {
		e := AsError(err)
		if e.Code == CodeInvalidArgs && e.Next == nil && e.NextStep == "" {
			withNext(m, e, wire.Step{Run: wire.StepCapabilities, Tool: m.Name, Action: action.Name, Why: "for the args"})
		}
		return w.Fail(e)
	}
	req.Caller = Caller{ClientName: "cli", Channel: ChannelTerminal}
	req.progress = func(pr Progress) { w.Progress(pr.Progress, pr.Total, pr.Message) }
	if ctxTimeout := m.Timeout; ctxTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, ctxTimeout)
		defer cancel()
	}
	res, err := dispatch(ctx, p, req)
	if jw, ok := resultData(res, err).(JSONWriter); ok {
		return w.Write(cli.Result{Markdown: res.Markdown, Stream: func(out io.Writer) error { return writeJSONData(jw, out) }})
	}
	wr := encodeResult(res, err)
	return w.Write(cli.Result{JSON: wr.GetJson(), Markdown: wr.GetMarkdown(), Err: wire.ErrorFrom(wr.GetError())})
}

// resultData is a successful result's Data, else nil.
func resultData(res *Result, err error) any {
	if err != nil || res == nil {
		return nil
	}
	return res.Data
}

// errHelp asks for an action's usage.
var errHelp = errors.New("help requested")

// actionFlags is an action's command line, parsed.
type actionFlags struct {
	flags    []cli.Flag
	argsJSON string // --json '{…}': all args as one object
	markdown bool   // --markdown: the Markdown, not the JSON
	raw      bool   // --json alone: JSON even on a terminal
	confirm  bool   // --confirm: run an irreversible action without asking
}

// parseActionFlags reads `--name value`, `--name=value` (a boolean arg
// alone is true), `--json {…}` (args: any value that is not a flag, so
// `--json null` is no args and a non-object is refused by name) or
// `--json` alone or before another flag (raw JSON out),
// `--markdown` and `--confirm`; cli.BuildArgs types the args.
func parseActionFlags(m *manifests.Manifest, a *manifests.Action, argv []string) (actionFlags, error) {
	var fl actionFlags
	for i := 0; i < len(argv); i++ {
		f := argv[i]
		if f == "-h" || f == "--help" {
			return fl, errHelp
		}
		if !strings.HasPrefix(f, "--") {
			return fl, withNext(m, &Error{Code: CodeInvalidArgs, Message: fmt.Sprintf("unexpected %q: args are given as --NAME VALUE", f)},
				wire.Step{Run: wire.StepCapabilities, Tool: m.Name, Action: a.Name, Why: "for the args"})
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(f, "--"), "=")
		switch {
		case name == "markdown" && !hasValue:
			fl.markdown = true
			continue
		case name == "confirm" && !hasValue:
			fl.confirm = true
			continue
		case name == "json" && !hasValue && (i+1 >= len(argv) || strings.HasPrefix(argv[i+1], "--")):
			fl.raw = true
			continue
		}
		if !hasValue {
			if cli.IsBoolean(a, name) && (i+1 >= len(argv) || strings.HasPrefix(argv[i+1], "--")) {
				value, hasValue = "true", true
			} else if i+1 < len(argv) {
				i++
				value, hasValue = argv[i], true
			}
		}
		if !hasValue {
			if a.Arg(name) == nil {
				return fl, withNext(m, &Error{Code: CodeInvalidArgs, Message: fmt.Sprintf("%s %s has no arg --%s", m.Name, a.Name, name),
					DidYouMean: manifests.Suggest(name, argNames(a))},
					wire.Step{Run: wire.StepCapabilities, Tool: m.Name, Action: a.Name, Why: "for the args"})
			}
			return fl, Errorf(CodeInvalidArgs, "--%s needs a value", name)
		}
		if name == "json" {
			fl.argsJSON = value
			continue
		}
		fl.flags = append(fl.flags, cli.Flag{Name: name, Value: value})
	}
	return fl, nil
}

// argNames are a's arg names.
func argNames(a *manifests.Action) []string {
	names := make([]string, len(a.Args))
	for i, arg := range a.Args {
		names[i] = arg.Name
	}
	return names
}

// confirm asks the person at the terminal before an irreversible action
// runs: nil when they answer y, else the approval_required envelope (also
// without a terminal to ask on, where --confirm is the way to say yes).
func confirm(m *manifests.Manifest, a *manifests.Action, why string, stdin io.Reader, stderr io.Writer, term *cli.Term) *Error {
	refused := withNext(m, &Error{Code: wire.CodeApprovalRequired,
		Message: fmt.Sprintf("%s %s is irreversible (%s): it runs only when you confirm it", m.Name, a.Name, why)},
		wire.Step{Run: wire.StepCall, Tool: m.Name, Action: a.Name, Confirm: true, Why: "if you mean it"})
	if term == nil || !term.Ask || stdin == nil {
		return refused
	}
	fmt.Fprintf(stderr, "%s %s is irreversible (%s). Run it? [y/N] ", m.Name, a.Name, why)
	answer, _ := bufio.NewReader(stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return nil
	}
	refused.Message = fmt.Sprintf("%s %s is irreversible (%s): not run, you did not confirm it", m.Name, a.Name, why)
	return refused
}

// withNext sets e's next step, worded for this command line in NextStep
// too (the JSON a script reads), and returns e.
func withNext(m *manifests.Manifest, e *Error, s wire.Step) *Error {
	e.Next = &s
	e.NextStep = pluginWords(m)(&s)
	return e
}

// pluginWords words a next step as this plugin's own command line: `xlsx
// --help`, `xlsx read-sheet --help`, `xlsx delete-sheet … --confirm`.
func pluginWords(m *manifests.Manifest) func(*wire.Step) string {
	return func(s *wire.Step) string {
		var line string
		switch {
		case s.Run == wire.StepCall && s.Confirm && len(s.Args) == 0:
			line = "run the same `" + m.Name + " " + s.Action + " …` again with --confirm"
		case s.Run == wire.StepCall:
			var b strings.Builder
			b.WriteString("run `" + m.Name + " " + cli.Quote(s.Action))
			for _, k := range slices.Sorted(maps.Keys(s.Args)) {
				b.WriteString(" --" + k + " " + cli.Quote(cli.ArgText(s.Args[k])))
			}
			if s.Confirm {
				b.WriteString(" --confirm")
			}
			line = b.String() + "`"
		case s.Run == wire.StepCapabilities && s.Action != "":
			line = "run `" + m.Name + " " + cli.Quote(s.Action) + " --help`"
		default:
			line = "run `" + m.Name + " --help`"
		}
		if s.Why != "" {
			line += " " + s.Why
		}
		return line
	}
}

func printToolUsage(w io.Writer, m *manifests.Manifest) {
	fmt.Fprintf(w, "%s %s — %s\n\nUsage: %s ACTION [--ARG VALUE]… [--confirm] [--json] [--markdown]\n       %s ACTION --json '{…}'\n       %s ACTION --help | %s --version\n\nActions:\n",
		m.Name, m.Version, firstLine(m.Description), m.Name, m.Name, m.Name, m.Name)
	for i := range m.Actions {
		a := &m.Actions[i]
		mark := ""
		if irreversible, _ := m.Irreversible(a); irreversible {
			mark = " (irreversible: asks first, or --confirm)"
		}
		fmt.Fprintf(w, "  %-16s %s%s\n", a.Name, firstLine(a.Description), mark)
		for _, arg := range a.Args {
			fmt.Fprintf(w, "      --%s\n", argLine(arg))
		}
	}
	fmt.Fprintf(w, "\nOn a terminal the result is printed for a person; piped, or with --json, as JSON.\n%s\n", cli.ExitCodeTable)
}

func printActionUsage(w io.Writer, m *manifests.Manifest, a *manifests.Action) {
	fmt.Fprintf(w, "%s %s — %s\n\nArgs:\n", m.Name, a.Name, a.Description)
	for _, arg := range a.Args {
		fmt.Fprintf(w, "  --%s\n", argLine(arg))
	}
	if irreversible, why := m.Irreversible(a); irreversible {
		fmt.Fprintf(w, "\nIrreversible (%s): asks y/N on a terminal; --confirm runs it without asking.\n", why)
	}
	fmt.Fprintf(w, "\n%s\n", cli.ExitCodeTable)
}

// argLine is one arg for --help: name, type, required or its default,
// description.
func argLine(arg manifests.Arg) string {
	line := fmt.Sprintf("%-16s %s", arg.Name, arg.Type)
	switch {
	case arg.Required:
		line += " (required)"
	case arg.Default != nil:
		line += fmt.Sprintf(" (default %s)", cli.ArgText(arg.Default))
	}
	if len(arg.Enum) > 0 {
		vals := make([]string, len(arg.Enum))
		for i, v := range arg.Enum {
			vals[i] = cli.ArgText(v)
		}
		line += " one of " + strings.Join(vals, "|")
	}
	if arg.Description != "" {
		line += "  " + arg.Description
	}
	return line
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
