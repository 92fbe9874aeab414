package discovery

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/registry"
)

const usageTool = `name: usage
description: Where AI-coding tokens and money went.
entrypoint: usage
actions:
  - name: get-usage
    description: Token spend and usage for a period, by project, model or day.
    read_only: true
    keywords: [cost, bill]
    args:
      - {name: period, type: string, enum: [today, yesterday, week, month]}
  - name: get-savings
    description: Ways to spend less over a period.
    read_only: true
`

const reviewAgent = `name: spend-review
kind: agent
description: Review AI spend and record the findings in notes.
entrypoint: spend-review
uses: [usage]
actions:
  - name: weekly-review
    description: Run get-savings for the week and remember the findings.
`

// snapshotWithSkill is snapshot plus one skill folder.
func snapshotWithSkill(t *testing.T, manifests map[string]string, skill, body string) *registry.Snapshot {
	t.Helper()
	root, skills := t.TempDir(), t.TempDir()
	for name, m := range manifests {
		dir := filepath.Join(root, name)
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "tool.yaml"), []byte(m), 0o644)
		os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755)
	}
	os.MkdirAll(filepath.Join(skills, skill), 0o755)
	os.WriteFile(filepath.Join(skills, skill, "SKILL.md"), []byte(body), 0o644)
	snap := registry.New(registry.Options{PluginDirs: []string{root}, SkillDirs: []string{skills}}).Scan()
	if len(snap.Broken) > 0 {
		t.Fatalf("broken: %+v", snap.Broken)
	}
	return snap
}

func matchKeys(t *testing.T, ans map[string]any) []string {
	t.Helper()
	var out []string
	for _, m := range ans["matches"].([]map[string]any) {
		if _, ok := m["score"].(float64); !ok {
			t.Errorf("match without a score: %v", m)
		}
		out = append(out, answerKey(m))
	}
	return out
}

// TestSearchRanks: a sentence finds the action though no action has all
// its words; the answer is the best few with scores, best first; filters
// by kind, by tool and by what the caller may run hold; words that fit
// nothing answer no good match.
func TestSearchRanks(t *testing.T) {
	snap := snapshotWithSkill(t, map[string]string{"sheets": sheets, "usage": usageTool, "spend-review": reviewAgent, "big": bigTool(30)},
		"reviewing-spend", "---\nname: reviewing-spend\ndescription: How to review AI spending week by week.\n---\n# Reviewing spend\n")
	onlySheets := func(name string) bool { return name == "sheets" }
	tests := []struct {
		name      string
		q         Query
		first     string
		not       []string
		noneAbove bool
	}{
		{"a sentence", Query{Search: "what did my agents cost yesterday"}, "usage/get-usage", nil, false},
		{"keywords count", Query{Search: "how big is my bill"}, "usage/get-usage", nil, false},
		{"enum values count", Query{Search: "formulas of the sheet"}, "sheets/read-sheet", nil, false},
		{"a plural and an inflection", Query{Search: "deleting sheets"}, "sheets/delete-sheet", nil, false},
		{"a skill", Query{Search: "how do I review my spending each week"}, "", nil, false},
		{"kind agent", Query{Search: "review the findings of the week", Kind: "agent"}, "spend-review/weekly-review", []string{"usage/get-savings"}, false},
		{"kind skill", Query{Search: "spending", Kind: "skill"}, "skill/reviewing-spend", []string{"usage/get-usage"}, false},
		{"within one tool", Query{Search: "review the findings of the week", Name: "spend-review"}, "spend-review/weekly-review", []string{"usage/get-savings"}, false},
		{"what the caller may run", Query{Search: "spend sheet", Allow: onlySheets}, "", []string{"usage/get-usage", "usage/get-savings", "spend-review/weekly-review"}, false},
		{"words that fit nothing", Query{Search: "bake a chocolate cake"}, "", nil, true},
		{"stop words alone", Query{Search: "what is it that they do"}, "", nil, true},
		{"a word every action has", Query{Search: "more words"}, "", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ans, env := Answer(snap, tt.q, 0)
			if env != nil {
				t.Fatalf("error: %v", env)
			}
			got := matchKeys(t, ans)
			if tt.noneAbove {
				if len(got) != 0 || !strings.Contains(ans["next_step"].(string), "no good match") {
					t.Fatalf("got %v, next_step %q; want no matches and no good match", got, ans["next_step"])
				}
				return
			}
			if len(got) == 0 || len(got) > MaxHits {
				t.Fatalf("got %d matches %v, want 1 to %d", len(got), got, MaxHits)
			}
			if tt.first != "" && got[0] != tt.first {
				t.Errorf("first match %s, want %s (all: %v)", got[0], tt.first, got)
			}
			if tt.name == "a skill" && !slices.Contains(got[:min(3, len(got))], "skill/reviewing-spend") {
				t.Errorf("the skill is not in the top three: %v", got)
			}
			for _, n := range tt.not {
				if slices.Contains(got, n) {
					t.Errorf("got %s, which the filter leaves out: %v", n, got)
				}
			}
			ms := ans["matches"].([]map[string]any)
			for i := 1; i < len(ms); i++ {
				if ms[i]["score"].(float64) > ms[i-1]["score"].(float64) {
					t.Errorf("matches not best first: %v", got)
				}
			}
		})
	}
}

// TestSearchWithinAToolNamesIt: name with search is a filter, so a name
// that is no tool (or one the caller may not run) answers unknown_tool.
func TestSearchWithinAToolNamesIt(t *testing.T) {
	snap := snapshot(t, map[string]string{"sheets": sheets, "usage": usageTool})
	for _, q := range []Query{
		{Search: "cost", Name: "usag"},
		{Search: "cost", Name: "usage", Allow: func(n string) bool { return n == "sheets" }},
	} {
		_, env := Answer(snap, q, 0)
		if env == nil || env.Code != "unknown_tool" {
			t.Errorf("%+v: got %v, want unknown_tool", q.Name, env)
		}
	}
}

// TestAllowHidesTools: a caller's scopes leave the tools it may not run
// out of the list and of name lookups, as out of search.
func TestAllowHidesTools(t *testing.T) {
	snap := snapshot(t, map[string]string{"sheets": sheets, "usage": usageTool})
	allow := func(n string) bool { return n == "sheets" }
	list, _ := Answer(snap, Query{Allow: allow}, 0)
	if got := testplugin.JSON(t, list); strings.Contains(got, `"usage"`) || !strings.Contains(got, `"sheets"`) {
		t.Errorf("list: %s", got)
	}
	if _, env := Answer(snap, Query{Name: "usage", Allow: allow}, 0); env == nil {
		t.Error("name lookup of a tool the caller may not run answered its schema")
	}
	if _, env := Answer(snap, Query{Name: "usage", Action: "get-usage", Allow: allow}, 0); env == nil {
		t.Error("action lookup of a tool the caller may not run answered its args")
	}
}

// TestSearchIndexFollowsTheSnapshot: a new snapshot (a plugin added) is
// searched as it is, not through the index of the one before.
func TestSearchIndexFollowsTheSnapshot(t *testing.T) {
	before := snapshot(t, map[string]string{"sheets": sheets})
	if got := Search(before, Query{Search: "token spend"}); len(got) != 0 {
		t.Fatalf("before: %v", got)
	}
	after := snapshot(t, map[string]string{"sheets": sheets, "usage": usageTool})
	if got := Search(after, Query{Search: "token spend"}); len(got) == 0 || got[0].Name != "usage" {
		t.Fatalf("after: %v", got)
	}
}
