package embed

import (
	"strings"
	"unicode/utf16"

	"golang.org/x/text/unicode/norm"
)

// reservedPieces are the vocabulary's first entries (unknown, <s>, </s>,
// extras) that text never matches.
const reservedPieces = 6

// separator marks a word start, as SentencePiece writes it.
const separator = "\u2581"

// Tokenizer splits text into SentencePiece unigram pieces by Viterbi over
// the pieces' log-probabilities, exactly as @energetic-ai/embeddings'
// tokenizer does (ties, unknown characters and all), so the port sees the
// ids its weights were trained on.
type Tokenizer struct {
	pieces []string
	scores []float64
	// utf16Len is each piece's length in UTF-16 units: the reference
	// steps back by that when it walks the best path.
	utf16Len []int
	root     *trieNode
}

type trieNode struct {
	children map[rune]*trieNode
	end      bool
	runes    int
	score    float64
	id       int
}

// Piece is one vocabulary entry: the piece and its log-probability.
type Piece struct {
	Text  string
	Score float64
}

// newTokenizer builds the tokenizer from the vocabulary in id order.
func newTokenizer(vocab []Piece) *Tokenizer {
	t := &Tokenizer{root: &trieNode{children: map[rune]*trieNode{}}}
	for i, p := range vocab {
		t.pieces = append(t.pieces, p.Text)
		t.scores = append(t.scores, p.Score)
		t.utf16Len = append(t.utf16Len, len(utf16.Encode([]rune(p.Text))))
		if i < reservedPieces {
			continue
		}
		n := t.root
		rs := []rune(p.Text)
		for _, r := range rs {
			c := n.children[r]
			if c == nil {
				c = &trieNode{children: map[rune]*trieNode{}}
				n.children[r] = c
			}
			n = c
		}
		if len(rs) > 0 {
			n.end, n.runes, n.score, n.id = true, len(rs), p.Score, i
		}
	}
	return t
}

// Encode returns the piece ids of text: NFKC-normalised, spaces turned
// into word-start marks, best segmentation, runs of unknowns merged.
func (t *Tokenizer) Encode(text string) []int {
	s := norm.NFKC.String(text)
	if s == "" {
		return nil
	}
	syms := []rune(separator + strings.ReplaceAll(s, " ", separator))
	type edge struct {
		start, id int
		score     float64
	}
	// ends[e] holds the pieces ending at e, by start (ascending).
	ends := make([][]edge, len(syms)+1)
	for i := range syms {
		n := t.root.children[syms[i]]
		found := false
		for j := i; j < len(syms) && n != nil; j++ {
			if n.end {
				ends[i+n.runes] = append(ends[i+n.runes], edge{start: i, id: n.id, score: n.score})
				found = true
			}
			if j+1 < len(syms) {
				n = n.children[syms[j+1]]
			} else {
				n = nil
			}
		}
		if !found {
			ends[i+1] = append(ends[i+1], edge{start: i, id: 0, score: 0})
		}
	}
	best := make([]float64, len(syms)+1)
	words := make([]int, len(syms)+1)
	// Pieces were added by ascending start, the order in which the
	// reference visits them; ties go to the later start, as there.
	for e := range ends {
		for _, w := range ends[e] {
			score := w.score + best[w.start]
			if best[e] == 0 || score >= best[e] {
				best[e], words[e] = score, w.id
			}
		}
	}
	var rev []int
	for i := len(words) - 1; i > 0; i -= t.utf16Len[words[i]] {
		rev = append(rev, words[i])
	}
	ids := make([]int, 0, len(rev))
	prevUnk := false
	for _, id := range rev {
		if !(prevUnk && id == 0) {
			ids = append(ids, id)
		}
		prevUnk = id == 0
	}
	for i, j := 0, len(ids)-1; i < j; i, j = i+1, j-1 {
		ids[i], ids[j] = ids[j], ids[i]
	}
	return ids
}
