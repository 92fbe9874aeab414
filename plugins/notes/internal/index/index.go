// Package index is the brain's search index: one SQLite file (pure-Go
// driver, FTS5) holding what the Markdown says in a queryable form — note
// metadata, one full-text row per section, names notes answer to, links and
// facts. The Markdown stays the source of truth; the index can always be
// rebuilt from it.
package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite", with FTS5

	"github.com/toolhost/toolhost/plugins/notes/internal/markdown"
	"github.com/toolhost/toolhost/plugins/notes/internal/note"
)

// SchemaVersion changes whenever the tables change; an index of another
// version is rebuilt.
const SchemaVersion = "8"

const schema = `
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS notes(
  path TEXT PRIMARY KEY, id TEXT NOT NULL, type TEXT NOT NULL, title TEXT NOT NULL,
  scope TEXT NOT NULL, trust TEXT NOT NULL, origin TEXT NOT NULL, edited_by TEXT NOT NULL,
  valid_from TEXT NOT NULL, valid_until TEXT NOT NULL, expires_at TEXT NOT NULL,
  subject TEXT NOT NULL, predicate TEXT NOT NULL, object TEXT NOT NULL,
  approved_by TEXT NOT NULL, updated TEXT NOT NULL, confirmed TEXT NOT NULL,
  archived INTEGER NOT NULL, has_fm INTEGER NOT NULL, fm_error TEXT NOT NULL,
  lines INTEGER NOT NULL, aliases TEXT NOT NULL, supersedes TEXT NOT NULL, superseded_by TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS notes_id ON notes(id);
CREATE INDEX IF NOT EXISTS notes_type ON notes(type, scope);
CREATE INDEX IF NOT EXISTS notes_fact ON notes(subject, predicate);
CREATE TABLE IF NOT EXISTS names(name TEXT NOT NULL, path TEXT NOT NULL, kind TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS names_name ON names(name);
CREATE INDEX IF NOT EXISTS names_path ON names(path);
CREATE TABLE IF NOT EXISTS links(src TEXT NOT NULL, target TEXT NOT NULL, key TEXT NOT NULL,
  origin TEXT NOT NULL, type TEXT NOT NULL, line INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS links_src ON links(src);
CREATE INDEX IF NOT EXISTS links_key ON links(key);
CREATE TABLE IF NOT EXISTS chunk_rows(id INTEGER PRIMARY KEY, path TEXT NOT NULL, heading TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chunk_rows_path ON chunk_rows(path);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks USING fts5(path UNINDEXED, heading UNINDEXED,
  title, aliases, body, cjk, s_title, s_head, s_body, tokenize='unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_vocab USING fts5vocab(chunks, 'row');
` + vectorSchema

// Index is an open index file. It is safe for concurrent use.
type Index struct {
	db       *sql.DB
	expander Expander
	tuning   Tuning
	vecs     vecCache
}

// Open opens (creating) the index at file. An index of another schema
// version is emptied and its head cleared, so the caller rebuilds it.
func Open(ctx context.Context, file string) (*Index, error) {
	db, err := sql.Open("sqlite", "file:"+file+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=cache_size(-65536)&_pragma=temp_store(MEMORY)")
	if err != nil {
		return nil, fmt.Errorf("index: open %s: %w", file, err)
	}
	ix := &Index{db: db, tuning: DefaultTuning}
	var v string
	err = db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='schema'`).Scan(&v)
	if err != nil || v != SchemaVersion {
		for _, t := range []string{"meta", "notes", "names", "links", "chunks_vocab", "chunks", "chunk_rows", "chunk_vecs"} {
			if _, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
				db.Close()
				return nil, fmt.Errorf("index: reset %s: %w", file, err)
			}
		}
	}
	if _, err := db.ExecContext(ctx, schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("index: create schema in %s: %w", file, err)
	}
	if _, err := db.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES('schema', ?)`, SchemaVersion); err != nil {
		db.Close()
		return nil, fmt.Errorf("index: write schema version: %w", err)
	}
	return ix, nil
}

// Close closes the file.
func (ix *Index) Close() error { return ix.db.Close() }

// Meta returns a meta value, "" when unset.
func (ix *Index) Meta(ctx context.Context, key string) string {
	var v string
	_ = ix.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key=?`, key).Scan(&v)
	return v
}

// Batch is a write transaction over the index.
type Batch struct {
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
	clear bool
}

// exec runs q with a statement prepared once per batch.
func (b *Batch) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	st, ok := b.stmts[q]
	if !ok {
		var err error
		if st, err = b.tx.PrepareContext(ctx, q); err != nil {
			return nil, err
		}
		if b.stmts == nil {
			b.stmts = map[string]*sql.Stmt{}
		}
		b.stmts[q] = st
	}
	return st.ExecContext(ctx, args...)
}

// Begin starts a batch of updates.
func (ix *Index) Begin(ctx context.Context) (*Batch, error) {
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("index: begin: %w", err)
	}
	return &Batch{tx: tx}, nil
}

// Commit ends the batch.
func (b *Batch) Commit() error {
	if err := b.tx.Commit(); err != nil {
		return fmt.Errorf("index: commit: %w", err)
	}
	return nil
}

// Rollback abandons the batch.
func (b *Batch) Rollback() { _ = b.tx.Rollback() }

// SetMeta sets a meta value.
func (b *Batch) SetMeta(ctx context.Context, key, value string) error {
	_, err := b.exec(ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)`, key, value)
	if err != nil {
		return fmt.Errorf("index: set %s: %w", key, err)
	}
	return nil
}

// Clear empties every table but meta.
func (b *Batch) Clear(ctx context.Context) error {
	// Dropping is much faster than deleting every row of an FTS5 table.
	for _, t := range []string{"notes", "names", "links", "chunks_vocab", "chunks", "chunk_rows", "chunk_vecs"} {
		if _, err := b.tx.ExecContext(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			return fmt.Errorf("index: clear %s: %w", t, err)
		}
	}
	if _, err := b.tx.ExecContext(ctx, schema); err != nil {
		return fmt.Errorf("index: clear: %w", err)
	}
	b.clear = true
	return nil
}

// Delete removes path from the index.
func (b *Batch) Delete(ctx context.Context, path string) error {
	if b.clear {
		return nil // a cleared batch has nothing to delete
	}
	for _, q := range []string{
		`DELETE FROM notes WHERE path=?`, `DELETE FROM names WHERE path=?`, `DELETE FROM links WHERE src=?`,
		`DELETE FROM chunks WHERE rowid IN (SELECT id FROM chunk_rows WHERE path=?)`,
		`DELETE FROM chunk_vecs WHERE id IN (SELECT id FROM chunk_rows WHERE path=?)`, `DELETE FROM chunk_rows WHERE path=?`,
	} {
		if _, err := b.exec(ctx, q, path); err != nil {
			return fmt.Errorf("index: delete %s: %w", path, err)
		}
	}
	return nil
}

// Key is how names and link targets are compared: folded, without ".md".
func Key(s string) string {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), ".md"))
	return note.Fold(s)
}

// Put indexes n, replacing what was there for its path.
func (b *Batch) Put(ctx context.Context, n *note.Note) error {
	return b.PutPrepared(ctx, Prepare(n))
}

// Prepared is a note parsed for the index: the CPU-bound part of Put, which
// may run on other goroutines.
type Prepared struct {
	note   *note.Note
	doc    markdown.Doc
	chunks []Chunk
}

// Prepare parses n's body for PutPrepared.
func Prepare(n *note.Note) *Prepared {
	doc := markdown.Parse(n.Body)
	return &Prepared{note: n, doc: doc, chunks: Chunks(n.Body, doc)}
}

// PutPrepared indexes a prepared note, replacing what was there for its
// path.
func (b *Batch) PutPrepared(ctx context.Context, p *Prepared) error {
	n := p.note
	if err := b.Delete(ctx, n.Path); err != nil {
		return err
	}
	fm := n.FM
	js := func(v []string) string {
		if len(v) == 0 {
			return "[]"
		}
		out, _ := json.Marshal(v)
		return string(out)
	}
	archived := 0
	if note.Archived(n.Path) {
		archived = 1
	}
	hasFM := 0
	if n.HasFM {
		hasFM = 1
	}
	typ := fm.Type
	_, err := b.exec(ctx, `INSERT INTO notes VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		n.Path, fm.ID, typ, n.Title(), n.Scope(), fm.Trust, n.Origin(), fm.EditedBy,
		fm.ValidFrom, fm.ValidUntil, fm.ExpiresAt, markdown.Unwrap(fm.Subject), fm.Predicate, markdown.Unwrap(fm.Object),
		fm.ApprovedBy, fm.Updated, fm.Confirmed, archived, hasFM, n.FMError,
		strings.Count(n.Body, "\n")+1, js(fm.Aliases), js(fm.Supersedes), js(fm.SupersededBy))
	if err != nil {
		return fmt.Errorf("index: put %s: %w", n.Path, err)
	}
	names := map[string]string{}
	add := func(name, kind string) {
		if _, ok := names[name]; !ok && name != "" {
			names[name] = kind
		}
	}
	add(Key(fm.ID), "id")
	add(Key(n.Path), "path")
	add(Key(note.Stem(n.Path)), "stem")
	add(Key(n.Title()), "title")
	for _, a := range fm.Aliases {
		add(Key(a), "alias")
	}
	for name, kind := range names {
		if _, err := b.exec(ctx, `INSERT INTO names VALUES(?,?,?)`, name, n.Path, kind); err != nil {
			return fmt.Errorf("index: put name of %s: %w", n.Path, err)
		}
	}
	doc := p.doc
	link := func(target, origin, typ string, line int) error {
		target = markdown.Unwrap(target)
		if target == "" {
			return nil
		}
		_, err := b.exec(ctx, `INSERT INTO links VALUES(?,?,?,?,?,?)`, n.Path, target, Key(target), origin, typ, line)
		if err != nil {
			return fmt.Errorf("index: put link of %s: %w", n.Path, err)
		}
		return nil
	}
	for _, l := range doc.Links {
		if err := link(l.Target, "body", "wikilink", l.Line); err != nil {
			return err
		}
	}
	for typ, targets := range fm.Relations {
		for _, t := range targets {
			if err := link(t, "frontmatter", typ, 0); err != nil {
				return err
			}
		}
	}
	for _, t := range fm.Sources {
		if err := link(t, "frontmatter", "source", 0); err != nil {
			return err
		}
	}
	for _, t := range fm.Supersedes {
		if err := link(t, "frontmatter", "supersedes", 0); err != nil {
			return err
		}
	}
	for _, t := range fm.SupersededBy {
		if err := link(t, "frontmatter", "superseded_by", 0); err != nil {
			return err
		}
	}
	if fm.Type == "fact" {
		for _, t := range []string{fm.Subject, fm.Object} {
			if strings.HasPrefix(strings.TrimSpace(t), "[[") || t == fm.Subject {
				if err := link(t, "frontmatter", "fact", 0); err != nil {
					return err
				}
			}
		}
	}
	aliases := strings.Join(fm.Aliases, " ")
	sTitle := stemText(n.Title() + " " + aliases)
	for _, c := range p.chunks {
		res, err := b.exec(ctx, `INSERT INTO chunks(path, heading, title, aliases, body, cjk, s_title, s_head, s_body) VALUES(?,?,?,?,?,?,?,?,?)`,
			n.Path, strings.Join(c.HeadingPath, "\x1f"), n.Title(), aliases, c.Text, cjkSpaced(n.Title()+" "+aliases+" "+c.Text),
			sTitle, stemText(strings.Join(c.HeadingPath, " ")), stemText(c.Text))
		if err != nil {
			return fmt.Errorf("index: put text of %s: %w", n.Path, err)
		}
		id, err := res.LastInsertId()
		if err != nil {
			return fmt.Errorf("index: put text of %s: %w", n.Path, err)
		}
		if _, err := b.exec(ctx, `INSERT INTO chunk_rows(id, path, heading) VALUES(?,?,?)`, id, n.Path, strings.Join(c.HeadingPath, "\x1f")); err != nil {
			return fmt.Errorf("index: put text of %s: %w", n.Path, err)
		}
	}
	return nil
}

// Chunk is one section of a body.
type Chunk struct {
	HeadingPath []string
	Text        string
}

// Chunks splits a body at its headings; text before the first heading is the
// first chunk. Empty chunks are dropped, but a note always has one chunk so
// its title is searchable.
func Chunks(body string, doc markdown.Doc) []Chunk {
	var out []Chunk
	start := 0
	var path []string
	for _, h := range doc.Headings {
		if t := strings.TrimSpace(body[start:h.Offset]); t != "" {
			out = append(out, Chunk{HeadingPath: path, Text: t})
		}
		start, path = h.Offset, h.Path
	}
	if t := strings.TrimSpace(body[start:]); t != "" {
		out = append(out, Chunk{HeadingPath: path, Text: t})
	}
	if len(out) == 0 {
		out = append(out, Chunk{})
	}
	return out
}

// Row is a note's metadata as indexed.
type Row struct {
	Path, ID, Type, Title, Scope, Trust, Origin, EditedBy string
	ValidFrom, ValidUntil, ExpiresAt                      string
	Subject, Predicate, Object                            string
	ApprovedBy, Updated, Confirmed                        string
	Archived, HasFM                                       bool
	FMError                                               string
	Lines                                                 int
	Aliases, Supersedes, SupersededBy                     []string
}

const rowCols = `n.path, n.id, n.type, n.title, n.scope, n.trust, n.origin, n.edited_by, n.valid_from, n.valid_until, n.expires_at,
 n.subject, n.predicate, n.object, n.approved_by, n.updated, n.confirmed, n.archived, n.has_fm, n.fm_error, n.lines, n.aliases, n.supersedes, n.superseded_by`

type scanner interface{ Scan(...any) error }

func scanRow(s scanner, extra ...any) (Row, error) {
	var r Row
	var al, sup, supBy string
	dest := []any{&r.Path, &r.ID, &r.Type, &r.Title, &r.Scope, &r.Trust, &r.Origin, &r.EditedBy, &r.ValidFrom, &r.ValidUntil, &r.ExpiresAt,
		&r.Subject, &r.Predicate, &r.Object, &r.ApprovedBy, &r.Updated, &r.Confirmed, &r.Archived, &r.HasFM, &r.FMError, &r.Lines, &al, &sup, &supBy}
	if err := s.Scan(append(dest, extra...)...); err != nil {
		return r, err
	}
	_ = json.Unmarshal([]byte(al), &r.Aliases)
	_ = json.Unmarshal([]byte(sup), &r.Supersedes)
	_ = json.Unmarshal([]byte(supBy), &r.SupersededBy)
	return r, nil
}

// Validity of the row at asOf.
func (r Row) Validity(asOf string) string {
	return note.Validity(r.ValidFrom, r.ValidUntil, r.ExpiresAt, asOf)
}

// ErrNotFound is returned when no note matches.
var ErrNotFound = errors.New("index: not found")

// Get returns the row of path.
func (ix *Index) Get(ctx context.Context, path string) (Row, error) {
	r, err := scanRow(ix.db.QueryRowContext(ctx, `SELECT `+rowCols+` FROM notes n WHERE n.path=?`, path))
	if errors.Is(err, sql.ErrNoRows) {
		return r, ErrNotFound
	}
	return r, err
}

// Resolve returns the notes answering to name (an id, a path with or
// without ".md", a file stem, a title or an alias), best kind first,
// archived ones last.
func (ix *Index) Resolve(ctx context.Context, name string) ([]Row, []string, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT `+rowCols+`, m.kind FROM names m JOIN notes n ON n.path=m.path WHERE m.name=?
		ORDER BY n.archived, CASE m.kind WHEN 'id' THEN 0 WHEN 'path' THEN 1 WHEN 'stem' THEN 2 WHEN 'title' THEN 3 ELSE 4 END, n.path`, Key(markdown.Unwrap(name)))
	if err != nil {
		return nil, nil, fmt.Errorf("index: resolve %q: %w", name, err)
	}
	defer rows.Close()
	var out []Row
	var kinds []string
	for rows.Next() {
		var kind string
		r, err := scanRow(rows, &kind)
		if err != nil {
			return nil, nil, fmt.Errorf("index: resolve %q: %w", name, err)
		}
		out = append(out, r)
		kinds = append(kinds, kind)
	}
	return out, kinds, rows.Err()
}

// Filter narrows List.
type Filter struct {
	Types     []string
	Scope     string // "" all; "global"; "project:x" (with the global ones)
	AsOf      string // when set, only notes current at this date
	Archived  bool   // include archived notes
	Subject   string
	Predicate string
	Object    string
	PathLike  string // a LIKE pattern on the path
	Limit     int
}

func (f Filter) where(args *[]any) string {
	var w []string
	if !f.Archived {
		w = append(w, "n.archived=0")
	}
	if len(f.Types) > 0 {
		w = append(w, "n.type IN ("+strings.TrimSuffix(strings.Repeat("?,", len(f.Types)), ",")+")")
		for _, t := range f.Types {
			*args = append(*args, t)
		}
	}
	switch {
	case f.Scope == "global":
		w = append(w, "n.scope='global'")
	case f.Scope != "":
		w = append(w, "n.scope IN ('global', ?)")
		*args = append(*args, f.Scope)
	}
	if f.AsOf != "" {
		w = append(w, "(n.valid_from='' OR n.valid_from<=?) AND (n.valid_until='' OR n.valid_until>?) AND (n.expires_at='' OR n.expires_at>?)")
		*args = append(*args, f.AsOf, f.AsOf, f.AsOf)
	}
	for _, c := range []struct{ col, v string }{{"subject", f.Subject}, {"predicate", f.Predicate}, {"object", f.Object}} {
		if c.v != "" {
			w = append(w, "lower(n."+c.col+")=lower(?)")
			*args = append(*args, c.v)
		}
	}
	if f.PathLike != "" {
		w = append(w, "n.path LIKE ?")
		*args = append(*args, f.PathLike)
	}
	if len(w) == 0 {
		return "1=1"
	}
	return strings.Join(w, " AND ")
}

// List returns the notes matching f, by path.
func (ix *Index) List(ctx context.Context, f Filter) ([]Row, error) {
	var args []any
	q := `SELECT ` + rowCols + ` FROM notes n WHERE ` + f.where(&args) + ` ORDER BY n.path`
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	return queryAll(ctx, ix.db, "list", q, args, func(s scanner) (Row, error) { return scanRow(s) })
}

// Catalogue lists every note not archived with only what index.md shows
// of it (path, type, title, scope), ordered by path: List's rows without
// the columns a catalogue never reads, which every write of a large brain
// pays for.
func (ix *Index) Catalogue(ctx context.Context) ([]Row, error) {
	return queryAll(ctx, ix.db, "catalogue", `SELECT path, type, title, scope FROM notes WHERE archived=0 ORDER BY path`, nil,
		func(s scanner) (r Row, err error) { return r, s.Scan(&r.Path, &r.Type, &r.Title, &r.Scope) })
}

// RareTerms returns up to n of terms, the ones in the fewest sections first;
// terms no section has are dropped. Duplicate checks search with these, so
// a long text does not match half the brain.
func (ix *Index) RareTerms(ctx context.Context, terms []string, n int) ([]string, error) {
	type tf struct {
		term string
		docs int
	}
	var found []tf
	uniq := map[string]bool{}
	var args []any
	for _, t := range terms {
		if f := note.Fold(t); !uniq[f] {
			uniq[f] = true
			args = append(args, f)
		}
	}
	if len(args) == 0 {
		return nil, nil
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT term, doc FROM chunks_vocab WHERE term IN (`+strings.TrimSuffix(strings.Repeat("?,", len(args)), ",")+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("index: term frequency: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var f tf
		if err := rows.Scan(&f.term, &f.docs); err != nil {
			return nil, fmt.Errorf("index: term frequency: %w", err)
		}
		found = append(found, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("index: term frequency: %w", err)
	}
	sort.Slice(found, func(i, j int) bool {
		if found[i].docs != found[j].docs {
			return found[i].docs < found[j].docs
		}
		return found[i].term < found[j].term
	})
	var out []string
	for _, f := range found {
		if len(out) == n {
			break
		}
		out = append(out, f.term)
	}
	return out, nil
}

// Mentions returns the notes (other than path) whose text contains name as
// a phrase, best first, at most limit.
func (ix *Index) Mentions(ctx context.Context, name, path string, limit int) ([]string, error) {
	terms := Terms(name)
	if len(terms) == 0 {
		return nil, nil
	}
	phrase := `"` + strings.ReplaceAll(strings.Join(terms, " "), `"`, `""`) + `"`
	rows, err := ix.db.QueryContext(ctx, `SELECT cr.path FROM chunks JOIN chunk_rows cr ON cr.id=chunks.rowid
		WHERE chunks MATCH ? AND cr.path<>? ORDER BY bm25(chunks) LIMIT ?`, "body : "+phrase, path, limit*3)
	if err != nil {
		return nil, fmt.Errorf("index: mentions of %q: %w", name, err)
	}
	defer rows.Close()
	var out []string
	seen := map[string]bool{}
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, fmt.Errorf("index: mentions of %q: %w", name, err)
		}
		if !seen[p] && len(out) < limit {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, rows.Err()
}

// BrokenLinks counts links (outside raw/, facts' plain values aside) whose
// target names no note.
func (ix *Index) BrokenLinks(ctx context.Context) (int, error) {
	var n int
	err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM links l WHERE l.type<>'fact' AND l.src NOT LIKE 'raw/%'
		AND NOT EXISTS (SELECT 1 FROM names m WHERE m.name=l.key)`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("index: count broken links: %w", err)
	}
	return n, nil
}

// Link is one edge.
type Link struct {
	From, Target, Origin, Type string
	Line                       int
	// To is the path the target resolves to; "" when the link is broken.
	To string
}

func (ix *Index) links(ctx context.Context, where string, args ...any) ([]Link, error) {
	return queryAll(ctx, ix.db, "links", `SELECT l.src, l.target, l.origin, l.type, l.line,
		COALESCE((SELECT m.path FROM names m JOIN notes n2 ON n2.path=m.path WHERE m.name=l.key
		  ORDER BY n2.archived, CASE m.kind WHEN 'id' THEN 0 WHEN 'path' THEN 1 WHEN 'stem' THEN 2 WHEN 'title' THEN 3 ELSE 4 END LIMIT 1), '')
		FROM links l WHERE `+where+` ORDER BY l.src, l.line, l.target`, args,
		func(s scanner) (l Link, err error) {
			return l, s.Scan(&l.From, &l.Target, &l.Origin, &l.Type, &l.Line, &l.To)
		})
}

// Outgoing returns the links from path.
func (ix *Index) Outgoing(ctx context.Context, path string) ([]Link, error) {
	return ix.links(ctx, "l.src=?", path)
}

// Backlinks returns the links whose target resolves to path.
func (ix *Index) Backlinks(ctx context.Context, path string) ([]Link, error) {
	all, err := ix.links(ctx, "l.key IN (SELECT name FROM names WHERE path=?) AND l.src<>?", path, path)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, l := range all {
		if l.To == path {
			out = append(out, l)
		}
	}
	return out, nil
}

// AllLinks returns every link (for lint and status).
func (ix *Index) AllLinks(ctx context.Context) ([]Link, error) { return ix.links(ctx, "1=1") }

// Counts summarises the index.
type Counts struct {
	Notes, Archived, Untyped, Unmanaged, Chunks, Links, Facts int
	ByType                                                    map[string]int
}

// Count returns the index's counts.
func (ix *Index) Count(ctx context.Context) (Counts, error) {
	c := Counts{ByType: map[string]int{}}
	q := func(s string, dst *int) error {
		if err := ix.db.QueryRowContext(ctx, s).Scan(dst); err != nil {
			return fmt.Errorf("index: count: %w", err)
		}
		return nil
	}
	for s, d := range map[string]*int{
		`SELECT count(*) FROM notes WHERE archived=0`:              &c.Notes,
		`SELECT count(*) FROM notes WHERE archived=1`:              &c.Archived,
		`SELECT count(*) FROM notes WHERE archived=0 AND type=''`:  &c.Untyped,
		`SELECT count(*) FROM chunk_rows`:                          &c.Chunks,
		`SELECT count(*) FROM notes WHERE archived=0 AND has_fm=0`: &c.Unmanaged,
		`SELECT count(*) FROM links`:                               &c.Links,
		`SELECT count(*) FROM notes WHERE type='fact'`:             &c.Facts,
	} {
		if err := q(s, d); err != nil {
			return c, err
		}
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT type, count(*) FROM notes WHERE archived=0 AND type<>'' GROUP BY type`)
	if err != nil {
		return c, fmt.Errorf("index: count: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t string
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			return c, fmt.Errorf("index: count: %w", err)
		}
		c.ByType[t] = n
	}
	return c, rows.Err()
}
