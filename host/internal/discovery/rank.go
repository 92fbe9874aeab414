package discovery

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/kljensen/snowball/english"

	"github.com/toolhost/toolhost/registry"
)

// The fields an action (or skill) is indexed under. A word in the name
// says more than one in an arg's description; each field has its weight
// and its length normalisation.
const (
	fieldName     = iota // the action's name (a skill's name)
	fieldKeywords        // the manifest's keywords for the action
	fieldDesc            // the action's (or skill's) description
	fieldToolName        // the tool's (or agent's) name
	fieldToolDesc        // the tool's description
	fieldArgs            // arg names, descriptions and enum values
	numFields
)

// fieldWeight and fieldB are BM25F's per-field weight and length
// normalisation (b); k1 is its term-frequency saturation.
var (
	fieldWeight = [numFields]float64{fieldName: 3, fieldKeywords: 3, fieldDesc: 1.5, fieldToolName: 2, fieldToolDesc: 0.3, fieldArgs: 0.5}
	fieldB      = [numFields]float64{fieldName: 0.8, fieldKeywords: 0.3, fieldDesc: 0.9, fieldToolName: 0, fieldToolDesc: 0.5, fieldArgs: 0.75}
)

const k1 = 1.2

// coordBase is the share of its score a doc keeps when it matches only one
// of many query words; matching them all keeps the whole score.
const coordBase = 0.5

// nameCover is the share added to a doc's score when the query names
// every word of its name: of two actions the words match equally, the one
// whose name they spell more of (star-repository over
// list-starred-repositories for "star this repo") ranks first.
const nameCover = 0.15

// Hit is one ranked search result.
type Hit struct {
	// Kind is "tool", "agent" or "skill".
	Kind string
	// Name is the tool, agent or skill; Action is empty for a skill.
	Name, Action string
	// Description is the action's (or skill's) description.
	Description string
	// Score is the hit's BM25F score: higher is better.
	Score float64
}

// doc is one searchable thing: an action of a tool or agent, or a skill.
type doc struct {
	Hit
	length [numFields]int
}

// posting is how often one term occurs in each field of one doc.
type posting struct {
	doc int
	tf  [numFields]float32
}

// index is the search index of one registry snapshot. It is built once
// per snapshot and only read afterwards.
type index struct {
	docs     []doc
	postings map[string][]posting
	// df is each term's document frequency for its idf, counting the docs
	// that have it in their own fields: a word of a tool's description
	// is in every action of the tool and would otherwise look common.
	df     map[string]int
	avgLen [numFields]float64
}

// cached holds the index of the snapshot last searched: snapshots are
// immutable and replaced whole, so the pointer is the key.
var cached struct {
	sync.Mutex
	snap *registry.Snapshot
	idx  *index
}

// indexOf returns snap's index, building it on the first search of snap.
func indexOf(snap *registry.Snapshot) *index {
	cached.Lock()
	defer cached.Unlock()
	if cached.snap != snap || cached.idx == nil {
		cached.snap, cached.idx = snap, buildIndex(snap)
	}
	return cached.idx
}

func buildIndex(snap *registry.Snapshot) *index {
	ix := &index{postings: map[string][]posting{}, df: map[string]int{}}
	add := func(h Hit, fields [numFields][]string) {
		id := len(ix.docs)
		d := doc{Hit: h}
		counts := map[string]*posting{}
		var order []string
		for f, text := range fields {
			for _, s := range text {
				for _, term := range terms(s) {
					d.length[f]++
					p := counts[term]
					if p == nil {
						p = &posting{doc: id}
						counts[term] = p
						order = append(order, term)
					}
					p.tf[f]++
				}
			}
		}
		for _, term := range order {
			p := counts[term]
			ix.postings[term] = append(ix.postings[term], *p)
			if p.tf[fieldToolName] == 0 && p.tf[fieldToolDesc] == 0 || p.tf[fieldName]+p.tf[fieldKeywords]+p.tf[fieldDesc]+p.tf[fieldArgs] > 0 {
				ix.df[term]++
			}
		}
		ix.docs = append(ix.docs, d)
	}
	for _, t := range snap.Tools {
		m := t.Manifest
		for i := range m.Actions {
			a := &m.Actions[i]
			var args []string
			for _, arg := range a.Args {
				args = append(args, arg.Name, arg.Description)
				for _, v := range arg.Enum {
					if s, ok := v.(string); ok {
						args = append(args, s)
					}
				}
			}
			add(Hit{Kind: string(m.Kind), Name: m.Name, Action: a.Name, Description: a.Description},
				[numFields][]string{fieldName: {a.Name}, fieldKeywords: a.Keywords, fieldDesc: {a.Description}, fieldToolName: {m.Name}, fieldToolDesc: {m.Description}, fieldArgs: args})
		}
	}
	for _, sk := range snap.Skills {
		// A skill's body is indexed as an action's args are: it says in
		// more words what the skill teaches. An unreadable one is left out.
		body, _ := sk.Body()
		add(Hit{Kind: "skill", Name: sk.Name, Description: sk.Description},
			[numFields][]string{fieldName: {sk.Name}, fieldDesc: {sk.Description}, fieldArgs: {body}})
	}
	for f := range ix.avgLen {
		total := 0
		for _, d := range ix.docs {
			total += d.length[f]
		}
		if len(ix.docs) > 0 {
			ix.avgLen[f] = max(float64(total)/float64(len(ix.docs)), 1)
		}
	}
	return ix
}

// scope says which docs a search may return: a kind, one tool or agent,
// and what the caller may run.
type scope struct {
	kind  string
	name  string
	allow func(name string) bool
}

func (s scope) admits(h *Hit) bool {
	if s.kind != "" && s.kind != h.Kind {
		return false
	}
	if s.name != "" && s.name != h.Name {
		return false
	}
	return h.Kind == "skill" || s.allow == nil || s.allow(h.Name)
}

// search scores every doc in scope against query and returns the hits
// that scored, best first: all of them, or the best limit when limit > 0.
func (ix *index) search(query string, sc scope, limit int) []Hit {
	qterms := expand(queryTerms(query))
	n := float64(len(ix.docs))
	scores := make([]float64, len(ix.docs))
	// covered[d] is a bit set of the query words doc d matched (directly
	// or through a synonym): a doc that answers more of the words ranks
	// above one that answers one word very well.
	covered := make([]uint64, len(ix.docs))
	named := make([]float64, len(ix.docs)) // name words matched, synonyms at their weight
	words := 0
	for _, qt := range qterms {
		words = max(words, qt.of+1)
	}
	for _, qt := range qterms {
		posts := ix.postings[qt.stem]
		if len(posts) == 0 {
			continue
		}
		df := float64(max(ix.df[qt.stem], 1))
		idf := qt.weight * math.Log(1+(n-df+0.5)/(df+0.5))
		for _, p := range posts {
			d := &ix.docs[p.doc]
			tf := 0.0
			for f := range numFields {
				if p.tf[f] == 0 {
					continue
				}
				if f == fieldName {
					named[p.doc] += min(qt.weight, 1)
				}
				norm := 1 - fieldB[f] + fieldB[f]*float64(d.length[f])/ix.avgLen[f]
				tf += fieldWeight[f] * float64(p.tf[f]) / norm
			}
			scores[p.doc] += idf * tf / (k1 + tf)
			covered[p.doc] |= 1 << (qt.of % 64)
		}
	}
	for i := range scores {
		if scores[i] > 0 && words > 1 {
			scores[i] *= coordBase + (1-coordBase)*float64(bits.OnesCount64(covered[i]))/float64(min(words, 64))
		}
		if n := ix.docs[i].length[fieldName]; n > 0 {
			scores[i] *= 1 + nameCover*min(named[i]/float64(n), 1)
		}
	}
	type scored struct {
		doc   int
		score float64
	}
	var ranked []scored
	for i, s := range scores {
		if s > 0 && sc.admits(&ix.docs[i].Hit) {
			ranked = append(ranked, scored{i, s})
		}
	}
	slices.SortFunc(ranked, func(a, b scored) int {
		if a.score != b.score {
			return cmp.Compare(b.score, a.score)
		}
		da, db := &ix.docs[a.doc], &ix.docs[b.doc]
		return cmp.Or(cmp.Compare(da.Name, db.Name), cmp.Compare(da.Action, db.Action))
	})
	if limit > 0 && len(ranked) > limit {
		ranked = ranked[:limit]
	}
	hits := make([]Hit, len(ranked))
	for i, r := range ranked {
		hits[i] = ix.docs[r.doc].Hit
		hits[i].Score = r.score
	}
	return hits
}

// queryTerms are the stems of a query's words, stop words left out (a
// query of stop words alone has no topic, and finds nothing),
// abbreviations spelt out, each once.
func queryTerms(q string) []qterm {
	all := words(q)
	var kept []string
	for _, w := range all {
		if long, ok := abbreviations[w]; ok {
			kept = append(kept, long...)
		} else if !isStopWord(w) {
			kept = append(kept, w)
		}
	}
	seen := map[string]bool{}
	var out []qterm
	for _, w := range kept {
		if s := stem(w); !seen[s] {
			seen[s] = true
			out = append(out, qterm{stem: s, weight: 1, of: len(out)})
		}
	}
	return out
}

// terms are the stems of a text's words that are not stop words, as
// indexed.
func terms(s string) []string {
	var out []string
	for _, w := range words(s) {
		if !isStopWord(w) {
			out = append(out, stem(w))
		}
	}
	return out
}

// words splits s into lowercase words at everything but letters and
// digits, and at a lower-to-upper change inside a word (camelCase), so
// that get_file_info, get-file-info and getFileInfo give the same words.
func words(s string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	prevLower := false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && prevLower {
				flush()
			}
			b.WriteRune(unicode.ToLower(r))
			prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		case r == '\'':
			// an apostrophe stays inside a word: don't, user's
			if b.Len() > 0 {
				b.WriteRune(r)
			}
		default:
			flush()
			prevLower = false
		}
	}
	flush()
	for i, w := range out {
		out[i] = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "'")
	}
	return out
}

func stem(w string) string { return english.Stem(w, true) }

// questionWords say how something is asked, not what about; with the
// Snowball English stop words they carry no topic.
var questionWords = map[string]bool{
	"want": true, "need": true, "please": true, "can": true, "could": true, "would": true, "let": true,
	"me": true, "my": true, "i'm": true, "im": true, "i'd": true, "something": true, "thing": true,
	"things": true, "way": true, "also": true, "just": true, "e": true, "g": true, "eg": true,
}

func isStopWord(w string) bool { return english.IsStopWord(w) || questionWords[w] }
