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

// ZCode reads Z.ai's ZCode CLI database, ${ZCODE_HOME:-~/.zcode}/cli/db/
// db.sqlite: each row of its model_usage table with status "completed" is
// a model request (session_id, started_at in Unix ms, model_id,
// input_tokens, which includes the cache reads and writes, output_tokens,
// and in newer databases cache_creation_input_tokens,
// cache_read_input_tokens and computed_total_tokens); the session table
// gives the request's working directory. ZCode is closed source: the place,
// tables, columns and rules are those ccusage 20.0.24's adapters/zcode
// reads (its loader names them, and its answers on such databases).
type ZCode struct{}

var _ Provider = ZCode{}

// Name returns "zcode".
func (ZCode) Name() string { return "zcode" }

// Discover finds the database.
func (ZCode) Discover(env Env) (Discovery, error) {
	home := env.Dir("ZCODE_HOME", ".zcode")
	if home == "" {
		return Discovery{}, nil
	}
	db := filepath.Join(home, "cli", "db", "db.sqlite")
	dsc := Discovery{LookedIn: []string{db}}
	fi, err := os.Stat(db)
	if err != nil {
		if !os.IsNotExist(err) {
			dsc.Found = true
			dsc.Problems = append(dsc.Problems, fmt.Errorf("zcode's %s could not be read (%w): check its permissions", db, unwrapPath(err)))
		}
		return dsc, nil
	}
	dsc.Found = true
	if !fi.Mode().IsRegular() {
		dsc.Problems = append(dsc.Problems, fmt.Errorf("zcode's %s is not a file, so ZCode's usage is not in the totals", db))
		return dsc, nil
	}
	dsc.Sources = append(dsc.Sources, Source{Path: db})
	dsc.Dirs = append(dsc.Dirs, filepath.Dir(db))
	return dsc, nil
}

// zcodeOptional are model_usage's columns older databases lack; a missing
// one reads as NULL.
var zcodeOptional = []string{"cache_creation_input_tokens", "cache_read_input_tokens", "computed_total_tokens"}

// zcodeQuery builds the query over the columns the database has.
func zcodeQuery(ctx context.Context, st *FileState) (string, error) {
	rows, closeDB, err := queryDB(ctx, st, "zcode", `SELECT name FROM pragma_table_info('model_usage')`)
	if err != nil {
		return "", err
	}
	defer closeDB()
	have := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return "", fmt.Errorf("read zcode model_usage columns: %w", err)
		}
		have[name] = true
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("read zcode model_usage columns: %w", err)
	}
	var missing []string
	for _, c := range []string{"id", "session_id", "started_at", "model_id", "status", "input_tokens", "output_tokens"} {
		if !have[c] {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("read zcode database: its model_usage table lacks %s: a ZCode version this plugin does not know wrote it", strings.Join(missing, ", "))
	}
	cols := "m.id, m.session_id, m.started_at, m.model_id, m.input_tokens, m.output_tokens"
	for _, c := range zcodeOptional {
		if have[c] {
			cols += ", m." + c
		} else {
			cols += ", NULL"
		}
	}
	return "SELECT " + cols + `, s.directory FROM model_usage m
	LEFT JOIN session s ON s.id = m.session_id WHERE m.status = 'completed'`, nil
}

// Parse reads every completed request of the database (read-only): input
// less the cache reads and writes it includes; a computed total beyond
// input and output is output; the time is started_at (Unix ms, or seconds
// when small); the project is the session's directory.
func (ZCode) Parse(ctx context.Context, st *FileState) error {
	q, err := zcodeQuery(ctx, st)
	if err != nil {
		return err
	}
	rows, closeDB, err := queryDB(ctx, st, "zcode", q)
	if err != nil {
		return err
	}
	defer closeDB()
	n := func(v sql.NullFloat64) int64 {
		if !v.Valid || v.Float64 <= 0 || math.IsNaN(v.Float64) || math.IsInf(v.Float64, 0) {
			return 0
		}
		return int64(v.Float64)
	}
	for rows.Next() {
		var id, session, model, dir sql.NullString
		var started, in, out, cw, cr, total sql.NullFloat64
		if err := rows.Scan(&id, &session, &started, &model, &in, &out, &cw, &cr, &total, &dir); err != nil {
			return fmt.Errorf("read zcode model_usage row: %w", err)
		}
		st.Lines++
		m := strings.TrimSpace(model.String)
		ms := n(started)
		if ms > 0 && ms <= 1e12 {
			ms *= 1000
		}
		if id.String == "" || m == "" || ms <= 0 {
			st.Skipped++
			continue
		}
		input, output, write, read := n(in), n(out), n(cw), n(cr)
		output += max(n(total)-input-output, 0)
		project := dir.String
		c := Call{Time: ms, Origin: st.origin("zcode", project, baseName(project), session.String, m),
			Key: keyOf([]byte("zcode"), []byte(id.String)),
			In:  tok(max(input-write-read, 0)), Out: tok(output), CW5m: tok(write), CR: tok(read)}
		if c.Total() == 0 {
			continue
		}
		st.add(c, nil)
	}
	return rows.Err()
}
