package manifests

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSuggestRanksBestFirst checks the order of suggestions when several
// resemble the name, whatever order the candidates come in: a closer
// spelling before a farther one, and among names that only share words,
// the one sharing the largest part of all their words first (shared words
// over all words: 2 of 4, then 2 of 7, then 1 of 4).
func TestSuggestRanksBestFirst(t *testing.T) {
	spelling := []string{"abcdefghx", "abcdefxyz"} // 1 and 3 edits from abcdefghi
	sharing := []string{"alpha-bravo-xxxxxxxxxxxxx", "alpha-bravo-qqqq-rrrr-ssss-tttt", "charlie-yyyyyyyyyyyyyy"}
	for _, tt := range []struct {
		name, query string
		candidates  []string
		want        []string
	}{
		{"closer spelling first", "abcdefghi", spelling, spelling},
		{"closer spelling first, given last", "abcdefghi", []string{spelling[1], spelling[0]}, spelling},
		// Next to the same words, a spelling 2 edits away is kept and one 3
		// away is noise.
		{"same words, then spellings up to 2 edits", "read-sheet", []string{"read-shxxx", "read-shexx", "sheet-read"}, []string{"sheet-read", "read-shexx"}},
		{"more words shared first", "alpha-bravo-charlie", sharing, sharing},
		{"more words shared first, given last", "alpha-bravo-charlie", []string{sharing[2], sharing[1], sharing[0]}, sharing},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Suggest(tt.query, tt.candidates)); diff != "" {
				t.Errorf("Suggest(%q, %q) (-want +got):\n%s", tt.query, tt.candidates, diff)
			}
		})
	}
}

// TestShortPluralsAndWords checks where the plural rules start: "lies" is
// the plural of "lie" (four letters, the -s rule, not the -ies one), while
// a three-letter word ending in s ("gas") is a word of its own, so "ga" is
// only a near spelling of it, no better than "gax".
func TestShortPluralsAndWords(t *testing.T) {
	for _, tt := range []struct {
		query      string
		candidates []string
		want       []string
	}{
		{"lie", []string{"lies"}, []string{"lies"}},
		{"gas", []string{"gax", "ga"}, []string{"gax", "ga"}},
	} {
		if diff := cmp.Diff(tt.want, Suggest(tt.query, tt.candidates)); diff != "" {
			t.Errorf("Suggest(%q, %q) (-want +got):\n%s", tt.query, tt.candidates, diff)
		}
	}
}
