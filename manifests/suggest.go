package manifests

import (
	"maps"
	"sort"
	"strings"
	"unicode"

	"github.com/agnivade/levenshtein"
)

// maxSuggestions is how many names Suggest returns at most.
const maxSuggestions = 3

// Suggest returns up to three of candidates that name is probably a
// misspelling of, best first, each exactly as it appears in candidates.
//
// Names are compared as sets of singularised words first: name and each
// candidate are split on '-', '_', '.', '/', spaces and camelCase
// boundaries, lowercased and singularised ("credentials" → "credential",
// "entries" → "entry"), so "credential-list" finds "list-credentials" and
// "max_results", "maxResults" and "max-results" all find "max-results".
// Then comes edit distance (Levenshtein) between the normalised names, within
// a threshold that grows with the name's length; only when neither finds
// anything, candidates that share a word with name. Suggest never changes a name: it only points at
// the candidates a caller may use instead.
func Suggest(name string, candidates []string) []string {
	q, ok := newQuery(name)
	if !ok || len(candidates) == 0 {
		return nil
	}
	var found []match
	seen := map[string]bool{}
	for i, c := range candidates {
		if seen[c] || c == name {
			continue
		}
		if m, ok := q.match(c, i); ok {
			seen[c] = true
			found = append(found, m)
		}
	}
	rank(found)
	found = keepBest(found)
	if len(found) == 0 {
		return nil
	}
	out := make([]string, len(found))
	for i, f := range found {
		out[i] = f.cand
	}
	return out
}

// query is a name normalised for comparison: its singularised words as a
// set, joined in order, joined sorted, and how many edits still count as a
// misspelling of it.
type query struct {
	set            map[string]bool
	joined, sorted string
	limit          int
}

// newQuery normalises name; false when it has no words to compare.
func newQuery(name string) (query, bool) {
	ws := words(name, true)
	if len(ws) == 0 {
		return query{}, false
	}
	joined := strings.Join(ws, "-")
	return query{set: wordSet(ws), joined: joined, sorted: sortedJoin(ws), limit: max(1, (len([]rune(joined))+2)/3)}, true
}

// match is one candidate that resembles the query: tier 0 has the same
// words, tier 1 is within the edit limit (score: the distance), tier 2
// shares a word (score: minus the share of words in common); index is its
// place in the candidates, the last tie-break.
type match struct {
	cand  string
	tier  int
	score float64
	index int
}

// match compares candidate c, at index i, with the query; false when they
// have nothing in common.
func (q query) match(c string, i int) (match, bool) {
	cWords := words(c, true)
	if len(cWords) == 0 {
		return match{}, false
	}
	cSet := wordSet(cWords)
	if maps.Equal(q.set, cSet) {
		return match{c, 0, 0, i}, true
	}
	cJoined := strings.Join(cWords, "-")
	d := min(
		levenshtein.ComputeDistance(q.joined, cJoined),
		levenshtein.ComputeDistance(q.sorted, sortedJoin(cWords)),
		levenshtein.ComputeDistance(strings.ReplaceAll(q.joined, "-", ""), strings.ReplaceAll(cJoined, "-", "")),
	)
	if d <= q.limit {
		return match{c, 1, float64(d), i}, true
	}
	shared := 0
	for w := range q.set {
		if cSet[w] {
			shared++
		}
	}
	if shared == 0 {
		return match{}, false
	}
	union := len(q.set) + len(cSet) - shared
	return match{c, 2, -float64(shared) / float64(union), i}, true
}

// rank orders matches best first: by tier, then score, then candidate order.
func rank(found []match) {
	sort.SliceStable(found, func(a, b int) bool {
		x, y := found[a], found[b]
		if x.tier != y.tier {
			return x.tier < y.tier
		}
		if x.score != y.score {
			return x.score < y.score
		}
		return x.index < y.index
	})
}

// keepBest drops the noise from ranked matches and keeps at most
// maxSuggestions: candidates that merely share a word are noise next to a
// close match, and distant spellings are noise next to the same words.
func keepBest(found []match) []match {
	if len(found) > 0 && found[0].tier < 2 {
		best := found[0].tier
		n := 0
		for n < len(found) && found[n].tier < 2 && (best == 1 || found[n].tier == 0 || found[n].score <= 2) {
			n++
		}
		found = found[:n]
	}
	if len(found) > maxSuggestions {
		found = found[:maxSuggestions]
	}
	return found
}

// words splits s into lowercase words on any character that is not a letter
// or digit and on camelCase boundaries ("maxResults", "HTTPServer"), and
// singularises each word when singular is true.
func words(s string, singular bool) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			w := strings.ToLower(string(cur))
			if singular {
				w = singularise(w)
			}
			out = append(out, w)
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if unicode.IsUpper(r) && len(cur) > 0 {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

// singularise turns an English plural into its singular by the common
// rules: "entries" → "entry", "addresses" → "address", "boxes" → "box",
// "sheets" → "sheet". Words ending in "ss", "us" or "is" are left alone
// ("class", "status", "analysis").
func singularise(w string) string {
	for _, p := range irregularPlurals {
		if p[0] == w {
			return p[1]
		}
	}
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 4 && strings.HasSuffix(w, "sses"):
		return w[:n-2]
	case n > 3 && (strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "ches") ||
		strings.HasSuffix(w, "shes")):
		return w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") &&
		!strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:n-1]
	}
	return w
}

// irregularPlurals are the plurals the suffix rules of singularise get
// wrong, each with its singular (a list, not a map: a map literal is built
// at every plugin's start).
var irregularPlurals = [][2]string{
	{"aliases", "alias"},
	{"caches", "cache"},
	{"children", "child"},
	{"cookies", "cookie"},
	{"indices", "index"},
	{"movies", "movie"},
	{"people", "person"},
	{"series", "series"},
	{"species", "species"},
	{"statuses", "status"},
}

func wordSet(ws []string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

func sortedJoin(ws []string) string {
	c := append([]string(nil), ws...)
	sort.Strings(c)
	return strings.Join(c, "-")
}
