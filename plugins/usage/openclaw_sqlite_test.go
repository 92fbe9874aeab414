package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// TestOpenClawSQLiteTranscripts: an OpenClaw agent's SQLite transcript,
// agents/<agent>/agent/openclaw-agent.sqlite (its transcript_events table:
// session_id, seq, event_json, created_at, the table and columns ccusage
// 20.0.24's adapters/openclaw queries), is read as the transcript files
// are, entry by entry in seq order: the model is the message's, else the
// session's last model_change (not another session's); the time is the
// message's, else the entry's, else created_at (Unix ms); an entry id
// seen twice in a session counts once; an entry also in a transcript file
// counts once; a database without the table is named in degraded.
func TestOpenClawSQLiteTranscripts(t *testing.T) {
	root := t.TempDir()
	msg := func(id, model string, in, out int, msgMS int64, entryTS string) string {
		m, ts, ets := "", "", ""
		if model != "" {
			m = fmt.Sprintf(`"model":%q,`, model)
		}
		if msgMS != 0 {
			ts = fmt.Sprintf(`,"timestamp":%d`, msgMS)
		}
		if entryTS != "" {
			ets = fmt.Sprintf(`"timestamp":%q,`, entryTS)
		}
		return fmt.Sprintf(`{"type":"message","id":%q,%s"message":{"role":"assistant","content":[],%s"usage":{"input":%d,"output":%d,"cacheRead":0,"cacheWrite":0,"totalTokens":%d}%s}}`,
			id, ets, m, in, out, in+out, ts)
	}
	const day = int64(1781686800000) // 2026-06-17T09:00:00Z
	shared := msg("e1", "claude-sonnet-4-5", 100, 10, day, "")
	testplugin.WriteFile(t, filepath.Join(root, "agents", "main", "sessions", "s1.jsonl"), shared+"\n")
	db := filepath.Join(root, "agents", "main", "agent", "openclaw-agent.sqlite")
	writeDB(t, db,
		`CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (session_id, seq))`,
		insertEvent("s1", 0, shared, day),
		insertEvent("s1", 1, `{"type":"model_change","id":"e2","provider":"openai","modelId":"gpt-5"}`, day),
		insertEvent("s1", 2, msg("e3", "", 200, 20, 0, "2026-06-17T10:00:00Z"), day),
		insertEvent("s1", 3, msg("e3", "", 999, 99, 0, "2026-06-17T10:30:00Z"), day),
		insertEvent("s1", 4, msg("e4", "", 300, 30, 0, ""), day+3600000),
		insertEvent("s2", 0, msg("e1", "", 400, 40, day+60000, ""), day),
		insertEvent("s2", 1, `{not json`, day))
	writeDB(t, filepath.Join(root, "agents", "other", "agent", "openclaw-agent.sqlite"), `CREATE TABLE sessions (id TEXT)`)

	s := newTestService(t, map[string]string{"HOME": t.TempDir(), "OPENCLAW_DIR": root})
	got, out := byModel(t, s, "2026-06-17", nil)
	want := map[string]row{
		"claude-sonnet-4-5": {Calls: 1, InputTokens: 100, OutputTokens: 10},
		"gpt-5":             {Calls: 2, InputTokens: 500, OutputTokens: 50},
		"unknown":           {Calls: 1, InputTokens: 400, OutputTokens: 40},
	}
	for m, w := range want {
		g := got[m]
		if g.Calls != w.Calls || g.InputTokens != w.InputTokens || g.OutputTokens != w.OutputTokens {
			t.Errorf("%s: got %+v, want %+v (degraded %v)", m, g, w, out.Degraded)
		}
	}
	if len(got) != len(want) {
		t.Errorf("models %v", got)
	}
	if out.SkippedLines != 1 {
		t.Errorf("skipped_lines %d, want 1 (the entry that is not JSON)", out.SkippedLines)
	}
	named := false
	for _, d := range out.Degraded {
		named = named || (d.Provider == "openclaw" && strings.Contains(d.Reason, "transcript_events"))
	}
	if !named {
		t.Errorf("degraded %v does not name the database without transcript_events", out.Degraded)
	}
}

// writeDB creates a SQLite database at path with these statements.
func writeDB(t *testing.T, path string, stmts ...string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

// insertEvent is an INSERT of one transcript_events row.
func insertEvent(session string, seq int, event string, createdMS int64) string {
	return fmt.Sprintf(`INSERT INTO transcript_events VALUES ('%s', %d, '%s', %d)`, session, seq, strings.ReplaceAll(event, "'", "''"), createdMS)
}
