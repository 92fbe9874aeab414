package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/toolhost/toolhost/manifests"
)

// Exit codes of CLI mode.
const (
	exitOK    = 0
	exitTool  = 1
	exitUsage = 2
)

// runCLI runs one action from the command line: `BIN ACTION [--arg value]…`
// or `BIN ACTION --json '{…}'`, typed by the tool.yaml beside the binary. It
// prints the result JSON (or the error envelope) on stdout and returns the
// exit code: 0 success, 1 tool error, 2 usage error.
func runCLI(p Plugin, args []string, stdout, stderr io.Writer) int {
	m, err := manifestBesideBinary()
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitUsage
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
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printToolUsage(stderr, m)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	name := args[0]
	action := m.Action(name)
	if action == nil {
		return usageError(stdout, &Error{Code: CodeUnknownAction,
			Message:    fmt.Sprintf("unknown action %q of %s", name, m.Name),
			DidYouMean: manifests.Suggest(name, m.ActionNames()),
			NextStep:   fmt.Sprintf("run `%s --help` to list the actions", m.Name)})
	}
	raw, markdown, err := parseActionFlags(action, args[1:])
	if errors.Is(err, errHelp) {
		printActionUsage(stderr, m, action)
		return exitOK
	}
	if err != nil {
		return usageError(stdout, AsError(err))
	}
	checked, err := action.Check(raw)
	if err != nil {
		var ae *manifests.ArgError
		if errors.As(err, &ae) {
			return usageError(stdout, &Error{Code: CodeInvalidArgs, Message: ae.Message, DidYouMean: ae.DidYouMean, Schema: ae.Schema})
		}
		return usageError(stdout, Errorf(CodeInvalidArgs, "%v", err))
	}
	checkedJSON, err := json.Marshal(checked)
	if err != nil {
		return usageError(stdout, Errorf(CodeInvalidArgs, "encode args: %v", err))
	}
	req := &Request{Action: name, Args: checkedJSON, Caller: Caller{ClientName: "cli", Channel: ChannelTerminal}}
	req.progress = func(pr Progress) {
		if pr.Total > 0 {
			fmt.Fprintf(stderr, "[%.0f/%.0f] %s\n", pr.Progress, pr.Total, pr.Message)
		} else {
			fmt.Fprintf(stderr, "[%.0f] %s\n", pr.Progress, pr.Message)
		}
	}
	if ctxTimeout := m.Timeout; ctxTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, ctxTimeout)
		defer cancel()
	}
	res, err := dispatch(ctx, p, req)
	wr := encodeResult(res, err)
	if wr.GetError() != nil {
		writeJSON(stdout, map[string]any{"error": ErrorFromWire(wr.GetError())})
		return exitTool
	}
	if markdown && wr.GetMarkdown() != "" {
		fmt.Fprintln(stdout, wr.GetMarkdown())
		return exitOK
	}
	// Indent the plugin's own bytes: its key order (data_notice first, say)
	// is part of what it says.
	var buf bytes.Buffer
	if err := json.Indent(&buf, wr.GetJson(), "", "  "); err != nil {
		writeJSON(stdout, map[string]any{"error": Errorf(CodeInternalError, "result is not valid JSON: %v", err)})
		return exitTool
	}
	fmt.Fprintln(stdout, buf.String())
	return exitOK
}

// errHelp asks for an action's usage.
var errHelp = errors.New("help requested")

// parseActionFlags turns `--name value`, `--name=value`, `--json {…}` and
// `--markdown` into the args object.
func parseActionFlags(a *manifests.Action, flags []string) (json.RawMessage, bool, error) {
	args := map[string]any{}
	markdown := false
	var fromJSON json.RawMessage
	for i := 0; i < len(flags); i++ {
		f := flags[i]
		if f == "-h" || f == "--help" {
			return nil, false, errHelp
		}
		if !strings.HasPrefix(f, "--") {
			return nil, false, Errorf(CodeInvalidArgs, "unexpected %q: args are given as --NAME VALUE", f)
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(f, "--"), "=")
		if name == "markdown" {
			markdown = true
			continue
		}
		var arg *manifests.Arg
		for j := range a.Args {
			if a.Args[j].Name == name {
				arg = &a.Args[j]
			}
		}
		if !hasValue {
			if arg != nil && arg.Type == manifests.TypeBoolean && (i+1 >= len(flags) || strings.HasPrefix(flags[i+1], "--")) {
				value, hasValue = "true", true
			} else if i+1 < len(flags) {
				i++
				value, hasValue = flags[i], true
			}
		}
		if !hasValue {
			return nil, false, Errorf(CodeInvalidArgs, "--%s needs a value", name)
		}
		if name == "json" {
			fromJSON = json.RawMessage(value)
			continue
		}
		if arg == nil {
			names := make([]string, len(a.Args))
			for j, x := range a.Args {
				names[j] = x.Name
			}
			return nil, false, &Error{Code: CodeInvalidArgs, Message: fmt.Sprintf("unknown arg %q of %s", name, a.Name),
				DidYouMean: manifests.Suggest(name, names), Schema: a.ArgsSchema()}
		}
		v, err := arg.FromString(value)
		if err != nil {
			return nil, false, Errorf(CodeInvalidArgs, "--%s: %v", name, err)
		}
		args[name] = v
	}
	if fromJSON != nil {
		if len(args) > 0 {
			return nil, false, Errorf(CodeInvalidArgs, "give args either as --json or as flags, not both")
		}
		return fromJSON, markdown, nil
	}
	b, err := json.Marshal(args)
	return b, markdown, err
}

func usageError(stdout io.Writer, e *Error) int {
	writeJSON(stdout, map[string]any{"error": e})
	return exitUsage
}

func writeJSON(w io.Writer, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		b = []byte(fmt.Sprintf(`{"error":{"code":"internal_error","message":%q}}`, err.Error()))
	}
	fmt.Fprintln(w, string(b))
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
