package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// TestCompletionCandidates asks `host __complete` (what the scripts of
// `host completion bash|zsh|fish` call on Tab) for tool, action, arg and
// value names read from the registry.
func TestCompletionCandidates(t *testing.T) {
	plugins := t.TempDir()
	testplugin.Install(t, plugins, "1")
	skills := t.TempDir()
	testplugin.WriteFile(t, filepath.Join(skills, "weekly-review", "SKILL.md"), "---\nname: weekly-review\ndescription: Review the week. Then rest.\n---\n# Weekly\n")
	// An enum arg, for value completion.
	testplugin.WriteFile(t, filepath.Join(plugins, "sorter", "tool.yaml"), `name: sorter
description: Sorts things.
version: 0.1.0
entrypoint: sorter
actions:
  - name: sort
    description: Sort a list.
    read_only: true
    args:
      - {name: order, type: string, enum: [asc, desc]}
      - {name: stable, type: boolean}
`)
	tests := []struct {
		name      string
		args      []string
		want      []string // candidates, without their descriptions
		directive string
	}{
		{"tools", []string{"call", ""}, []string{"sorter", "testtool"}, ":4"},
		{"tools by prefix", []string{"call", "te"}, []string{"testtool"}, ":4"},
		{"actions", []string{"call", "testtool", "de"}, []string{"delete-thing"}, ":4"},
		{"unknown tool has no actions", []string{"call", "nosuch", ""}, nil, ":4"},
		{"arg names, no space after", []string{"call", "testtool", "echo", "--arg", ""}, []string{"text=", "max-results="}, ":6"},
		{"arg names by prefix", []string{"call", "testtool", "echo", "--arg", "ma"}, []string{"max-results="}, ":6"},
		{"enum values", []string{"call", "sorter", "sort", "--arg", "order="}, []string{"order=asc", "order=desc"}, ":4"},
		{"boolean values", []string{"call", "sorter", "sort", "--arg", "stable=t"}, []string{"stable=true"}, ":4"},
		{"free text: the shell completes files", []string{"call", "testtool", "echo", "--arg", "text="}, nil, ":0"},
		{"capabilities: tools and skills", []string{"capabilities", ""}, []string{"sorter", "testtool", "weekly-review"}, ":4"},
		{"capabilities: actions", []string{"capabilities", "sorter", ""}, []string{"sort"}, ":4"},
		{"skills", []string{"skill", "w"}, []string{"weekly-review"}, ":4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOST_SKILL_PATH", skills)
			t.Setenv("HOST_PLUGIN_PATH", plugins)
			t.Setenv("XDG_CACHE_HOME", t.TempDir())
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			var out, errOut strings.Builder
			if code := run(t.Context(), append([]string{"__complete"}, tt.args...), &out, &errOut); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			directive := lines[len(lines)-1]
			var got []string
			for _, l := range lines[:len(lines)-1] {
				name, _, _ := strings.Cut(l, "\t")
				got = append(got, name)
			}
			if !slices.Equal(got, tt.want) || directive != tt.directive {
				t.Errorf("got %q %s, want %q %s", got, directive, tt.want, tt.directive)
			}
		})
	}
	// The scripts the shells load exist and call back into __complete.
	for _, shell := range []string{"bash", "zsh", "fish"} {
		var out, errOut strings.Builder
		if code := run(t.Context(), []string{"completion", shell}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "__complete") {
			t.Errorf("host completion %s: exit %d, script lacks __complete:\n%.200s", shell, code, out.String())
		}
	}
}
