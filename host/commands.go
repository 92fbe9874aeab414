package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/toolhost/toolhost/cli"
	"github.com/toolhost/toolhost/cli/table"
	"github.com/toolhost/toolhost/host/internal/discovery"
	"github.com/toolhost/toolhost/host/internal/dispatch"
	"github.com/toolhost/toolhost/host/internal/supervisor"
	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// verbose is --verbose: the terminal commands print what the plugins log.
var verbose bool

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           filepath.Base(invokedAs),
		Short:         "toolhost: one MCP server for every tool on this machine",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
	}
	root.PersistentFlags().BoolVar(&verbose, "verbose", false, "print what the plugins log (warnings and errors) on stderr; `serve` always logs them")
	root.SetVersionTemplate(versionLine() + "\n")
	root.AddCommand(newVersionCmd(), newServeCmd(), newListCmd(), newCallCmd(), newCapabilitiesCmd(), newCheckCmd(), newSkillCmd(), newInstallClientCmd(), newSurfaceCmd(),
		newApproveCmd(), newAuditCmd(), newNewPluginCmd(), newUninstallClientCmd(), newCacheCmd())
	markUsageErrors(root)
	return root
}

func newServeCmd() *cobra.Command {
	var httpAddr, surfaceName string
	var dev bool
	var ops httpFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve MCP over stdio (or Streamable HTTP with --http)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServe(cmd.Context(), httpAddr, surfaceName, dev || os.Getenv("HOST_DEV") == "1", &ops)
		},
	}
	ops.register(cmd)
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve Streamable HTTP on this address (loopback by default) instead of stdio")
	cmd.Flags().StringVar(&surfaceName, "surface", "", "serve the curated surface surfaces/NAME.yaml (its named tools only) instead of the six generic tools")
	cmd.Flags().BoolVar(&dev, "dev", false, "developer mode: run plugin folders without approval (as HOST_DEV=1); says so loudly")
	return cmd
}

func newListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List tools, agents and skills: version, actions, ready or why not, broken manifests",
		Long: "list shows every tool, agent and skill. A tool is ready when its folder is approved and its binary\n" +
			"implements the actions its tool.yaml declares: list starts a plugin once per build to ask (as host\n" +
			"check does) and remembers the binaries that matched in the cache folder.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a := newApp(cmd.ErrOrStderr(), hclog.Warn)
			defer a.close()
			snap := a.registry.Scan()
			markUnchecked(snap, checkActions(cmd.Context(), a, snap, registry.DefaultCacheDir()))
			disabled, err := supervisor.ReadDisabled(registry.DefaultStateDir(), time.Now())
			if err != nil {
				a.logger.Warn("cannot tell which tools are disabled", "error", err)
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), listJSON(snap, disabled))
			}
			printList(cmd.OutOrStdout(), snap, disabled, terminalWidth(cmd))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// listJSON is `host list --json`. A tool a running host disabled (for
// this binary) carries "disabled": {reason, until}.
func listJSON(snap *registry.Snapshot, disabled map[string]supervisor.Disabled) map[string]any {
	var tools []map[string]any
	for _, t := range snap.Tools {
		e := map[string]any{"name": t.Name(), "kind": string(t.Manifest.Kind), "version": t.Manifest.Version,
			"description": t.Manifest.Description, "actions": t.Manifest.ActionNames(), "ready": t.Ready, "dir": t.Dir,
			"approval": string(t.Approval)}
		if !t.Ready {
			e["not_ready"] = t.NotReady
		}
		if t.NextStep != "" {
			e["next_step"] = t.NextStep
		}
		if d, ok := disabled[t.Name()]; ok && d.SHA256 == t.SHA256 {
			e["disabled"] = map[string]any{"reason": d.Reason, "until": d.Until.UTC().Format(time.RFC3339), "crashes": d.Crashes}
		}
		if t.Manifest.Kind == manifests.KindAgent {
			e["uses"] = t.Manifest.UseNames()
		}
		tools = append(tools, e)
	}
	var skills []map[string]any
	for _, s := range snap.Skills {
		skills = append(skills, map[string]any{"name": s.Name, "description": s.Description, "path": s.Path})
	}
	var broken []map[string]any
	for _, b := range snap.Broken {
		broken = append(broken, map[string]any{"path": b.Path, "error": b.Error})
	}
	return map[string]any{"tools": orEmpty(tools), "skills": orEmpty(skills), "broken": orEmpty(broken), "digest": snap.Digest}
}

// usesText is an agent's uses for the terminal.
func usesText(m *manifests.Manifest) string {
	if len(m.Uses) == 0 {
		return "nothing (no uses: in its manifest, so it may call no tool)"
	}
	return strings.Join(m.UseNames(), ", ")
}

func orEmpty(l []map[string]any) []map[string]any {
	if l == nil {
		return []map[string]any{}
	}
	return l
}

// printList prints the list as a table width columns wide (0: no limit);
// a status of several lines stays in its column, and at a narrow width
// VERSION, then ACTIONS, then KIND are left out before NAME and STATUS.
func printList(w io.Writer, snap *registry.Snapshot, disabled map[string]supervisor.Disabled, width int) {
	tab := table.Table{Header: []string{"NAME", "KIND", "VERSION", "ACTIONS", "STATUS"}, Priority: []int{4, 2, 0, 1, 3},
		Align: []table.Align{table.AlignLeft, table.AlignLeft, table.AlignLeft, table.AlignRight}, Width: width,
		LeftOut: "`" + invokedAs + " list --json` shows them"}
	for _, t := range snap.Tools {
		status := "ready"
		switch {
		case t.Approval == registry.ApprovalNew || t.Approval == registry.ApprovalChanged:
			status = t.NotReady // "new — needs approval: …"
		case !t.Ready:
			status = "not ready: " + t.NotReady
		default:
			if d, ok := disabled[t.Name()]; ok && d.SHA256 == t.SHA256 {
				status = fmt.Sprintf("disabled until %s: %s", d.Until.Local().Format("15:04:05 MST"), d.Reason)
			}
		}
		if t.Manifest.Kind == manifests.KindAgent {
			status += "\nuses: " + usesText(t.Manifest)
		}
		tab.Rows = append(tab.Rows, []string{t.Name(), string(t.Manifest.Kind), t.Manifest.Version, strconv.Itoa(len(t.Manifest.Actions)), status})
	}
	for _, s := range snap.Skills {
		tab.Rows = append(tab.Rows, []string{s.Name, "skill", "", "", firstLine(s.Description)})
	}
	_ = tab.Fprint(w)
	if len(snap.Tools) == 0 && len(snap.Skills) == 0 {
		fmt.Fprintf(w, "no plugins found in %s\n", strings.Join(pluginPath(), ", "))
	}
	for _, b := range snap.Broken {
		fmt.Fprintf(w, "\nbroken: %s\n", indent(b.Error))
	}
}

func newCallCmd() *cobra.Command {
	var argPairs []string
	var argsJSON string
	var confirm, asJSON, asMarkdown bool
	cmd := &cobra.Command{
		Use:   "call TOOL ACTION [--arg NAME=VALUE]… [--args JSON] [--confirm] [--json | --markdown]",
		Short: "Call a tool's action through the full host path (checker, gate, supervisor)",
		Long: "call runs one action as an MCP client's run_tool does (arg checker, gate, supervisor, result cap).\n" +
			"On a terminal it prints the result for a person (Markdown rendered, rows as tables, errors as\n" +
			"sentences, one progress line); piped, or with --json, it prints the raw JSON result and the error\n" +
			"envelope as scripts read them; --markdown prints the tool's own Markdown instead of the JSON.\n" +
			"NO_COLOR (or TERM=dumb) turns colour off.\n\n" + cli.ExitCodeTable,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			a := newApp(cmd.ErrOrStderr(), hclog.Warn)
			defer a.close()
			w := &cli.Writer{Out: cmd.OutOrStdout(), Err: cmd.ErrOrStderr(), PreferMarkdown: asMarkdown, Term: terminal(cmd, asJSON || asMarkdown)}
			snap := a.registry.Scan()
			action := ""
			if len(args) == 2 {
				action = args[1]
			}
			kind, act := callTarget(snap, args[0], action)
			flags := make([]cli.Flag, 0, len(argPairs))
			for _, p := range argPairs {
				f, e := cli.ParsePair(p)
				if e != nil {
					return exitCode(w.Fail(e))
				}
				flags = append(flags, f)
			}
			raw, e := cli.BuildArgs(act, flags, argsJSON)
			if e != nil {
				return exitCode(w.Fail(e))
			}
			out := a.dispatcher.Run(cmd.Context(), dispatch.Call{Kind: kind, Name: args[0], Action: action, Args: raw,
				Confirmed: confirm, Caller: &wire.Caller{ClientName: "host-cli", ClientVersion: version, RequestId: "1", Channel: wire.ChannelTerminal}},
				func(p *wire.Progress) { w.Progress(p.GetProgress(), p.GetTotal(), p.GetMessage()) })
			code := w.Write(cli.Result{JSON: out.JSON, Markdown: out.Markdown, Err: out.Err})
			if out.Code() == wire.CodeApprovalRequired && !confirm && !w.Term.Render {
				fmt.Fprintln(w.Err, "this action is irreversible: run it again with --confirm if you mean it")
			}
			if code != cli.ExitOK {
				return exitCode(code)
			}
			return nil
		},
	}
	cmd.ValidArgsFunction = completeToolAction
	cmd.Flags().StringArrayVar(&argPairs, "arg", nil, "an arg as NAME=VALUE, typed by the manifest (repeatable)")
	_ = cmd.RegisterFlagCompletionFunc("arg", completeArgFlag)
	cmd.Flags().StringVar(&argsJSON, "args", "", "all args as one JSON object")
	cmd.Flags().BoolVar(&confirm, "confirm", false, "confirm an irreversible action (as run_tool_confirmed)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the raw JSON result even on a terminal (what a pipe gets)")
	cmd.Flags().BoolVar(&asMarkdown, "markdown", false, "print the tool's own Markdown rendering, unrendered, instead of the JSON")
	cmd.MarkFlagsMutuallyExclusive("json", "markdown")
	return cmd
}

// callTarget is the kind of the named tool (a tool when it is unknown) and
// the action whose manifest types the --arg values: the named one, or the
// only one when none is named; nil when unknown, so every value passes as
// a string and the checker answers it.
func callTarget(snap *registry.Snapshot, tool, action string) (manifests.Kind, *manifests.Action) {
	t, _ := snap.Tool(tool)
	if t == nil {
		return manifests.KindTool, nil
	}
	act := t.Manifest.Action(action)
	if act == nil && action == "" && len(t.Manifest.Actions) == 1 {
		act = &t.Manifest.Actions[0]
	}
	return t.Manifest.Kind, act
}

func newCapabilitiesCmd() *cobra.Command {
	var q discovery.Query
	cmd := &cobra.Command{
		Use:   "capabilities [NAME [ACTION]]",
		Short: "Print what the capabilities MCP tool answers: the list, a search, a tool's schema, or one action's args",
		Args:  cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			a := newApp(cmd.ErrOrStderr(), hclog.Warn)
			defer a.close()
			if len(args) > 0 {
				q.Name = args[0]
			}
			if len(args) > 1 {
				q.Action = args[1]
			}
			ans, env := discovery.Answer(a.registry.Scan(), q, a.capsMaxBytes)
			if env != nil {
				return exitCode((&cli.Writer{Out: cmd.OutOrStdout(), Term: terminal(cmd, false)}).Fail(env))
			}
			return writeJSON(cmd.OutOrStdout(), ans)
		},
	}
	cmd.ValidArgsFunction = completeCapabilities
	cmd.Flags().StringVar(&q.Search, "search", "", "rank the actions and skills against a task in plain words and print the best five (with NAME: that tool's actions only)")
	cmd.Flags().StringVar(&q.Kind, "kind", "", "only tool, agent or skill")
	return cmd
}

func newSkillCmd() *cobra.Command {
	return &cobra.Command{
		Use:               "skill NAME",
		Short:             "Print a skill's Markdown, as get_skill answers it",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeSkill,
		RunE: func(cmd *cobra.Command, args []string) error {
			a := newApp(cmd.ErrOrStderr(), hclog.Warn)
			defer a.close()
			sk, suggestions := a.registry.Scan().Skill(args[0])
			if sk == nil {
				hint := hostCmd("list") + " lists the skills"
				if len(suggestions) > 0 {
					hint = "did you mean " + strings.Join(suggestions, " or ") + "? " + hint
				}
				return fmt.Errorf("skill: no skill named %q (%s)", args[0], hint)
			}
			body, err := sk.Body()
			if err != nil {
				return fmt.Errorf("skill: %w", err)
			}
			_, err = io.WriteString(cmd.OutOrStdout(), body)
			return err
		},
	}
}

func newCheckCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "Check every manifest, binary, checksum pin and Describe; exit 1 on any problem",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a := newApp(cmd.ErrOrStderr(), hclog.Warn)
			defer a.close()
			problems := runCheck(cmd.Context(), a, cmd.OutOrStdout())
			if problems > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "\n%d problem(s)\n", problems)
				return exitCode(1)
			}
			fmt.Fprintln(cmd.OutOrStdout(), "\nall plugins OK")
			return nil
		},
	}
}

// runCheck prints one line per plugin and returns the number of problems.
func runCheck(ctx context.Context, a *app, w io.Writer) int {
	snap := a.registry.Scan()
	problems := 0
	for _, b := range snap.Broken {
		fmt.Fprintf(w, "FAIL %s\n", indent(b.Error))
		problems++
	}
	for _, t := range snap.Tools {
		for _, k := range t.Manifest.WithheldEnv() {
			fmt.Fprintf(w, "warn %s: %s asks for %s, the host's own (HOST_*): no plugin gets it, whatever its manifest says; remove it from env or secrets\n",
				t.Name(), t.Manifest.Path, k)
		}
		if !t.Ready {
			fmt.Fprintf(w, "FAIL %s: not ready: %s\n", t.Name(), t.NotReady)
			problems++
			continue
		}
		if err := a.supervisor.Warm(ctx, t); err != nil {
			fmt.Fprintf(w, "FAIL %s: %v\n", t.Name(), err)
			problems++
			continue
		}
		if t.Manifest.Kind == manifests.KindAgent {
			fmt.Fprintf(w, "ok   %s %s (%d actions; uses %s)\n", t.Name(), t.Manifest.Version, len(t.Manifest.Actions), usesText(t.Manifest))
			continue
		}
		fmt.Fprintf(w, "ok   %s %s (%d actions)\n", t.Name(), t.Manifest.Version, len(t.Manifest.Actions))
	}
	if len(snap.Tools) == 0 && len(snap.Broken) == 0 {
		fmt.Fprintf(w, "no plugins found in %s\n", strings.Join(pluginPath(), ", "))
	}
	return problems
}

// writeJSON prints v indented, as every terminal command prints JSON
// (cli.Writer.JSON); raw JSON keeps its own key order.
func writeJSON(w io.Writer, v any) error { return (&cli.Writer{Out: w}).JSON(v) }

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n     ") }

// markUnchecked marks the tools whose binary failed the actions check as
// not ready, with the problem. The snapshot is this command's own.
func markUnchecked(snap *registry.Snapshot, problems map[string]string) {
	for _, t := range snap.Tools {
		if p, ok := problems[t.Name()]; ok {
			t.Ready = false
			t.NotReady = p
			t.NextStep = "fix or rebuild the plugin so it implements its tool.yaml's actions, then run " + hostCmd("check")
		}
	}
}
