package source

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// Hermes reads Hermes Agent's state database, ${HERMES_HOME:-~/.hermes}
// (comma list)/state.db: each row of its sessions table is a session with
// its model, started_at (Unix seconds) and token totals (input_tokens,
// output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens).
// The table is Hermes Agent's (NousResearch/hermes-agent hermes_state.py);
// the places, columns and rules are those ccusage 20's adapter/hermes reads
// (its paths.rs, loader.rs and parser.rs with their fixtures).
type Hermes struct{}

var _ Provider = Hermes{}

// Name returns "hermes".
func (Hermes) Name() string { return "hermes" }

// Discover finds each home's state.db.
func (Hermes) Discover(env Env) (Discovery, error) {
	var homes []string
	if v := env("HERMES_HOME"); v != "" {
		homes = roots(v)
	} else if h := env.Home(); h != "" {
		homes = []string{filepath.Join(h, ".hermes")}
	}
	var dsc Discovery
	for _, r := range homes {
		db := filepath.Join(r, "state.db")
		dsc.LookedIn = append(dsc.LookedIn, db)
		fi, err := os.Stat(db)
		if err != nil {
			if !os.IsNotExist(err) {
				dsc.Found = true
				dsc.Problems = append(dsc.Problems, fmt.Errorf("hermes's %s could not be read (%w): check its permissions", db, unwrapPath(err)))
			}
			continue
		}
		if fi.IsDir() {
			continue
		}
		dsc.Found = true
		dsc.Sources = append(dsc.Sources, Source{Path: db})
		dsc.Dirs = append(dsc.Dirs, r)
	}
	return dsc, nil
}

const hermesQuery = `SELECT id, model, started_at, input_tokens, output_tokens,
	cache_read_tokens, cache_write_tokens, reasoning_tokens
FROM sessions WHERE model IS NOT NULL AND TRIM(model) != ''`

// Parse reads every session of the database (read-only): one call a
// session at started_at, reasoning billed as output. A session in two
// listed databases counts once.
func (Hermes) Parse(ctx context.Context, st *FileState) error {
	rows, closeDB, err := queryDB(ctx, st, "hermes", hermesQuery)
	if err != nil {
		return err
	}
	defer closeDB()
	for rows.Next() {
		var id, model sql.NullString
		var started, in, out, cr, cw, reasoning sql.NullFloat64
		if err := rows.Scan(&id, &model, &started, &in, &out, &cr, &cw, &reasoning); err != nil {
			return fmt.Errorf("read hermes session row: %w", err)
		}
		st.Lines++
		m := strings.TrimSpace(model.String)
		if id.String == "" || m == "" || !started.Valid || math.IsInf(started.Float64, 0) || math.IsNaN(started.Float64) {
			st.Skipped++
			continue
		}
		ms := started.Float64
		if ms <= 1e12 {
			ms *= 1000
		}
		if ms <= 0 {
			st.Skipped++
			continue
		}
		n := func(v sql.NullFloat64) int64 {
			if !v.Valid || v.Float64 <= 0 || math.IsNaN(v.Float64) {
				return 0
			}
			return int64(v.Float64)
		}
		c := Call{Time: int64(ms), Origin: st.origin("hermes", "", "", id.String, m),
			Key: keyOf([]byte("hermes"), []byte(id.String)),
			In:  tok(n(in)), Out: tok(n(out) + n(reasoning)), CW5m: tok(n(cw)), CR: tok(n(cr))}
		if c.Total() == 0 {
			continue
		}
		st.add(c, nil)
	}
	return rows.Err()
}
