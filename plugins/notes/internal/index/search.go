package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"
)

// Hit is one search result: a note and its best-matching section.
type Hit struct {
	Row
	Score       float64
	HeadingPath []string
	Snippet     string
}

// Expander gives the words a query word may be meant by (a thesaurus).
type Expander interface {
	Synonyms(word string, senses int) []string
}

// SetExpander sets the thesaurus queries are widened with; nil (the
// default) widens with the brain's own terms only.
func (ix *Index) SetExpander(e Expander) { ix.expander = e }

// Tuning is the part of keyword ranking an evaluation turns off one piece
// at a time to measure what each gives (SetTuning); DefaultTuning is what
// ships.
type Tuning struct {
	// Fields weighs a match in the title (with aliases), the heading path
	// and the body.
	Fields [3]float64
	// Feedback is how many pseudo-relevance feedback words join a query
	// (0: none).
	Feedback int
	// FeedbackMinDocs is how many of the feedback notes a feedback word
	// must be in (1: any).
	FeedbackMinDocs int
	// FeedbackGate skips feedback when the first ranking's best section
	// already has this share of the query's weight (0: never skipped).
	FeedbackGate float64
	// FeedbackWeight is what a feedback word's match is worth against a
	// query word's.
	FeedbackWeight float64
	// Plain ranks as before any tuning: FTS5's own BM25 over the words as
	// written, every word, else any (the evaluation's baseline).
	Plain bool
}

// DefaultTuning is the ranking every index starts with.
var DefaultTuning = Tuning{Fields: [3]float64{weightTitle, weightHeading, weightBody}, Feedback: feedbackTerms, FeedbackMinDocs: 1, FeedbackWeight: feedbackWeight}

// SetTuning replaces the ranking's tuning (the evaluation's ablations).
func (ix *Index) SetTuning(t Tuning) { ix.tuning = t }

// Ranking weights: the stemmed columns' weights (title with aliases,
// heading path, body), BM25's k1 and b, what a synonym's match is worth
// against the word's own.
const (
	weightTitle   = 3.0
	weightHeading = 2.0
	weightBody    = 1.0
	bm25K1        = 1.2
	bm25B         = 0.75
	weightSynonym = 0.35
	synonymSenses = 2
	candidates    = 300
	shortQuery    = 3
	// Pseudo-relevance feedback: the feedbackTerms words that weigh most
	// in the feedbackDocs best notes of a first ranking join the query,
	// each worth feedbackWeight of a query word.
	feedbackDocs   = 5
	feedbackTerms  = 5
	feedbackWeight = 0.3
)

// group is one word of the query: its own stem and the stems it may be
// meant by, each with what a match is worth.
type group struct {
	word  string
	own   string // the word's own stem
	stems map[string]float64
	extra bool // a word the query did not have (feedback), not counted for relaxation
}

// isCJK reports whether r is written without spaces between words (Han,
// kana, Hangul); the unicode61 tokenizer would keep a whole run as one
// token, so such text is also indexed one character per token.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// cjkBreak separates runs of CJK text in the cjk column, so a phrase never
// matches across two runs.
const cjkBreak = " zzcjkbreak "

// cjkSpaced returns the CJK characters of s one per token, runs separated;
// it is "" for text without any.
func cjkSpaced(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		if isCJK(r) {
			b.WriteRune(r)
			b.WriteByte(' ')
			in = true
		} else if in {
			b.WriteString(cjkBreak)
			in = false
		}
	}
	return b.String()
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// rawColumns are the unstemmed columns, which exact-word searches (dedup,
// CJK) match.
const rawColumns = "{title aliases body cjk}"

func ftsQuery(terms []string, op string) string {
	q := make([]string, len(terms))
	for i, t := range terms {
		spaced := strings.TrimSpace(strings.ReplaceAll(cjkSpaced(t), cjkBreak, " "))
		if spaced == "" {
			q[i] = quote(t)
			continue
		}
		// A CJK term is a phrase of its characters in the cjk column; any
		// other letters in it are a term of their own.
		parts := []string{"cjk : " + quote(spaced)}
		for _, other := range strings.FieldsFunc(t, isCJK) {
			parts = append(parts, quote(other))
		}
		q[i] = "(" + strings.Join(parts, " AND ") + ")"
	}
	return rawColumns + " : (" + strings.Join(q, " "+op+" ") + ")"
}

// Search ranks the notes for a query by BM25 over stemmed words (title and
// aliases, headings and body weighted 3, 2, 1), each word widened with its
// synonyms; among the candidates, the notes having every word come first,
// then those having most of them, then any. mode says which of those the
// best hit is: "and", "most" or "or" ("none" when nothing matched). A query
// with CJK text is matched word for word (all terms, then any).
func (ix *Index) Search(ctx context.Context, query string, f Filter, limit int) (hits []Hit, mode string, terms []string, err error) {
	terms = Terms(query)
	if len(terms) == 0 {
		return nil, "none", terms, nil
	}
	if limit <= 0 {
		limit = 10
	}
	if strings.IndexFunc(query, isCJK) >= 0 || ix.tuning.Plain {
		return ix.searchExact(ctx, terms, f, limit)
	}
	groups := ix.groups(terms)
	return ix.searchStemmed(ctx, groups, f, limit, terms)
}

// groups turns query words into groups: stop words left out (unless the
// query has nothing else), each word with its synonyms.
func (ix *Index) groups(terms []string) []group {
	var content []string
	for _, t := range terms {
		if !IsStopWord(t) {
			content = append(content, t)
		}
	}
	if len(content) == 0 {
		content = terms
	}
	var out []group
	seen := map[string]bool{}
	for _, t := range content {
		st := Stem(t)
		if seen[st] {
			continue
		}
		seen[st] = true
		g := group{word: t, own: st, stems: map[string]float64{st: 1}}
		out = append(out, g)
	}
	if ix.expander != nil {
		for _, g := range out {
			for _, syn := range ix.expander.Synonyms(g.word, synonymSenses) {
				st := Stem(syn)
				if _, ok := g.stems[st]; !ok && !seen[st] && !IsStopWord(syn) {
					g.stems[st] = weightSynonym
				}
			}
		}
	}
	return out
}

// candidate is one section found by the candidate query.
type candidate struct {
	id                int64
	path, heading     string
	title, head, body []string
	superseded        bool // the note names a note that supersedes it
	score             float64
	matched           int
	coverage          float64
}

// ranking is one ranking of candidates for a set of groups.
type ranking struct {
	total float64            // sections in the index
	df    map[string]float64 // sections having each stem
	cands []*candidate
}

func (r *ranking) idf(st string) float64 {
	n := r.df[st]
	return math.Log(1 + (r.total-n+0.5)/(n+0.5))
}

// rank finds the candidate sections for groups (FTS5's BM25 over the
// stemmed columns, filtered as asked) and scores them: per group the best
// of its stems by BM25 with field weights, summed.
func (ix *Index) rank(ctx context.Context, tx *sql.Tx, groups []group, f Filter, known *ranking) (*ranking, error) {
	var stems []string
	for _, g := range groups {
		for st := range g.stems {
			stems = append(stems, st)
		}
	}
	sort.Strings(stems)
	r := &ranking{df: map[string]float64{}}
	if known != nil {
		r.total = known.total
		for k, v := range known.df {
			r.df[k] = v
		}
	} else if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM chunk_rows`).Scan(&r.total); err != nil {
		return nil, err
	}
	var ask []any
	for _, st := range stems {
		if _, ok := r.df[st]; !ok {
			ask = append(ask, st)
			r.df[st] = 0
		}
	}
	if len(ask) > 0 {
		rows, err := tx.QueryContext(ctx, `SELECT term, doc FROM chunks_vocab WHERE term IN (`+strings.TrimSuffix(strings.Repeat("?,", len(ask)), ",")+`)`, ask...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var term string
			var n float64
			if err := rows.Scan(&term, &n); err != nil {
				rows.Close()
				return nil, err
			}
			r.df[term] = n
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	quoted := make([]string, len(stems))
	for i, st := range stems {
		quoted[i] = quote(st)
	}
	fargs := []any{"{s_title s_head s_body} : (" + strings.Join(quoted, " OR ") + ")"}
	q := `SELECT cr.id, cr.path, cr.heading, chunks.s_title, chunks.s_head, chunks.s_body, n.superseded_by<>'[]'
		FROM chunks JOIN chunk_rows cr ON cr.id=chunks.rowid JOIN notes n ON n.path=cr.path
		WHERE chunks MATCH ? AND ` + f.where(&fargs) + ` ORDER BY bm25(chunks, 0, 0, 0, 0, 0, 0, ?, ?, ?) LIMIT ?`
	fargs = append(fargs, ix.tuning.Fields[0], ix.tuning.Fields[1], ix.tuning.Fields[2], candidates)
	rows, err := tx.QueryContext(ctx, q, fargs...)
	if err != nil {
		return nil, err
	}
	var lenSum float64
	for rows.Next() {
		c := &candidate{}
		var st, sh, sb string
		if err := rows.Scan(&c.id, &c.path, &c.heading, &st, &sh, &sb, &c.superseded); err != nil {
			rows.Close()
			return nil, err
		}
		c.title, c.head, c.body = strings.Fields(st), strings.Fields(sh), strings.Fields(sb)
		lenSum += float64(len(c.body))
		r.cands = append(r.cands, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(r.cands) == 0 {
		return r, nil
	}
	avg := lenSum / float64(len(r.cands))
	var idfAll float64
	for _, g := range groups {
		if !g.extra {
			idfAll += r.idf(g.own)
		}
	}
	for _, c := range r.cands {
		counts := map[string]float64{}
		for _, t := range c.title {
			counts[t] += ix.tuning.Fields[0]
		}
		for _, t := range c.head {
			counts[t] += ix.tuning.Fields[1]
		}
		for _, t := range c.body {
			counts[t] += ix.tuning.Fields[2]
		}
		norm := bm25K1 * (1 - bm25B + bm25B*float64(len(c.body))/math.Max(avg, 1))
		var covered float64
		for _, g := range groups {
			best := 0.0
			for st, w := range g.stems {
				tf := counts[st]
				if tf == 0 {
					continue
				}
				if s := w * r.idf(st) * tf * (bm25K1 + 1) / (tf + norm); s > best {
					best = s
				}
			}
			if best > 0 && !g.extra {
				c.matched++
				covered += r.idf(g.own)
			}
			c.score += best
		}
		if idfAll > 0 {
			c.coverage = covered / idfAll
		}
	}
	sort.SliceStable(r.cands, func(i, j int) bool {
		if r.cands[i].score != r.cands[j].score {
			return r.cands[i].score > r.cands[j].score
		}
		return r.cands[i].id < r.cands[j].id
	})
	return r, nil
}

// feedback returns the words the best sections of a first ranking share
// (pseudo-relevance feedback): each stem's weight in those sections, by its
// frequency there and its rarity in the brain, the query's own stems and
// stop words left out.
func feedback(r *ranking, groups []group, tu Tuning) []group {
	in := map[string]bool{}
	for _, g := range groups {
		for st := range g.stems {
			in[st] = true
		}
	}
	weight := map[string]float64{}
	docs := map[string]int{}
	seen := map[string]bool{}
	top := 0
	for _, c := range r.cands {
		if top == feedbackDocs {
			break
		}
		if seen[c.path] {
			continue
		}
		seen[c.path] = true
		top++
		words := append(append(append([]string(nil), c.title...), c.head...), c.body...)
		if len(words) == 0 {
			continue
		}
		tf := map[string]float64{}
		for _, w := range words {
			tf[w]++
		}
		for w, n := range tf {
			if in[w] || len(w) < 3 || IsStopWord(w) || strings.IndexFunc(w, unicode.IsLetter) < 0 {
				continue
			}
			weight[w] += n / float64(len(words)) * c.score
			docs[w]++
		}
	}
	type tw struct {
		stem string
		w    float64
	}
	var all []tw
	for st, w := range weight {
		if docs[st] >= tu.FeedbackMinDocs {
			all = append(all, tw{st, w})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].w != all[j].w {
			return all[i].w > all[j].w
		}
		return all[i].stem < all[j].stem
	})
	var out []group
	for i := 0; i < len(all) && i < tu.Feedback; i++ {
		out = append(out, group{own: all[i].stem, stems: map[string]float64{all[i].stem: tu.FeedbackWeight}, extra: true})
	}
	return out
}

func (ix *Index) searchStemmed(ctx context.Context, groups []group, f Filter, limit int, terms []string) ([]Hit, string, []string, error) {
	tx, err := ix.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, "", terms, fmt.Errorf("index: search: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	r, err := ix.rank(ctx, tx, groups, f, nil)
	if err != nil {
		return nil, "", terms, fmt.Errorf("index: search: %w", err)
	}
	if len(r.cands) == 0 {
		return nil, "none", terms, nil
	}
	if ix.tuning.Feedback > 0 && (ix.tuning.FeedbackGate == 0 || firstCoverage(r, len(groups)) < ix.tuning.FeedbackGate) {
		if r, err = ix.rank(ctx, tx, append(groups, feedback(r, groups, ix.tuning)...), f, r); err != nil {
			return nil, "", terms, fmt.Errorf("index: search: %w", err)
		}
	}
	// Only sections having a word of the query (or its synonym) are hits;
	// the feedback words reorder, never add.
	var cands []*candidate
	for _, c := range r.cands {
		if c.matched > 0 {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return nil, "none", terms, nil
	}
	n := len(groups)
	sort.SliceStable(cands, func(i, j int) bool {
		// A note superseded by another never outranks a current one at a
		// date (its successor, or anything else); it stays findable.
		if f.AsOf != "" && cands[i].superseded != cands[j].superseded {
			return !cands[i].superseded
		}
		return level(cands[i], n) < level(cands[j], n)
	})
	best := level(cands[0], n)
	mode := [...]string{"and", "most", "or"}[tier(cands[0], n)]
	if n <= shortQuery {
		// A short query keeps precision: the hits of its best level only.
		kept := cands[:0]
		for _, c := range cands {
			if level(c, n) == best || (f.AsOf != "" && c.superseded) && level(c, n) <= best {
				kept = append(kept, c)
			}
		}
		cands = kept
	}
	// One hit per note: its best section.
	var keep []*candidate
	seen := map[string]bool{}
	for _, c := range cands {
		if seen[c.path] || len(keep) == limit {
			continue
		}
		seen[c.path] = true
		keep = append(keep, c)
	}
	var stems []string
	for _, g := range groups {
		for st := range g.stems {
			stems = append(stems, st)
		}
	}
	sort.Strings(stems)
	hits := make([]Hit, len(keep))
	snip := snippetQuery(terms, stems)
	for i, c := range keep {
		row, err := scanRow(tx.QueryRowContext(ctx, `SELECT `+rowCols+` FROM notes n WHERE n.path=?`, c.path))
		if err != nil {
			return nil, "", terms, fmt.Errorf("index: search: %w", err)
		}
		hits[i] = Hit{Row: row, Score: c.score, HeadingPath: []string{}}
		if c.heading != "" {
			hits[i].HeadingPath = strings.Split(c.heading, "\x1f")
		}
		err = tx.QueryRowContext(ctx, `SELECT snippet(chunks, 4, '«', '»', '…', 40) FROM chunks WHERE chunks MATCH ? AND rowid=?`, snip, c.id).Scan(&hits[i].Snippet)
		if err == sql.ErrNoRows {
			// No word of the query is in the body as written (a stem or a
			// synonym matched): the section's start.
			err = tx.QueryRowContext(ctx, `SELECT substr(body, 1, 240) FROM chunks WHERE rowid=?`, c.id).Scan(&hits[i].Snippet)
		}
		if err != nil {
			return nil, "", terms, fmt.Errorf("index: snippet: %w", err)
		}
	}
	return hits, mode, terms, nil
}

// firstCoverage is the share of the query's weight the best section of a
// first ranking has.
func firstCoverage(r *ranking, groups int) float64 {
	if len(r.cands) == 0 {
		return 0
	}
	if c := r.cands[0]; c.matched == groups {
		return 1
	} else {
		return c.coverage
	}
}

// level is what ranks first: a short query's tier; for a longer query,
// every note having half its weight or more, then the rest (a sentence's
// every word is no better sign than most of them).
func level(c *candidate, groups int) int {
	if t := tier(c, groups); groups <= shortQuery || t == 2 {
		return t
	}
	return 0
}

// tier is a candidate's relaxation level, keeping precision: 0 has every
// word of the query, 1 most of them, 2 some. For a short query (up to
// shortQuery words, as keywords are typed) most is all but one of three;
// for a longer one (a sentence, whose words a note rarely has all of) it
// is half the query's weight (words weigh by rarity).
func tier(c *candidate, groups int) int {
	switch {
	case c.matched == groups:
		return 0
	case groups <= shortQuery && groups == 3 && c.matched == 2:
		return 1
	case groups > shortQuery && c.coverage >= 0.5:
		return 1
	}
	return 2
}

// snippetQuery matches the query's words as written, and their stems, in
// the body column, so the snippet marks them.
func snippetQuery(terms, stems []string) string {
	var q []string
	seen := map[string]bool{}
	for _, t := range append(append([]string(nil), terms...), stems...) {
		if !seen[t] {
			seen[t] = true
			q = append(q, quote(t))
		}
	}
	return "body : (" + strings.Join(q, " OR ") + ")"
}

// searchExact matches words as written: all terms first; when no note has
// them all, any term.
func (ix *Index) searchExact(ctx context.Context, terms []string, f Filter, limit int) ([]Hit, string, []string, error) {
	for _, op := range []string{"AND", "OR"} {
		if op == "OR" && len(terms) == 1 {
			break
		}
		hits, err := ix.search(ctx, ftsQuery(terms, op), f, limit)
		if err != nil {
			return nil, "", terms, err
		}
		if len(hits) > 0 {
			return hits, strings.ToLower(op), terms, nil
		}
	}
	return nil, "none", terms, nil
}

func (ix *Index) search(ctx context.Context, match string, f Filter, limit int) ([]Hit, error) {
	// Stage 1 ranks chunk ids without touching the FTS content (path and
	// heading come from chunk_rows); stage 2 makes snippets for the few
	// chunks kept.
	args := []any{match}
	q := `SELECT cr.id, cr.heading, bm25(chunks, 0, 0, 5.0, 3.0, 1.0, 1.0, 0, 0, 0) AS r, ` + rowCols + `
		FROM chunks JOIN chunk_rows cr ON cr.id=chunks.rowid JOIN notes n ON n.path=cr.path
		WHERE chunks MATCH ? AND ` + f.where(&args) + ` ORDER BY r LIMIT ?`
	args = append(args, limit*4+8)
	// Both stages read one snapshot: a writer in another process replacing
	// a note's sections between them must not leave a ranked chunk without
	// its snippet.
	tx, err := ix.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("index: search: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("index: search: %w", err)
	}
	var out []Hit
	var ids []int64
	seen := map[string]bool{}
	for rows.Next() {
		var h Hit
		var id int64
		var heading string
		var rank float64
		var r Row
		var al, sup, supBy string
		dest := []any{&id, &heading, &rank, &r.Path, &r.ID, &r.Type, &r.Title, &r.Scope, &r.Trust, &r.Origin, &r.EditedBy, &r.ValidFrom, &r.ValidUntil, &r.ExpiresAt,
			&r.Subject, &r.Predicate, &r.Object, &r.ApprovedBy, &r.Updated, &r.Confirmed, &r.Archived, &r.HasFM, &r.FMError, &r.Lines, &al, &sup, &supBy}
		if err := rows.Scan(dest...); err != nil {
			rows.Close()
			return nil, fmt.Errorf("index: search: %w", err)
		}
		if seen[r.Path] || len(out) == limit {
			continue
		}
		_ = json.Unmarshal([]byte(al), &r.Aliases)
		_ = json.Unmarshal([]byte(sup), &r.Supersedes)
		_ = json.Unmarshal([]byte(supBy), &r.SupersededBy)
		seen[r.Path] = true
		h.Row = r
		h.Score = -rank
		h.HeadingPath = []string{}
		if heading != "" {
			h.HeadingPath = strings.Split(heading, "\x1f")
		}
		out = append(out, h)
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("index: search: %w", err)
	}
	if f.AsOf != "" {
		order := make([]int, len(out))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(i, j int) bool {
			return len(out[order[i]].SupersededBy) == 0 && len(out[order[j]].SupersededBy) > 0
		})
		o2, i2 := make([]Hit, len(out)), make([]int64, len(ids))
		for k, i := range order {
			o2[k], i2[k] = out[i], ids[i]
		}
		out, ids = o2, i2
	}
	for i, id := range ids {
		err := tx.QueryRowContext(ctx, `SELECT snippet(chunks, 4, '«', '»', '…', 40) FROM chunks WHERE chunks MATCH ? AND rowid=?`, match, id).Scan(&out[i].Snippet)
		if err != nil {
			return nil, fmt.Errorf("index: snippet: %w", err)
		}
	}
	return out, nil
}

// SearchAny ranks the sections having any of terms as written (no
// all-terms pass first), for duplicate checks.
func (ix *Index) SearchAny(ctx context.Context, terms []string, f Filter, limit int) ([]Hit, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	return ix.search(ctx, ftsQuery(terms, "OR"), f, limit)
}
