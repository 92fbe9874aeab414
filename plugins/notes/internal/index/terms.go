package index

import (
	"strings"
	"unicode"

	"github.com/kljensen/snowball/english"

	"github.com/toolhost/toolhost/plugins/notes/internal/note"
)

// Terms splits a query into search terms: runs of letters, digits and
// marks, lowercased.
func Terms(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range tokens(strings.ToLower(q)) {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

// tokens splits s at everything but letters, digits and marks, as the
// index's unicode61 tokenizer does.
func tokens(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r))
	})
}

// Stem is the form a word is indexed and searched under in the stemmed
// columns: folded (lowercase, no diacritics), then the Snowball English
// stemmer's stem.
func Stem(word string) string {
	return english.Stem(note.Fold(word), true)
}

// stemText returns the stems of s's words, space-separated.
func stemText(s string) string {
	var b strings.Builder
	for _, t := range tokens(strings.ToLower(s)) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(Stem(t))
	}
	return b.String()
}

// questionWords are words of a question that say how it is asked, not what
// it is about; with the Snowball English stop words they are left out of a
// query that has other words.
var questionWords = map[string]bool{
	"want": true, "need": true, "way": true, "get": true, "make": true, "let": true, "would": true,
	"could": true, "may": true, "might": true, "must": true, "also": true, "one": true, "something": true,
	"thing": true, "things": true, "use": true, "using": true, "like": true, "e": true, "g": true, "eg": true,
	"instead": true, "rather": true, "without": true, "every": true, "whole": true, "i'm": true, "im": true, "tell": true,
}

// IsStopWord reports whether a (lowercased) query word carries no topic.
func IsStopWord(w string) bool {
	return english.IsStopWord(w) || questionWords[w]
}
