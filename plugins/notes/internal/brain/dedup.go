package brain

import (
	"maps"
	"regexp"
	"strings"

	"github.com/toolhost/toolhost/plugins/notes/internal/index"
	"github.com/toolhost/toolhost/plugins/notes/internal/note"
)

// dedupThresholds are remember's duplicate rules (the reference's
// DEDUP_THRESHOLDS).
var dedupThresholds = struct {
	MinTerms        int     // below this, only identical text is equal
	Equal           float64 // Jaccard at or above: equal
	ComplementRatio float64 // the new text has all old terms and this many times as many: complements
	AmbiguousCommon int     // common terms needed to call a pair ambiguous
	Ambiguous       float64 // Jaccard at or above (with AmbiguousCommon): ambiguous
	AmbiguousInside float64 // or this share of the smaller inside the larger
}{MinTerms: 4, Equal: 0.9, ComplementRatio: 1.25, AmbiguousCommon: 4, Ambiguous: 0.5, AmbiguousInside: 0.8}

// Verdicts of comparing a new memory with an existing one.
const (
	verdictEqual      = "equal"
	verdictContained  = "contained"
	verdictComplement = "complements"
	verdictAmbiguous  = "ambiguous"
	verdictDifferent  = "different"
)

var negations = map[string]bool{
	"not": true, "never": true, "without": true, "nor": true, "none": true, "nothing": true, "cannot": true, "neither": true, "nobody": true,
	"nao": true, "nunca": true, "sem": true, "jamais": true, "nem": true, "nenhum": true, "nenhuma": true, "ninguem": true, "nada": true,
	"ne": true, "pas": true, "sans": true, "nicht": true, "kein": true, "keine": true, "nie": true, "ohne": true, "ni": true, "sin": true,
}

var contraction = regexp.MustCompile(`(?i)\b\w+n['’]t\b`)

type termSet struct {
	terms map[string]bool
	nums  map[string]bool
	neg   bool
	norm  string
}

func analyse(text string) termSet {
	folded := note.Fold(text)
	ts := termSet{terms: map[string]bool{}, nums: map[string]bool{}, norm: strings.Join(strings.Fields(folded), " ")}
	ts.neg = contraction.MatchString(text)
	for _, t := range index.Terms(folded) {
		ts.terms[t] = true
		if strings.ContainsAny(t, "0123456789") {
			ts.nums[t] = true
		}
		if negations[t] {
			ts.neg = true
		}
	}
	return ts
}

func subset(a, b map[string]bool) bool {
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// compareMemories decides how a new text relates to an old one, with the
// Jaccard similarity of their term sets and a reason for people. A number
// or a negation on one side only never makes a pair equal or complementary.
func compareMemories(newText, oldText string) (verdict string, similarity float64, reason string) {
	a, b := analyse(newText), analyse(oldText)
	if a.norm == b.norm {
		return verdictEqual, 1, "same text"
	}
	inter := 0
	for t := range a.terms {
		if b.terms[t] {
			inter++
		}
	}
	union := len(a.terms) + len(b.terms) - inter
	if union == 0 {
		return verdictDifferent, 0, "no terms"
	}
	j := float64(inter) / float64(union)
	differs := !maps.Equal(a.nums, b.nums) || a.neg != b.neg
	small := len(a.terms) < dedupThresholds.MinTerms || len(b.terms) < dedupThresholds.MinTerms
	switch {
	case !differs && !small && j >= dedupThresholds.Equal:
		return verdictEqual, j, "nearly the same text"
	case !small && inter == len(a.terms) && subset(a.nums, b.nums) && a.neg == b.neg:
		return verdictContained, j, "everything it says is already in the existing note"
	case !differs && inter == len(b.terms) && float64(len(a.terms)) >= dedupThresholds.ComplementRatio*float64(len(b.terms)):
		return verdictComplement, j, "it has everything the existing note has, and more"
	}
	minLen := len(a.terms)
	if len(b.terms) < minLen {
		minLen = len(b.terms)
	}
	if inter >= dedupThresholds.AmbiguousCommon && (j >= dedupThresholds.Ambiguous || float64(inter) >= dedupThresholds.AmbiguousInside*float64(minLen)) {
		if differs {
			return verdictAmbiguous, j, "similar, with a different number or negation (may be a correction)"
		}
		return verdictAmbiguous, j, "similar, but the rule cannot decide"
	}
	return verdictDifferent, j, "different"
}
