package index

import (
	"slices"
	"testing"
)

// TestFeedbackWords: pseudo-relevance feedback takes the words weighing
// most in the best notes, as many as the tuning says, at its weight, only
// those in enough of the notes, never the query's own; the coverage gate
// reads the first ranking's best section.
func TestFeedbackWords(t *testing.T) {
	r := &ranking{cands: []*candidate{
		{path: "a.md", score: 2, body: []string{"rebas", "rebas", "rebas", "branch", "upstream", "commit"}},
		{path: "a.md", score: 1.5, body: []string{"ignor", "ignor", "ignor"}}, // a.md's second section: not counted
		{path: "b.md", score: 1, body: []string{"branch", "upstream", "merg"}},
	}}
	query := []group{{word: "commit", own: "commit", stems: map[string]float64{"commit": 1}}}
	stems := func(gs []group) []string {
		var out []string
		for _, g := range gs {
			for st, w := range g.stems {
				if !g.extra || w != 0.3 {
					t.Errorf("feedback word %q: extra %v weight %v, want an extra word at 0.3", st, g.extra, w)
				}
				out = append(out, st)
			}
		}
		return out
	}
	tests := []struct {
		name string
		edit func(*Tuning)
		want []string
	}{
		{"as shipped", func(*Tuning) {}, []string{"rebas", "branch", "upstream", "merg"}},
		{"two words", func(tu *Tuning) { tu.Feedback = 2 }, []string{"rebas", "branch"}},
		{"in both notes", func(tu *Tuning) { tu.FeedbackMinDocs = 2 }, []string{"branch", "upstream"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tu := DefaultTuning
			tt.edit(&tu)
			if got := stems(feedback(r, query, tu)); !slices.Equal(got, tt.want) {
				t.Errorf("feedback words %v, want %v", got, tt.want)
			}
		})
	}
	r.cands[0].matched, r.cands[0].coverage = 1, 0.6
	if c := firstCoverage(r, 2); c != 0.6 {
		t.Errorf("first coverage with one of two words is %v, want 0.6", c)
	}
	if c := firstCoverage(r, 1); c != 1 {
		t.Errorf("first coverage with every word is %v, want 1", c)
	}
	if c := firstCoverage(&ranking{}, 1); c != 0 {
		t.Errorf("first coverage of no candidates is %v, want 0", c)
	}
}
