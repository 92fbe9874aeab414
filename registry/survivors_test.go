package registry

import (
	"path/filepath"
	"strings"
	"testing"
)

// Tests for what registry mutants of the 2026-12-01 sample changed unseen
// (testdata/mutate.md lists them by position).

// A snapshot lists tools by name whatever order the plugin folders are
// scanned in: capabilities and `host list` read them in this order.
func TestToolsAreInNameOrder(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	addTool(t, first, "zeta", "", true)
	addTool(t, first, "mid", "", true)
	addTool(t, second, "alpha", "", true)
	snap := New(Options{PluginDirs: []string{first, second}, Getenv: func(string) string { return "" }}).Scan()
	var got []string
	for _, tool := range snap.Tools {
		got = append(got, tool.Name())
	}
	if strings.Join(got, " ") != "alpha mid zeta" {
		t.Fatalf("tools in order %v, want alpha mid zeta", got)
	}
}

// Search finds skills when asked for every kind or for skills, and never
// when asked for tools or agents.
func TestSearchKindFilterForSkills(t *testing.T) {
	root, skills := t.TempDir(), t.TempDir()
	addTool(t, root, "xlsx", "", true)
	writeFile(t, filepath.Join(skills, "sheet-tips", "SKILL.md"), "---\nname: sheet-tips\ndescription: How to read a sheet well.\n---\nbody\n", 0o644)
	snap := New(Options{PluginDirs: []string{root}, SkillDirs: []string{skills}}).Scan()
	kinds := func(ms []Match) string {
		var k []string
		for _, m := range ms {
			k = append(k, m.Kind+":"+m.Name)
		}
		return strings.Join(k, " ")
	}
	tests := []struct {
		kind      string
		skill     bool
		wantTools bool
	}{
		{"", true, true},
		{"skill", true, false},
		{"tool", false, true},
		{"agent", false, false},
	}
	for _, tt := range tests {
		t.Run("kind="+tt.kind, func(t *testing.T) {
			got := kinds(snap.Search("sheet", tt.kind))
			if strings.Contains(got, "skill:sheet-tips") != tt.skill {
				t.Errorf("Search(sheet, %q) = %q: skill listed %v, want %v", tt.kind, got, !tt.skill, tt.skill)
			}
			if strings.Contains(got, "tool:xlsx") != tt.wantTools {
				t.Errorf("Search(sheet, %q) = %q: tool listed %v, want %v", tt.kind, got, !tt.wantTools, tt.wantTools)
			}
		})
	}
}

// A skill needs both a name and a description: either alone is a broken
// skill that names what is missing.
func TestSkillNeedsNameAndDescription(t *testing.T) {
	tests := []struct{ name, front string }{
		{"no description", "name: half\n"},
		{"no name", "description: Half a skill.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			skills := t.TempDir()
			writeFile(t, filepath.Join(skills, "half", "SKILL.md"), "---\n"+tt.front+"---\nbody\n", 0o644)
			snap := New(Options{SkillDirs: []string{skills}}).Scan()
			if len(snap.Skills) != 0 {
				t.Fatalf("skill accepted: %+v", snap.Skills[0])
			}
			if len(snap.Broken) != 1 || !strings.Contains(snap.Broken[0].Error, "name and description are required") {
				t.Fatalf("broken: %+v", snap.Broken)
			}
		})
	}
}
