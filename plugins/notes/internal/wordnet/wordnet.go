// Package wordnet reads synonyms from a WordNet 3 database as Debian's
// wordnet-base package installs it (/usr/share/wordnet): the sorted
// index.{noun,verb,adj,adv} files are searched in memory, and each synset
// is read from its data file at the byte offset the index gives, so opening
// costs one read of the index files and a lookup a few seeks.
package wordnet

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// DefaultDir is where Debian's wordnet-base puts the database.
const DefaultDir = "/usr/share/wordnet"

// poses are WordNet's parts of speech by file suffix.
var poses = []string{"noun", "verb", "adj", "adv"}

// WordNet is an open database. It is safe for concurrent use.
type WordNet struct {
	index map[string]*indexFile
	data  map[string]*os.File
	mu    sync.Mutex
	cache map[string][]string
}

type indexFile struct {
	raw   []byte
	lines []int // start offset of each lemma line, in file order (sorted)
}

// Open opens the database in dir.
func Open(dir string) (*WordNet, error) {
	wn := &WordNet{index: map[string]*indexFile{}, data: map[string]*os.File{}, cache: map[string][]string{}}
	for _, pos := range poses {
		raw, err := os.ReadFile(filepath.Join(dir, "index."+pos))
		if err != nil {
			wn.Close()
			return nil, fmt.Errorf("wordnet: open %s: %w", dir, err)
		}
		ix := &indexFile{raw: raw}
		for off := 0; off < len(raw); {
			end := bytes.IndexByte(raw[off:], '\n')
			if end < 0 {
				end = len(raw) - off
			}
			if raw[off] != ' ' { // the licence header lines start with spaces
				ix.lines = append(ix.lines, off)
			}
			off += end + 1
		}
		wn.index[pos] = ix
		f, err := os.Open(filepath.Join(dir, "data."+pos))
		if err != nil {
			wn.Close()
			return nil, fmt.Errorf("wordnet: open %s: %w", dir, err)
		}
		wn.data[pos] = f
	}
	return wn, nil
}

// Close closes the data files.
func (wn *WordNet) Close() error {
	var errs []error
	for _, f := range wn.data {
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}

// lookup returns the synset offsets of lemma in the index of pos, most
// frequent sense first.
func (ix *indexFile) lookup(lemma string) []int64 {
	key := []byte(lemma + " ")
	i := sort.Search(len(ix.lines), func(i int) bool {
		line := ix.raw[ix.lines[i]:]
		return bytes.Compare(line[:min(len(line), len(key))], key) >= 0
	})
	if i == len(ix.lines) || !bytes.HasPrefix(ix.raw[ix.lines[i]:], key) {
		return nil
	}
	line := ix.raw[ix.lines[i]:]
	if end := bytes.IndexByte(line, '\n'); end >= 0 {
		line = line[:end]
	}
	f := strings.Fields(string(line))
	// lemma pos synset_cnt p_cnt [ptr...] sense_cnt tagsense_cnt offsets...
	if len(f) < 4 {
		return nil
	}
	n, _ := strconv.Atoi(f[2])
	p, _ := strconv.Atoi(f[3])
	start := 4 + p + 2
	var out []int64
	for k := start; k < len(f) && len(out) < n; k++ {
		if off, err := strconv.ParseInt(f[k], 10, 64); err == nil {
			out = append(out, off)
		}
	}
	return out
}

// synset returns the single-word lemmas of the synset at off in pos's data
// file.
func (wn *WordNet) synset(pos string, off int64) []string {
	buf := make([]byte, 4096)
	n, err := wn.data[pos].ReadAt(buf, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil
	}
	line := buf[:n]
	if end := bytes.IndexByte(line, '\n'); end >= 0 {
		line = line[:end]
	}
	f := strings.Fields(string(line))
	// offset lex_filenum ss_type w_cnt(hex) [word lex_id]...
	if len(f) < 4 {
		return nil
	}
	cnt, err := strconv.ParseInt(f[3], 16, 32)
	if err != nil {
		return nil
	}
	var out []string
	for k := 0; k < int(cnt) && 4+2*k < len(f); k++ {
		w := strings.ToLower(f[4+2*k])
		if i := strings.IndexByte(w, '('); i > 0 { // adjective markers: "(a)", "(p)"
			w = w[:i]
		}
		if !strings.ContainsAny(w, "_-.'") {
			out = append(out, w)
		}
	}
	return out
}

// morph returns the base forms word may be an inflection of in pos
// (WordNet's detachment rules), word itself first.
func morph(word, pos string) []string {
	out := []string{word}
	rules := map[string][][2]string{
		"noun": {{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}},
		"verb": {{"s", ""}, {"ies", "y"}, {"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""}},
		"adj":  {{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"}},
	}[pos]
	for _, r := range rules {
		if base, ok := strings.CutSuffix(word, r[0]); ok && len(base) > 1 {
			out = append(out, base+r[1])
		}
	}
	return out
}

// Synonyms returns the single-word lemmas sharing one of the first senses
// senses of word (any part of speech, inflections resolved), word and its
// base forms left out.
func (wn *WordNet) Synonyms(word string, senses int) []string {
	word = strings.ToLower(word)
	key := word + "\x00" + strconv.Itoa(senses)
	wn.mu.Lock()
	if v, ok := wn.cache[key]; ok {
		wn.mu.Unlock()
		return v
	}
	wn.mu.Unlock()
	self := map[string]bool{word: true}
	var out []string
	seen := map[string]bool{}
	for _, pos := range poses {
		for _, lemma := range morph(word, pos) {
			offs := wn.index[pos].lookup(lemma)
			if len(offs) == 0 {
				continue
			}
			self[lemma] = true
			for i, off := range offs {
				if i == senses {
					break
				}
				for _, w := range wn.synset(pos, off) {
					if !seen[w] {
						seen[w] = true
						out = append(out, w)
					}
				}
			}
			break
		}
	}
	res := out[:0]
	for _, w := range out {
		if !self[w] {
			res = append(res, w)
		}
	}
	wn.mu.Lock()
	wn.cache[key] = res
	wn.mu.Unlock()
	return res
}
