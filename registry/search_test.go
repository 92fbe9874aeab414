package registry

import (
	"path/filepath"
	"strings"
	"testing"
)

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

// A query word that is a whole word of a tool's or action's name ranks
// above one that is only part of a name, whatever the names' order.
func TestWholeNameWordsRankFirst(t *testing.T) {
	root := t.TempDir()
	addTool(t, root, "xlsx", "", true)
	for _, name := range []string{"asheetsx", "axlsx", "acredentialx"} {
		addTool(t, root, name, "name: "+name+"\ndescription: A tool for tests.\nversion: 1.0.0\nentrypoint: bin\nactions:\n"+
			"  - name: convert\n    description: Convert a file.\n    read_only: true\n", true)
	}
	snap := New(Options{PluginDirs: []string{root}}).Scan()
	tests := []struct{ query, want string }{
		{"sheet", "xlsx/read-sheet"},  // a word of the action's name; asheetsx has it inside
		{"xlsx", "xlsx/"},             // the tool's name; axlsx has it inside
		{"credential", "xlsx/list-c"}, // a plural word after a dash; acredentialx has it inside
		{"sheets", "xlsx/read-sheet"}, // a plural query for a singular word; asheetsx has it inside
	}
	for _, tt := range tests {
		got := snap.Search(tt.query, "")
		if len(got) == 0 || !strings.HasPrefix(got[0].Name+"/"+got[0].Action, tt.want) {
			t.Errorf("Search(%q) = %+v, want %s first", tt.query, got, tt.want)
		}
	}
}
