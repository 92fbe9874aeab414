package index

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
)

// vectorSchema keeps the sections' embeddings beside the FTS index:
// vectors is content-addressed (the hash covers the model and the text
// embedded), so a rebuilt index or an unchanged section reuses its vector;
// chunk_vecs says which vector each indexed section has. Batch.Delete
// drops a note's chunk_vecs rows with its sections, so a reused rowid never
// inherits another section's vector.
const vectorSchema = `
CREATE TABLE IF NOT EXISTS chunk_vecs(id INTEGER PRIMARY KEY, hash TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS vectors(hash TEXT PRIMARY KEY, vec BLOB NOT NULL);
`

// vecCache holds decoded vectors by hash; entries never go stale since a
// hash names one text under one model.
type vecCache struct {
	mu sync.Mutex
	m  map[string][]float32
}

// Section is an indexed section waiting for its vector.
type Section struct {
	ID      int64
	Path    string
	Heading []string
	Title   string
	Text    string
}

// PendingSections returns the sections that have no vector yet, by rowid.
// A model other than the one the stored vectors were made with clears
// them first.
func (ix *Index) PendingSections(ctx context.Context, model string) ([]Section, error) {
	if ix.Meta(ctx, "vector_model") != model {
		tx, err := ix.db.BeginTx(ctx, nil)
		if err != nil {
			return nil, fmt.Errorf("index: reset vectors: %w", err)
		}
		defer func() { _ = tx.Rollback() }()
		for _, q := range []string{`DELETE FROM chunk_vecs`, `DELETE FROM vectors`} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return nil, fmt.Errorf("index: reset vectors: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES('vector_model', ?)`, model); err != nil {
			return nil, fmt.Errorf("index: reset vectors: %w", err)
		}
		if err := tx.Commit(); err != nil {
			return nil, fmt.Errorf("index: reset vectors: %w", err)
		}
		ix.vecs.mu.Lock()
		ix.vecs.m = nil
		ix.vecs.mu.Unlock()
	}
	return queryAll(ctx, ix.db, "pending sections", `SELECT cr.id, cr.path, cr.heading, c.title, c.body FROM chunk_rows cr
		JOIN chunks c ON c.rowid=cr.id LEFT JOIN chunk_vecs v ON v.id=cr.id WHERE v.id IS NULL ORDER BY cr.id`, nil,
		func(sc scanner) (s Section, err error) {
			var heading string
			if err := sc.Scan(&s.ID, &s.Path, &heading, &s.Title, &s.Text); err != nil {
				return s, err
			}
			if heading != "" {
				s.Heading = strings.Split(heading, "\x1f")
			}
			return s, nil
		})
}

// HasVectors returns which of hashes have a stored vector.
func (ix *Index) HasVectors(ctx context.Context, hashes []string) (map[string]bool, error) {
	have := map[string]bool{}
	for start := 0; start < len(hashes); start += 500 {
		part := hashes[start:min(start+500, len(hashes))]
		args := make([]any, len(part))
		for i, h := range part {
			args[i] = h
		}
		rows, err := ix.db.QueryContext(ctx, `SELECT hash FROM vectors WHERE hash IN (`+strings.TrimSuffix(strings.Repeat("?,", len(part)), ",")+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("index: look up vectors: %w", err)
		}
		for rows.Next() {
			var h string
			if err := rows.Scan(&h); err != nil {
				rows.Close()
				return nil, fmt.Errorf("index: look up vectors: %w", err)
			}
			have[h] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("index: look up vectors: %w", err)
		}
	}
	return have, nil
}

// SectionVector is a section's vector to store: Vec may be nil when the
// hash already has one.
type SectionVector struct {
	Section
	Hash string
	Vec  []float32
}

// PutVectors stores vectors and assigns them to their sections. A section
// whose text changed (or that went away) since PendingSections read it is
// left for the next round.
func (ix *Index) PutVectors(ctx context.Context, items []SectionVector) error {
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("index: put vectors: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	for _, it := range items {
		if it.Vec != nil {
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO vectors(hash, vec) VALUES(?, ?)`, it.Hash, encodeVec(it.Vec)); err != nil {
				return fmt.Errorf("index: put vectors: %w", err)
			}
		}
		var path, heading, title, body string
		err := tx.QueryRowContext(ctx, `SELECT cr.path, cr.heading, c.title, c.body FROM chunk_rows cr JOIN chunks c ON c.rowid=cr.id WHERE cr.id=?`, it.ID).Scan(&path, &heading, &title, &body)
		if err == sql.ErrNoRows || (err == nil && (path != it.Path || heading != strings.Join(it.Heading, "\x1f") || title != it.Title || body != it.Text)) {
			continue
		}
		if err != nil {
			return fmt.Errorf("index: put vectors: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO chunk_vecs(id, hash) VALUES(?, ?)`, it.ID, it.Hash); err != nil {
			return fmt.Errorf("index: put vectors: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("index: put vectors: %w", err)
	}
	return nil
}

// PruneVectors drops stored vectors no section uses.
func (ix *Index) PruneVectors(ctx context.Context) error {
	if _, err := ix.db.ExecContext(ctx, `DELETE FROM vectors WHERE hash NOT IN (SELECT hash FROM chunk_vecs)`); err != nil {
		return fmt.Errorf("index: prune vectors: %w", err)
	}
	return nil
}

// ImportVectors stores vectors by hash without assigning them (a cache of
// known texts' vectors: sections with those texts take them when they
// are next synced).
func (ix *Index) ImportVectors(ctx context.Context, vecs map[string][]float32) error {
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("index: import vectors: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	for h, v := range vecs {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO vectors(hash, vec) VALUES(?, ?)`, h, encodeVec(v)); err != nil {
			return fmt.Errorf("index: import vectors: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("index: import vectors: %w", err)
	}
	return nil
}

// SectionVectors returns every assigned vector by hash (for exporting a
// cache).
func (ix *Index) SectionVectors(ctx context.Context) (map[string][]float32, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT DISTINCT v.hash, v.vec FROM vectors v JOIN chunk_vecs c ON c.hash=v.hash`)
	if err != nil {
		return nil, fmt.Errorf("index: read vectors: %w", err)
	}
	defer rows.Close()
	out := map[string][]float32{}
	for rows.Next() {
		var h string
		var blob []byte
		if err := rows.Scan(&h, &blob); err != nil {
			return nil, fmt.Errorf("index: read vectors: %w", err)
		}
		out[h] = decodeVec(blob)
	}
	return out, rows.Err()
}

// VectorHit is a note ranked by meaning: its best section's cosine
// similarity to the query.
type VectorHit struct {
	Path    string
	Score   float64
	Heading []string
	section int64
}

// VectorSearch ranks the notes matching f by the best cosine similarity of
// one of their sections to q (a unit vector), best first; sections without
// a vector yet are not ranked. Hits turns the ones kept into search hits.
func (ix *Index) VectorSearch(ctx context.Context, q []float32, f Filter, limit int) ([]VectorHit, error) {
	args := []any{}
	rows, err := ix.db.QueryContext(ctx, `SELECT v.hash, cr.id, cr.path, cr.heading FROM chunk_vecs v JOIN chunk_rows cr ON cr.id=v.id
		JOIN notes n ON n.path=cr.path WHERE `+f.where(&args), args...)
	if err != nil {
		return nil, fmt.Errorf("index: vector search: %w", err)
	}
	type sec struct {
		hash, path, heading string
		id                  int64
	}
	var secs []sec
	for rows.Next() {
		var s sec
		if err := rows.Scan(&s.hash, &s.id, &s.path, &s.heading); err != nil {
			rows.Close()
			return nil, fmt.Errorf("index: vector search: %w", err)
		}
		secs = append(secs, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("index: vector search: %w", err)
	}
	hashes := make([]string, len(secs))
	for i, s := range secs {
		hashes[i] = s.hash
	}
	vecs, err := ix.loadVectors(ctx, hashes)
	if err != nil {
		return nil, err
	}
	best := map[string]*VectorHit{}
	for _, s := range secs {
		v := vecs[s.hash]
		if len(v) != len(q) {
			continue
		}
		var dot float32
		for i := range q {
			dot += q[i] * v[i]
		}
		if b := best[s.path]; b == nil || float64(dot) > b.Score {
			h := &VectorHit{Path: s.path, Score: float64(dot), section: s.id}
			if s.heading != "" {
				h.Heading = strings.Split(s.heading, "\x1f")
			}
			best[s.path] = h
		}
	}
	out := make([]VectorHit, 0, len(best))
	for _, b := range best {
		out = append(out, *b)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Path < out[j].Path
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Hit returns v as a search hit: the note's row, and its section's opening
// words as the snippet. ErrNotFound when the note went away.
func (ix *Index) Hit(ctx context.Context, v VectorHit) (Hit, error) {
	r, err := ix.Get(ctx, v.Path)
	if err != nil {
		return Hit{}, err
	}
	var body string
	if err := ix.db.QueryRowContext(ctx, `SELECT body FROM chunks WHERE rowid=?`, v.section).Scan(&body); err != nil && err != sql.ErrNoRows {
		return Hit{}, fmt.Errorf("index: vector hit: %w", err)
	}
	h := Hit{Row: r, Score: v.Score, HeadingPath: v.Heading, Snippet: opening(body, 40)}
	if h.HeadingPath == nil {
		h.HeadingPath = []string{}
	}
	return h, nil
}

// loadVectors returns the vectors of hashes, decoding each once per Index.
func (ix *Index) loadVectors(ctx context.Context, hashes []string) (map[string][]float32, error) {
	ix.vecs.mu.Lock()
	defer ix.vecs.mu.Unlock()
	if ix.vecs.m == nil {
		ix.vecs.m = map[string][]float32{}
	}
	var missing []any
	seen := map[string]bool{}
	for _, h := range hashes {
		if _, ok := ix.vecs.m[h]; !ok && !seen[h] {
			missing = append(missing, h)
			seen[h] = true
		}
	}
	for start := 0; start < len(missing); start += 500 {
		part := missing[start:min(start+500, len(missing))]
		rows, err := ix.db.QueryContext(ctx, `SELECT hash, vec FROM vectors WHERE hash IN (`+strings.TrimSuffix(strings.Repeat("?,", len(part)), ",")+`)`, part...)
		if err != nil {
			return nil, fmt.Errorf("index: load vectors: %w", err)
		}
		for rows.Next() {
			var h string
			var blob []byte
			if err := rows.Scan(&h, &blob); err != nil {
				rows.Close()
				return nil, fmt.Errorf("index: load vectors: %w", err)
			}
			ix.vecs.m[h] = decodeVec(blob)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("index: load vectors: %w", err)
		}
	}
	return ix.vecs.m, nil
}

// opening returns the first n words of s, with "…" when it cut.
func opening(s string, n int) string {
	w := strings.Fields(s)
	if len(w) <= n {
		return strings.Join(w, " ")
	}
	return strings.Join(w[:n], " ") + " …"
}

func encodeVec(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVec(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}
