package brain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/toolhost/toolhost/plugins/notes/internal/embed"
	"github.com/toolhost/toolhost/plugins/notes/internal/index"
	"github.com/toolhost/toolhost/plugins/notes/internal/note"
)

// SearchArgs are search's args.
type SearchArgs struct {
	Query        string   `json:"query"`
	Scope        string   `json:"scope"`
	Types        []string `json:"types"`
	Limit        int      `json:"limit"`
	BudgetTokens int      `json:"budget-tokens"`
	AsOf         string   `json:"as-of"`
	Mode         string   `json:"mode"`
}

// SearchHit is one search result.
type SearchHit struct {
	NoteView
	Score       float64  `json:"score"`
	HeadingPath []string `json:"heading_path"`
}

// Related is a graph neighbour of the best hits.
type Related struct {
	Path    string   `json:"path"`
	Title   string   `json:"title"`
	Type    string   `json:"type"`
	Score   float64  `json:"score"`
	Reasons []string `json:"reasons"`
}

// SearchResult is search's answer.
type SearchResult struct {
	DataNotice    string      `json:"data_notice"`
	Query         string      `json:"query"`
	Mode          string      `json:"mode"`
	ModeRequested string      `json:"mode_requested"`
	ModeUsed      string      `json:"mode_used"`
	ModeReason    string      `json:"mode_reason"`
	Warnings      []Warning   `json:"warnings"`
	Terms         []string    `json:"terms"`
	AsOf          string      `json:"as_of"`
	Hits          []SearchHit `json:"hits"`
	Related       []Related   `json:"related"`
	Truncated     bool        `json:"truncated"`
	NextStep      string      `json:"next_step,omitempty"`
}

// Search finds notes by keyword, current at as-of.
func (b *Brain) Search(ctx context.Context, c Call, a SearchArgs) (*SearchResult, error) {
	if strings.TrimSpace(a.Query) == "" || len([]rune(a.Query)) > 4000 {
		return nil, fail(CodeInvalidArgument, "Give a query of up to 4,000 characters.", "query must be 1 to 4,000 characters")
	}
	if a.Limit == 0 {
		a.Limit = 10
	}
	if a.Limit < 1 || a.Limit > 100 {
		return nil, fail(CodeInvalidArgument, "Use a limit from 1 to 100.", "limit %d is out of range", a.Limit)
	}
	if a.AsOf == "" {
		a.AsOf = b.today()
	}
	if !note.ValidDate(a.AsOf) {
		return nil, fail(CodeInvalidArgument, "as-of is YYYY-MM-DD.", "as-of %q is not a date", a.AsOf)
	}
	if a.Scope != "" {
		if err := validateScope(a.Scope); err != nil {
			return nil, err
		}
	}
	for _, typ := range a.Types {
		if _, ok := note.Folders[typ]; !ok {
			return nil, fail(CodeInvalidArgument, "Use types from: "+strings.Join(note.Types(), ", ")+".", "type %q is not a note type", typ)
		}
	}
	if a.Mode == "" {
		a.Mode = "auto"
	}
	res := &SearchResult{DataNotice: DataNotice, Query: a.Query, ModeRequested: a.Mode, ModeUsed: "keyword",
		ModeReason: "keyword search was asked for: stemmed words and their synonyms, BM25", Warnings: []Warning{}, AsOf: a.AsOf, Related: []Related{}}
	var emb embed.Embedder
	switch a.Mode {
	case "keyword":
	case "auto", "semantic", "hybrid":
		var err error
		if emb, err = b.embedder(); err != nil {
			res.ModeReason = "search by meaning needs the sentence model, which is not available; keyword search is used: stemmed words and their synonyms, BM25"
			res.Warnings = append(res.Warnings, Warning{Code: "mode_unavailable", Message: fmt.Sprintf("%s search would use search by meaning: %v; keyword search was used", a.Mode, err)})
		} else if a.Mode == "semantic" {
			res.ModeUsed, res.ModeReason = "semantic", "search by meaning only: the sections' sentence vectors nearest the query's ("+emb.Model()+")"
		} else {
			res.ModeUsed, res.ModeReason = "hybrid", "keyword search (BM25 over stems and synonyms) and search by meaning ("+emb.Model()+"), fused by reciprocal rank"
		}
	default:
		return nil, fail(CodeInvalidArgument, "Use mode auto, keyword, semantic or hybrid.", "mode %q is not known", a.Mode)
	}
	if b.thesaurus == nil {
		res.Warnings = append(res.Warnings, Warning{Code: "thesaurus_unavailable", Message: fmt.Sprintf("synonyms are not used: %v (install Debian's wordnet-base, or set NOTES_WORDNET)", b.thesaurusErr)})
	}
	if err := b.fresh(ctx); err != nil {
		return nil, err
	}
	filter := index.Filter{Scope: a.Scope, Types: a.Types, AsOf: a.AsOf}
	var hits []index.Hit
	var mode string
	var terms []string
	var err error
	if res.ModeUsed == "keyword" {
		hits, mode, terms, err = b.ix.Search(ctx, a.Query, filter, a.Limit)
	} else {
		var warns []Warning
		hits, mode, terms, warns, err = b.meaningSearch(ctx, emb, a, filter, res.ModeUsed == "hybrid")
		res.Warnings = append(res.Warnings, warns...)
		var ee *embedError
		if errors.As(err, &ee) && ctx.Err() == nil {
			// The model or the user's embedding server failed (down, slow,
			// a wrong answer): keyword search answers, and says so.
			b.vec.noteFailure(ee)
			res.ModeUsed = "keyword"
			res.ModeReason = "search by meaning failed, so keyword search is used: stemmed words and their synonyms, BM25"
			res.Warnings = append(res.Warnings, Warning{Code: "embedding_failed", Message: fmt.Sprintf("%s search would use search by meaning (%s): %v; keyword search was used", a.Mode, emb.Model(), ee)})
			hits, mode, terms, err = b.ix.Search(ctx, a.Query, filter, a.Limit)
		} else if err == nil {
			b.vec.noteFailure(nil)
		}
	}
	if err != nil {
		return nil, fail(CodeIndexFailed, "Try again; the index is rebuilt when needed.", "%v", err)
	}
	res.Mode, res.Terms = mode, nonNil(terms)
	res.Hits = []SearchHit{}
	for _, h := range hits {
		v := b.view(h.Row, a.AsOf, "snippet", h.Snippet)
		res.Hits = append(res.Hits, SearchHit{NoteView: v, Score: round3(h.Score), HeadingPath: h.HeadingPath})
	}
	// Graph neighbours of the three best hits.
	inHits := map[string]bool{}
	for _, h := range hits {
		inHits[h.Path] = true
	}
	rel := map[string]*Related{}
	for i, h := range hits {
		if i == 3 {
			break
		}
		out, _ := b.ix.Outgoing(ctx, h.Path)
		in, _ := b.ix.Backlinks(ctx, h.Path)
		add := func(path, reason string) {
			if path == "" || inHits[path] {
				return
			}
			r, ok := rel[path]
			if !ok {
				row, err := b.ix.Get(ctx, path)
				if err != nil || row.Archived || row.Validity(a.AsOf) != note.Current {
					return
				}
				r = &Related{Path: path, Title: row.Title, Type: row.Type}
				rel[path] = r
			}
			r.Score = round3(r.Score + h.Score/2)
			r.Reasons = append(r.Reasons, reason)
		}
		for _, l := range out {
			add(l.To, fmt.Sprintf("%s links to it (%s)", h.Path, l.Type))
		}
		for _, l := range in {
			add(l.From, fmt.Sprintf("it links to %s (%s)", h.Path, l.Type))
		}
	}
	for _, r := range rel {
		res.Related = append(res.Related, *r)
	}
	sort.Slice(res.Related, func(i, j int) bool {
		if res.Related[i].Score != res.Related[j].Score {
			return res.Related[i].Score > res.Related[j].Score
		}
		return res.Related[i].Path < res.Related[j].Path
	})
	if len(res.Related) > 10 {
		res.Related = res.Related[:10]
	}
	maxBytes := c.Caller.MaxResultBytes
	if a.BudgetTokens > 0 && (maxBytes == 0 || a.BudgetTokens*4 < maxBytes) {
		maxBytes = a.BudgetTokens * 4
	}
	if maxBytes > 0 {
		for len(res.Hits) > 1 && jsonLen(res) > maxBytes {
			if len(res.Related) > 0 {
				res.Related = res.Related[:len(res.Related)-1]
			} else {
				res.Hits = res.Hits[:len(res.Hits)-1]
			}
			res.Truncated = true
		}
		// The best hit stays even when it alone is over the budget: its
		// snippet is shortened instead, so a small budget still answers.
		if len(res.Hits) == 1 && jsonLen(res) > maxBytes {
			res.Related = res.Related[:0]
			res.Truncated = true
			h := &res.Hits[0]
			full := []rune(h.Content)
			for n := len(full) / 2; n > 0 && jsonLen(res) > maxBytes; n /= 2 {
				h.Content = string(full[:n]) + "…"
			}
			if jsonLen(res) > maxBytes {
				h.Content = ""
			}
		}
	}
	switch {
	case res.Truncated:
		res.NextStep = "Results were cut to the budget; narrow with types, scope or limit, or read a hit by path."
	case mode == "or":
		res.NextStep = "No note has all the terms; these have some of them."
	case mode == "none":
		res.NextStep = "Nothing matched; try other words, a wider scope, or another as-of date."
	}
	return res, nil
}

func jsonLen(v any) int {
	raw, _ := json.Marshal(v)
	return len(raw)
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }
