package source

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // pure-Go SQLite driver, registered as "sqlite"
)

// OpenCode reads OpenCode's SQLite database
// (${USAGE_OPENCODE_DB:-${XDG_DATA_HOME:-~/.local/share}/opencode/opencode.db}):
// the message table's JSON data column of assistant messages.
type OpenCode struct{}

var _ Provider = OpenCode{}

// Name returns "opencode".
func (OpenCode) Name() string { return "opencode" }

// Discover finds the database (opencode.db, and opencode-*.db of other
// release channels) and the older JSON layout OpenCode wrote before it,
// storage/message/<sessionID>/<messageID>.json; a message in both counts
// once (one key per message id).
func (OpenCode) Discover(env Env) (Discovery, error) {
	db := env("USAGE_OPENCODE_DB")
	var data string
	if db == "" {
		data = env.Dir("XDG_DATA_HOME", ".local", "share")
		if data == "" {
			return Discovery{}, nil
		}
		data = filepath.Join(data, "opencode")
		db = filepath.Join(data, "opencode.db")
	}
	dsc := Discovery{LookedIn: []string{db}}
	if data != "" {
		dsc.LookedIn = append(dsc.LookedIn, filepath.Join(data, "storage", "message"))
	}
	if _, err := os.Stat(db); err == nil {
		dsc.Found = true
		dsc.Sources = append(dsc.Sources, Source{Path: db})
		dsc.Dirs = append(dsc.Dirs, filepath.Dir(db))
	} else if !os.IsNotExist(err) {
		dsc.Found = true
		return dsc, err
	}
	if data == "" {
		return dsc, nil
	}
	if more, _ := filepath.Glob(filepath.Join(data, "opencode-*.db")); len(more) > 0 {
		dsc.Found = true
		for _, m := range more {
			dsc.Sources = append(dsc.Sources, Source{Path: m})
		}
	}
	msgs := filepath.Join(data, "storage", "message")
	sessions, err := os.ReadDir(msgs)
	if err != nil {
		if !os.IsNotExist(err) {
			dsc.Found = true
			dsc.Problems = append(dsc.Problems, fmt.Errorf("OpenCode's storage/message could not be listed (%w): check its permissions", unwrapPath(err)))
		}
		return dsc, nil
	}
	dsc.Found = true
	dsc.Dirs = append(dsc.Dirs, msgs)
	var l listing
	for _, se := range sessions {
		if !se.IsDir() {
			continue
		}
		dir := filepath.Join(msgs, se.Name())
		files, err := os.ReadDir(dir)
		if err != nil {
			l.fail(err)
			continue
		}
		dsc.Dirs = append(dsc.Dirs, dir)
		for _, f := range files {
			if !f.IsDir() && strings.HasSuffix(f.Name(), ".json") {
				dsc.Sources = append(dsc.Sources, Source{Path: filepath.Join(dir, f.Name()), Session: se.Name()})
			}
		}
	}
	l.report(&dsc, "OpenCode's storage/message", "messages")
	return dsc, nil
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

// Parse reads every assistant message of the database (read-only), or one
// message file of the older JSON layout.
func (o OpenCode) Parse(ctx context.Context, st *FileState) error {
	if strings.HasSuffix(st.Path, ".json") {
		return o.parseFile(st)
	}
	return parseMessageDB(ctx, st, "opencode", `SELECT id, session_id, time_created, data FROM message`)
}

// parseMessageDB reads every assistant message of an OpenCode-schema
// database (OpenCode's, or a fork's such as Kilo's) read-only: query
// selects id, session_id, a creation time and the JSON data.
func parseMessageDB(ctx context.Context, st *FileState, provider, query string) error {
	rows, closeDB, err := queryDB(ctx, st, provider, query)
	if err != nil {
		return err
	}
	defer closeDB()
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
		addOpenCode(st, provider, m, id, session, created.Int64)
	}
	return rows.Err()
}

// parseFile reads one message of OpenCode's older JSON storage.
func (OpenCode) parseFile(st *FileState) error {
	b, err := readWhole(st)
	if b == nil {
		return err
	}
	st.Lines++
	var m struct {
		opencodeMessage
		ID        string `json:"id"`
		SessionID string `json:"sessionID"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		st.Skipped++
		return nil
	}
	session := m.SessionID
	if session == "" {
		session = st.Session
	}
	id := m.ID
	if id == "" {
		id = strings.TrimSuffix(filepath.Base(st.Path), ".json")
	}
	addOpenCode(st, "opencode", m.opencodeMessage, id, session, 0)
	return nil
}

// addOpenCode records an assistant message for provider; created is the
// row's time when the message has none.
func addOpenCode(st *FileState, provider string, m opencodeMessage, id, session string, created int64) {
	if m.Role != "assistant" || m.Tokens == nil {
		return
	}
	t := m.Time.Created
	if t == 0 {
		t = created
	}
	if t <= 0 {
		st.Skipped++ // no time to place it at
		return
	}
	project := m.Path.Root
	if project == "" || project == "/" {
		project = m.Path.Cwd
	}
	c := Call{Time: t, Origin: st.origin(provider, project, baseName(project), session, m.ModelID),
		Key: keyOf([]byte(provider), []byte(id))}
	c.In = tok(m.Tokens.Input)
	c.Out = tok(m.Tokens.Output + m.Tokens.Reasoning)
	c.CR = tok(m.Tokens.Cache.Read)
	c.CW5m = tok(m.Tokens.Cache.Write)
	st.add(c, nil)
}

// queryDB runs query on the SQLite database at st.Path (openDB); what
// names the database in errors. The caller closes the rows and the
// database with done.
func queryDB(ctx context.Context, st *FileState, what, query string) (rows *sql.Rows, done func(), err error) {
	db, closeDB, err := openDB(st, what)
	if err != nil {
		return nil, nil, err
	}
	rows, err = db.QueryContext(ctx, query)
	if err != nil {
		closeDB()
		return nil, nil, fmt.Errorf("query %s database: %w", what, err)
	}
	return rows, func() { rows.Close(); closeDB() }, nil
}
