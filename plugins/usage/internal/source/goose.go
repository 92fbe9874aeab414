package source

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Goose reads Goose's session database, sessions.db: under
// $GOOSE_PATH_ROOT/data/sessions/ when that is set, else under
// ${XDG_DATA_HOME:-~/.local/share}/goose/sessions/, ~/Library/Application
// Support/goose/sessions/ and ~/.local/share/Block/goose/sessions/. Each row
// of its sessions table is a session with its model (model_config_json's
// model_name), provider_name, created_at and token counts, accumulated over
// the session (accumulated_*_tokens) or, in older rows, the last request's
// (input_tokens, output_tokens, total_tokens). The table is Goose's
// (block/goose crates/goose/src/session/session_manager.rs); the places,
// columns and rules are those ccusage 20's adapter/goose reads (its
// paths.rs, loader.rs and parser.rs with their fixtures).
type Goose struct{}

var _ Provider = Goose{}

// Name returns "goose".
func (Goose) Name() string { return "goose" }

// gooseDBs are the places sessions.db is looked for.
func gooseDBs(env Env) []string {
	const db = "sessions.db"
	if r := strings.TrimSpace(env("GOOSE_PATH_ROOT")); r != "" {
		return []string{filepath.Join(r, "data", "sessions", db)}
	}
	h := env.Home()
	if h == "" {
		return nil
	}
	return []string{
		filepath.Join(env.Dir("XDG_DATA_HOME", ".local", "share"), "goose", "sessions", db),
		filepath.Join(h, "Library", "Application Support", "goose", "sessions", db),
		filepath.Join(h, ".local", "share", "Block", "goose", "sessions", db),
	}
}

// Discover finds each sessions.db.
func (Goose) Discover(env Env) (Discovery, error) {
	var dsc Discovery
	seen := map[string]bool{}
	for _, p := range gooseDBs(env) {
		dsc.LookedIn = append(dsc.LookedIn, p)
		fi, err := os.Stat(p)
		if err != nil {
			if !os.IsNotExist(err) {
				dsc.Found = true
				dsc.Problems = append(dsc.Problems, fmt.Errorf("goose's %s could not be read (%w): check its permissions", p, unwrapPath(err)))
			}
			continue
		}
		if fi.IsDir() {
			continue
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			if seen[real] {
				continue
			}
			seen[real] = true
		}
		dsc.Found = true
		dsc.Sources = append(dsc.Sources, Source{Path: p})
		dsc.Dirs = append(dsc.Dirs, filepath.Dir(p))
	}
	return dsc, nil
}

// gooseQuery reads the columns ccusage reads, created_at as text (the
// driver would otherwise turn a TIMESTAMP column into a time).
const gooseQuery = `SELECT id, model_config_json, provider_name, CAST(created_at AS TEXT),
	total_tokens, input_tokens, output_tokens,
	accumulated_total_tokens, accumulated_input_tokens, accumulated_output_tokens
FROM sessions WHERE model_config_json IS NOT NULL AND TRIM(model_config_json) != ''`

// Parse reads every session of the database (read-only): one call a
// session at its created_at. The accumulated counts win over the last
// request's; a total above input plus output is reasoning, billed as
// output.
func (Goose) Parse(ctx context.Context, st *FileState) error {
	rows, closeDB, err := queryDB(ctx, st, "goose", gooseQuery)
	if err != nil {
		return err
	}
	defer closeDB()
	for rows.Next() {
		var id, cfg, provider, created sql.NullString
		var total, in, out, accTotal, accIn, accOut sql.NullInt64
		if err := rows.Scan(&id, &cfg, &provider, &created, &total, &in, &out, &accTotal, &accIn, &accOut); err != nil {
			return fmt.Errorf("read goose session row: %w", err)
		}
		st.Lines++
		var m struct {
			Model string `json:"model_name"`
		}
		model := ""
		if json.Unmarshal([]byte(cfg.String), &m) == nil {
			model = strings.TrimSpace(m.Model)
		}
		t, ok := gooseTime(created.String)
		if !id.Valid || model == "" || !ok {
			st.Skipped++
			continue
		}
		first := func(a, b sql.NullInt64) (int64, bool) {
			if a.Valid && a.Int64 > 0 {
				return a.Int64, true
			}
			if b.Valid && b.Int64 > 0 {
				return b.Int64, true
			}
			return 0, false
		}
		input, _ := first(accIn, in)
		output, _ := first(accOut, out)
		sum, ok := first(accTotal, total)
		if !ok {
			sum = input + output
		}
		if input == 0 && output == 0 && sum == 0 {
			continue
		}
		reasoning := max(sum-(input+output), 0)
		c := Call{Time: t.UnixMilli(), Origin: st.origin("goose", "", "", id.String, model),
			Key: keyOf([]byte("goose"), []byte(id.String)),
			In:  tok(input), Out: tok(output + reasoning)}
		st.add(c, nil)
	}
	return rows.Err()
}

// gooseTime reads created_at as Goose and ccusage write it: Unix seconds
// or milliseconds, RFC 3339, "YYYY-MM-DD HH:MM:SS" (UTC, SQLite's
// CURRENT_TIMESTAMP) or a bare date.
func gooseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n <= 0 {
			return time.Time{}, false
		}
		if n > 1_000_000_000_000 {
			return time.UnixMilli(n), true
		}
		return time.Unix(n, 0), true
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
