package source

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // pure-Go SQLite driver, registered as "sqlite"
)

// OpenCode reads OpenCode's SQLite database
// (${USAGE_OPENCODE_DB:-${XDG_DATA_HOME:-~/.local/share}/opencode/opencode.db}):
// the message table's JSON data column of assistant messages.
type OpenCode struct{}

var _ Provider = OpenCode{}

// Name returns "opencode".
func (OpenCode) Name() string { return "opencode" }

// Discover finds the database file.
func (OpenCode) Discover(env Env) (Discovery, error) {
	db := env("USAGE_OPENCODE_DB")
	if db == "" {
		data := env("XDG_DATA_HOME")
		if data == "" {
			h := env.Home()
			if h == "" {
				return Discovery{}, nil
			}
			data = filepath.Join(h, ".local", "share")
		}
		db = filepath.Join(data, "opencode", "opencode.db")
	}
	if _, err := os.Stat(db); err != nil {
		if os.IsNotExist(err) {
			return Discovery{}, nil
		}
		return Discovery{Found: true}, err
	}
	return Discovery{Sources: []Source{{Path: db}}, Dirs: []string{filepath.Dir(db)}, Found: true}, nil
}

// opencodeMessage is the part of message.data this provider reads.
type opencodeMessage struct {
	Role       string `json:"role"`
	ModelID    string `json:"modelID"`
	ProviderID string `json:"providerID"`
	Time       struct {
		Created int64 `json:"created"`
	} `json:"time"`
	Path struct {
		Cwd  string `json:"cwd"`
		Root string `json:"root"`
	} `json:"path"`
	Tokens *struct {
		Input     int64 `json:"input"`
		Output    int64 `json:"output"`
		Reasoning int64 `json:"reasoning"`
		Cache     struct {
			Read  int64 `json:"read"`
			Write int64 `json:"write"`
		} `json:"cache"`
	} `json:"tokens"`
}

// Parse reads every assistant message of the database (read-only).
func (OpenCode) Parse(ctx context.Context, st *FileState) error {
	if fi, err := os.Stat(st.Path); err == nil {
		st.BytesRead += fi.Size()
	}
	db, err := sql.Open("sqlite", "file:"+st.Path+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		return fmt.Errorf("open database: %w", err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT id, session_id, time_created, data FROM message`)
	if err != nil {
		return fmt.Errorf("query message table: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, session, data string
		var created sql.NullInt64
		if err := rows.Scan(&id, &session, &created, &data); err != nil {
			return fmt.Errorf("read message row: %w", err)
		}
		st.Lines++
		var m opencodeMessage
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			st.Skipped++
			continue
		}
		if m.Role != "assistant" || m.Tokens == nil {
			continue
		}
		t := m.Time.Created
		if t == 0 {
			t = created.Int64
		}
		project := m.Path.Root
		if project == "" || project == "/" {
			project = m.Path.Cwd
		}
		c := Call{Time: t, Origin: st.origin("opencode", project, baseName(project), session, m.ModelID),
			Key: keyOf([]byte("opencode"), []byte(id))}
		c.In = tok(m.Tokens.Input)
		c.Out = tok(m.Tokens.Output + m.Tokens.Reasoning)
		c.CR = tok(m.Tokens.Cache.Read)
		c.CW5m = tok(m.Tokens.Cache.Write)
		st.add(c, nil)
	}
	return rows.Err()
}
