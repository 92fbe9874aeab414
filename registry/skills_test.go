package registry

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

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

// An edited SKILL.md is read again at the next scan; an unchanged one is
// not parsed again.
func TestEditedSkillIsReadAgain(t *testing.T) {
	skills := t.TempDir()
	path := filepath.Join(skills, "sheet-tips", SkillFile)
	writeFile(t, path, "---\nname: sheet-tips\ndescription: First words.\n---\nbody\n", 0o644)
	writeFile(t, filepath.Join(skills, "other", SkillFile), "---\nname: other\ndescription: Left alone.\n---\nbody\n", 0o644)
	r := New(Options{SkillDirs: []string{skills}})
	first := r.Scan()
	writeFile(t, path, "---\nname: sheet-tips\ndescription: Second words.\n---\nbody\n", 0o644)
	second := r.Scan()
	if sk, _ := second.Skill("sheet-tips"); sk == nil || sk.Description != "Second words." {
		t.Fatalf("after the edit: %+v, want the description Second words.", sk)
	}
	a, _ := first.Skill("other")
	b, _ := second.Skill("other")
	if a != b {
		t.Error("an unchanged skill was parsed again")
	}
}

// Of two skills with the same name, the one found first (the skill folders
// in their order, then the plugin folders; each folder's children by name)
// is served and the other is listed broken, however many skills there are.
func TestFirstSkillOfANameWins(t *testing.T) {
	user, other := t.TempDir(), t.TempDir()
	skill := func(dir, folder, name, desc string) string {
		p := filepath.Join(dir, folder, SkillFile)
		writeFile(t, p, "---\nname: "+name+"\ndescription: "+desc+"\n---\nbody\n", 0o644)
		return p
	}
	for i := range 30 {
		skill(other, fmt.Sprintf("filler-%02d", i), fmt.Sprintf("filler-%02d", i), "Filler.")
	}
	first := skill(user, "z-tips", "tips", "From the user's folder.")
	second := skill(user, "zz-tips", "tips", "Also from the user's folder.")
	third := skill(other, "a-tips", "tips", "From the other folder.")
	snap := New(Options{SkillDirs: []string{user, other}}).Scan()
	if sk, _ := snap.Skill("tips"); sk == nil || sk.Path != first {
		t.Fatalf("served %+v, want %s", sk, first)
	}
	var broken []string
	for _, b := range snap.Broken {
		broken = append(broken, b.Path)
		if !strings.Contains(b.Error, `"tips" is already taken by `+first) {
			t.Errorf("broken %s: %s", b.Path, b.Error)
		}
	}
	if strings.Join(broken, " ") != second+" "+third {
		t.Fatalf("broken %v, want %s then %s", broken, second, third)
	}
}
