package brain

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"

	"github.com/toolhost/toolhost/plugins/notes/internal/embed"
	"github.com/toolhost/toolhost/plugins/notes/internal/index"
)

// Search by meaning: each indexed section gets a vector from the sentence
// model (plugins/notes/internal/embed), stored beside the FTS index and
// brought up to date by searches that use them; hybrid search fuses the
// keyword ranking and the vector ranking by reciprocal rank.

// vectorState is the brain's sentence model, loaded on first use.
type vectorState struct {
	once sync.Once
	emb  embed.Embedder
	err  error
	// set replaces the model (tests): loaded on first use like the real one.
	set  embed.Embedder
	sync sync.Mutex // one sync at a time in this process
	// fusion overrides the fusion settings (tests sweep them); zero
	// fields take the defaults below.
	fusion fusion
	// perSearch overrides syncPerSearch (tests); 0 takes the default.
	perSearch int
	// failMu guards the last failure of the model, for status.
	failMu   sync.Mutex
	lastFail string
}

// noteFailure keeps the model's last failure for status; nil (a search
// by meaning that worked) clears it.
func (v *vectorState) noteFailure(err error) {
	v.failMu.Lock()
	defer v.failMu.Unlock()
	v.lastFail = ""
	if err != nil {
		v.lastFail = err.Error()
	}
}

// EmbeddingStatus is status's embeddings: which model serves search by
// meaning, from where, or why none does.
type EmbeddingStatus struct {
	Available bool   `json:"available"`
	Source    string `json:"source"` // "endpoint", "bundled" or "none"
	Model     string `json:"model,omitempty"`
	URL       string `json:"url,omitempty"`
	Protocol  string `json:"protocol,omitempty"`
	Dims      int    `json:"dims,omitempty"`
	Reason    string `json:"reason,omitempty"`
	LastError string `json:"last_error,omitempty"`
}

// embeddingStatus says which model serves, loading it as a search would
// (an endpoint is not asked anything).
func (b *Brain) embeddingStatus() EmbeddingStatus {
	emb, err := b.embedder()
	b.vec.failMu.Lock()
	st := EmbeddingStatus{LastError: b.vec.lastFail}
	b.vec.failMu.Unlock()
	if err != nil {
		st.Source, st.Reason = "none", err.Error()
		return st
	}
	st.Available, st.Model, st.Dims, st.Source = true, emb.Model(), emb.Dims(), "bundled"
	if r, ok := emb.(*embed.Remote); ok {
		st.Source, st.URL, st.Protocol = "endpoint", r.URL(), r.Protocol()
	}
	return st
}

// fusion is how hybrid search merges its two rankings.
type fusion struct {
	k, depth int
	floor    float64
	// vecWeight scales the vector ranking's share against keyword's.
	vecWeight float64
}

func (f fusion) orDefaults() fusion {
	if f.k == 0 {
		f.k = fuseK
	}
	if f.depth == 0 {
		f.depth = fuseDepth
	}
	if f.floor == 0 {
		f.floor = vectorFloor
	}
	if f.vecWeight == 0 {
		f.vecWeight = vectorWeight
	}
	return f
}

// Fusion settings, chosen on the evaluation's tune questions only
// (NOTES_EVAL=sweep, eval_test.go): each ranking's top fuseDepth notes
// count 1/(fuseK+rank), the vectors' at vectorWeight of keyword's. The
// best of 320 settings (k 10, depth 50, weight 0.5) reached tune recall@5
// 0.473 / MRR 0.308 against keyword's 0.462 / 0.298; equal weights (k 60)
// fell to 0.396 / 0.271: this model's vectors help only as a tie-breaker.
// A note only the vectors found joins when its similarity is at least
// vectorFloor, so a query unlike every note adds no noise (the floor made
// no difference on the tune set).
const (
	fuseK       = 10
	fuseDepth   = 50
	vectorFloor = 0.35
	// vectorWeight is the vector ranking's weight (keyword's is 1).
	vectorWeight = 0.5
)

// syncPerSearch bounds how many sections one search embeds before it
// answers; the rest wait for later searches (the result says how many).
const syncPerSearch = 64

// embedder returns the sentence model, or why there is none: the user's
// embedding server when NOTES_EMBED_URL names one, else the bundled model.
func (b *Brain) embedder() (embed.Embedder, error) {
	b.vec.once.Do(func() {
		if b.vec.set != nil {
			b.vec.emb = b.vec.set
			return
		}
		if c, ok, err := embed.RemoteConfigFromEnv(); ok || err != nil {
			if err != nil {
				b.vec.err = err
				return
			}
			b.vec.emb, b.vec.err = embed.NewRemote(c)
			return
		}
		if os.Getenv(embed.EnvModelDir) == "off" {
			b.vec.err = errors.New(embed.EnvModelDir + "=off turns search by meaning off")
			return
		}
		dir, err := embed.Locate()
		if err != nil {
			b.vec.err = err
			return
		}
		b.vec.emb, b.vec.err = embed.LoadUSE(dir)
	})
	return b.vec.emb, b.vec.err
}

// vectorHash names a section's vector: the model and the text embedded.
func vectorHash(model, text string) string {
	h := sha256.Sum256([]byte(model + "\x00" + text))
	return hex.EncodeToString(h[:16])
}

// syncVectors gives up to max sections without a vector their vectors
// (reusing stored ones for texts seen before; max < 0 means all) and
// returns how many still wait.
func (b *Brain) syncVectors(ctx context.Context, max int) (pending int, err error) {
	emb, err := b.embedder()
	if err != nil {
		return 0, err
	}
	b.vec.sync.Lock()
	defer b.vec.sync.Unlock()
	secs, err := b.ix.PendingSections(ctx, emb.Model())
	if err != nil || len(secs) == 0 {
		return 0, err
	}
	items := make([]index.SectionVector, len(secs))
	hashes := make([]string, len(secs))
	texts := make([]string, len(secs))
	for i, s := range secs {
		texts[i] = embed.DocText(s.Title, s.Heading, s.Text)
		hashes[i] = vectorHash(emb.Model(), texts[i])
		items[i] = index.SectionVector{Section: s, Hash: hashes[i]}
	}
	have, err := b.ix.HasVectors(ctx, hashes)
	if err != nil {
		return 0, err
	}
	var todo []int
	embedded := map[string]bool{} // a text two sections share is embedded once
	for i := range items {
		if have[hashes[i]] || embedded[hashes[i]] {
			continue
		}
		if max >= 0 && len(todo) == max {
			pending++
			items[i].Hash = ""
			continue
		}
		embedded[hashes[i]] = true
		todo = append(todo, i)
	}
	// Reused vectors first, then the embedded ones in rounds of
	// putRound, each stored as it is done: a long first sync that is
	// stopped keeps what it finished.
	var reuse []index.SectionVector
	for _, it := range items {
		if it.Hash != "" && have[it.Hash] {
			reuse = append(reuse, it)
		}
	}
	if err := b.ix.PutVectors(ctx, reuse); err != nil {
		return 0, err
	}
	const putRound = 64
	for start := 0; start < len(todo); start += putRound {
		part := todo[start:min(start+putRound, len(todo))]
		batch := make([]string, len(part))
		for k, i := range part {
			batch[k] = texts[i]
		}
		vecs, err := emb.Embed(ctx, batch)
		if err != nil {
			return 0, &embedError{fmt.Errorf("notes: embed sections: %w", err)}
		}
		round := make([]index.SectionVector, 0, len(part))
		for k, i := range part {
			items[i].Vec = vecs[k]
			round = append(round, items[i])
		}
		// Sections sharing a text embedded in this round take its vector.
		for _, it := range items {
			if it.Hash != "" && it.Vec == nil && !have[it.Hash] && embeddedIn(round, it.Hash) {
				round = append(round, it)
			}
		}
		if err := b.ix.PutVectors(ctx, round); err != nil {
			return 0, err
		}
	}
	if pending == 0 {
		if err := b.ix.PruneVectors(ctx); err != nil {
			return 0, err
		}
	}
	return pending, nil
}

func embeddedIn(round []index.SectionVector, hash string) bool {
	for _, r := range round {
		if r.Vec != nil && r.Hash == hash {
			return true
		}
	}
	return false
}

// embedError is a failure of the sentence model or embedding server (not
// of the index): search answers by keyword instead and says why.
type embedError struct{ err error }

func (e *embedError) Error() string { return e.err.Error() }
func (e *embedError) Unwrap() error { return e.err }

// meaningSearch returns the hits of a semantic or hybrid search, and
// warnings about sections not yet embedded.
func (b *Brain) meaningSearch(ctx context.Context, emb embed.Embedder, a SearchArgs, f index.Filter, hybrid bool) (hits []index.Hit, mode string, terms []string, warns []Warning, err error) {
	per := syncPerSearch
	if b.vec.perSearch > 0 {
		per = b.vec.perSearch
	}
	pending, err := b.syncVectors(ctx, per)
	if err != nil {
		return nil, "", nil, nil, err
	}
	if pending > 0 {
		warns = append(warns, Warning{Code: "vectors_pending", Message: fmt.Sprintf("%d sections have no vector yet, so only their keywords can find them; each search embeds up to %d more", pending, per)})
	}
	q, err := emb.Embed(ctx, []string{a.Query})
	if err != nil {
		return nil, "", nil, nil, &embedError{fmt.Errorf("notes: embed query: %w", err)}
	}
	fu := b.vec.fusion.orDefaults()
	depth := max(fu.depth, a.Limit)
	vec, err := b.ix.VectorSearch(ctx, q[0], f, depth)
	if err != nil {
		return nil, "", nil, nil, err
	}
	var kw []index.Hit
	mode, terms = "semantic", []string{}
	if hybrid {
		if kw, mode, terms, err = b.ix.Search(ctx, a.Query, f, depth); err != nil {
			return nil, "", nil, nil, err
		}
	} else {
		fu.floor = -1 // semantic: the nearest notes, however near
	}
	hits, err = b.fuseHits(ctx, fuse(kw, vec, a.Limit, fu))
	if err != nil {
		return nil, "", nil, nil, err
	}
	if hybrid && mode == "none" && len(hits) > 0 {
		mode = "semantic" // no keyword matched; these are by meaning alone
	}
	return demoteSuperseded(hits, f.AsOf), mode, terms, warns, nil
}

// fused is one note of a fused ranking: its keyword hit, or the vector
// hit to look up.
type fused struct {
	kw    *index.Hit
	vec   index.VectorHit
	score float64
}

// fuse merges the keyword and vector rankings by reciprocal rank and
// returns the best limit notes.
func fuse(kw []index.Hit, vec []index.VectorHit, limit int, fu fusion) []fused {
	byPath := map[string]*fused{}
	var order []*fused
	for i := range kw {
		if i == fu.depth {
			break
		}
		f := &fused{kw: &kw[i], score: 1 / float64(fu.k+i+1)}
		byPath[kw[i].Path] = f
		order = append(order, f)
	}
	for i, h := range vec {
		if i == fu.depth {
			break
		}
		s := fu.vecWeight / float64(fu.k+i+1)
		if f := byPath[h.Path]; f != nil {
			f.score += s
			continue
		}
		if h.Score < fu.floor {
			continue
		}
		f := &fused{vec: h, score: s}
		byPath[h.Path] = f
		order = append(order, f)
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].score > order[j].score })
	out := make([]fused, 0, min(limit, len(order)))
	for _, f := range order {
		if len(out) == limit {
			break
		}
		out = append(out, *f)
	}
	return out
}

// fuseHits turns a fused ranking into hits; a note found by keyword keeps
// that hit's snippet.
func (b *Brain) fuseHits(ctx context.Context, fs []fused) ([]index.Hit, error) {
	out := make([]index.Hit, 0, len(fs))
	for _, f := range fs {
		var h index.Hit
		if f.kw != nil {
			h = *f.kw
		} else {
			var err error
			h, err = b.ix.Hit(ctx, f.vec)
			if errors.Is(err, index.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, err
			}
		}
		h.Score = f.score * 100
		out = append(out, h)
	}
	return out, nil
}

// demoteSuperseded puts notes another note supersedes after the current
// ones for an as-of query, as keyword search does.
func demoteSuperseded(hits []index.Hit, asOf string) []index.Hit {
	if asOf == "" {
		return hits
	}
	sort.SliceStable(hits, func(i, j int) bool {
		return len(hits[i].SupersededBy) == 0 && len(hits[j].SupersededBy) > 0
	})
	return hits
}
