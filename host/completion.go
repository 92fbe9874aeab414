package main

import (
	"io"
	"strings"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/toolhost/toolhost/cli"
	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/registry"
)

// Dynamic shell completion: `host completion bash|zsh|fish|powershell`
// (cobra's) prints a script that asks the hidden `host __complete` for the
// candidates, which these functions take from the registry as it is now —
// a plugin dropped in completes at once.

// completionSnapshot scans the registry quietly (no log on the terminal
// while a person presses Tab).
func completionSnapshot() *registry.Snapshot {
	a := newApp(io.Discard, hclog.Off)
	defer a.close()
	return a.registry.Scan()
}

// completeToolAction completes `host call TOOL ACTION`: tool and agent
// names first, then the named tool's actions.
func completeToolAction(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	snap := completionSnapshot()
	switch len(args) {
	case 0:
		return toolNames(snap, toComplete), cobra.ShellCompDirectiveNoFileComp
	case 1:
		return actionNames(snap, args[0], toComplete), cobra.ShellCompDirectiveNoFileComp
	}
	return nil, cobra.ShellCompDirectiveNoFileComp
}

// completeCapabilities completes `host capabilities NAME ACTION`: tools,
// agents and skills, then the tool's actions.
func completeCapabilities(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) == 0 {
		snap := completionSnapshot()
		return append(toolNames(snap, toComplete), skillNames(snap, toComplete)...), cobra.ShellCompDirectiveNoFileComp
	}
	return completeToolAction(cmd, args, toComplete)
}

// completeSkill completes `host skill NAME`.
func completeSkill(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return skillNames(completionSnapshot(), toComplete), cobra.ShellCompDirectiveNoFileComp
}

// completeArgFlag completes `host call TOOL ACTION --arg NAME=VALUE`: the
// action's arg names as NAME= (no space after), then an enum or boolean
// arg's values.
func completeArgFlag(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) == 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	action := ""
	if len(args) > 1 {
		action = args[1]
	}
	_, act := callTarget(completionSnapshot(), args[0], action)
	if act == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	if name, value, ok := strings.Cut(toComplete, "="); ok {
		arg := act.Arg(name)
		if arg == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		values := arg.Enum
		if arg.Type == manifests.TypeBoolean {
			values = []any{"true", "false"}
		}
		if len(values) == 0 {
			return nil, cobra.ShellCompDirectiveDefault // a path or free text: let the shell complete files
		}
		var out []cobra.Completion
		for _, v := range values {
			if s := cli.ArgText(v); strings.HasPrefix(s, value) {
				out = append(out, name+"="+s)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, arg := range act.Args {
		if strings.HasPrefix(arg.Name, toComplete) {
			out = append(out, cobra.CompletionWithDesc(arg.Name+"=", blurb(arg.Description)))
		}
	}
	return out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
}

func toolNames(snap *registry.Snapshot, prefix string) []cobra.Completion {
	var out []cobra.Completion
	for _, t := range snap.Tools {
		if strings.HasPrefix(t.Name(), prefix) {
			out = append(out, cobra.CompletionWithDesc(t.Name(), blurb(t.Manifest.Description)))
		}
	}
	return out
}

func skillNames(snap *registry.Snapshot, prefix string) []cobra.Completion {
	var out []cobra.Completion
	for _, s := range snap.Skills {
		if strings.HasPrefix(s.Name, prefix) {
			out = append(out, cobra.CompletionWithDesc(s.Name, blurb(s.Description)))
		}
	}
	return out
}

func actionNames(snap *registry.Snapshot, tool, prefix string) []cobra.Completion {
	t, _ := snap.Tool(tool)
	if t == nil {
		return nil
	}
	var out []cobra.Completion
	for _, a := range t.Manifest.Actions {
		if strings.HasPrefix(a.Name, prefix) {
			out = append(out, cobra.CompletionWithDesc(a.Name, blurb(a.Description)))
		}
	}
	return out
}

// blurb is a description's first sentence, cut to fit beside a candidate.
func blurb(s string) string {
	s = firstLine(s)
	if i := strings.Index(s, ". "); i > 0 {
		s = s[:i+1]
	}
	if r := []rune(s); len(r) > 72 {
		s = string(r[:71]) + "…"
	}
	return s
}
