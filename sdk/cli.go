package sdk

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/toolhost/toolhost/cli"
	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/sdk/wire"
)

// runCLI runs one action from the command line: `BIN ACTION [--arg value]…`
// or `BIN ACTION --json '{…}'`, typed by the tool.yaml beside the binary. It
// prints the result JSON (or the error envelope) on stdout and returns the
// exit code: 0 success, 1 tool error, 2 usage error.
func runCLI(p Plugin, args []string, stdout, stderr io.Writer) int {
	m, err := manifestBesideBinary()
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return cli.ExitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return runCLIWith(ctx, p, m, args, stdout, stderr)
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

// runCLIWith is runCLI with the manifest and context given.
func runCLIWith(ctx context.Context, p Plugin, m *manifests.Manifest, args []string, stdout, stderr io.Writer) int {
	w := &cli.Writer{Out: stdout, Err: stderr}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printToolUsage(stderr, m)
		if len(args) == 0 {
			return cli.ExitUsage
		}
		return cli.ExitOK
	}
	name := args[0]
	action := m.Action(name)
	if action == nil {
		return w.Fail(&Error{Code: CodeUnknownAction,
			Message:    fmt.Sprintf("unknown action %q of %s", name, m.Name),
			DidYouMean: manifests.Suggest(name, m.ActionNames()),
			NextStep:   fmt.Sprintf("run `%s --help` to list the actions", m.Name)})
	}
	flags, argsJSON, markdown, err := parseActionFlags(action, args[1:])
	if errors.Is(err, errHelp) {
		printActionUsage(stderr, m, action)
		return cli.ExitOK
	}
	if err != nil {
		return w.Fail(AsError(err))
	}
	w.PreferMarkdown = markdown
	raw, e := cli.BuildArgs(action, flags, argsJSON)
	if e != nil {
		return w.Fail(e)
	}
	req, err := newCheckedRequest(action, raw)
	if err != nil {
		return w.Fail(AsError(err))
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

// parseActionFlags reads `--name value`, `--name=value` (a boolean arg
// alone is true), `--json {…}` and `--markdown`; cli.BuildArgs types them.
func parseActionFlags(a *manifests.Action, argv []string) (flags []cli.Flag, argsJSON string, markdown bool, err error) {
	for i := 0; i < len(argv); i++ {
		f := argv[i]
		if f == "-h" || f == "--help" {
			return nil, "", false, errHelp
		}
		if !strings.HasPrefix(f, "--") {
			return nil, "", false, &Error{Code: CodeInvalidArgs, Message: fmt.Sprintf("unexpected %q: args are given as --NAME VALUE", f),
				NextStep: fmt.Sprintf("run `%s --help` for the args", a.Name)}
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(f, "--"), "=")
		if name == "markdown" {
			markdown = true
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
			return nil, "", false, Errorf(CodeInvalidArgs, "--%s needs a value", name)
		}
		if name == "json" {
			argsJSON = value
			continue
		}
		flags = append(flags, cli.Flag{Name: name, Value: value})
	}
	return flags, argsJSON, markdown, nil
}

func printToolUsage(w io.Writer, m *manifests.Manifest) {
	fmt.Fprintf(w, "%s %s — %s\n\nUsage: %s ACTION [--ARG VALUE]… | %s ACTION --json '{…}' [--markdown]\n\nActions:\n",
		m.Name, m.Version, m.Description, m.Name, m.Name)
	for _, a := range m.Actions {
		fmt.Fprintf(w, "  %-16s %s\n", a.Name, firstLine(a.Description))
	}
}

func printActionUsage(w io.Writer, m *manifests.Manifest, a *manifests.Action) {
	fmt.Fprintf(w, "%s %s — %s\n\nArgs:\n", m.Name, a.Name, a.Description)
	for _, arg := range a.Args {
		req := ""
		if arg.Required {
			req = " (required)"
		}
		fmt.Fprintf(w, "  --%-16s %s%s  %s\n", arg.Name, arg.Type, req, arg.Description)
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
