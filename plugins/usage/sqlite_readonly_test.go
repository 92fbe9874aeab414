package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// snapshotDir returns every file under dir with its bytes.
func snapshotDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// copyFiles copies the named files of from into to, as they are.
func copyFiles(t *testing.T, from, to string, names ...string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		src, err := os.Open(filepath.Join(from, n))
		if err != nil {
			t.Fatal(err)
		}
		dst, err := os.Create(filepath.Join(to, n))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(dst, src); err != nil {
			t.Fatal(err)
		}
		src.Close()
		dst.Close()
	}
}

// TestSQLiteReadOnly: a database an agent is writing in WAL mode, its last
// rows not yet checkpointed into the database file (the -wal and -shm
// beside it, as a running or crashed agent leaves them), is read whole, and
// a scan leaves the agent's files as they were: the database, -wal and
// -shm byte for byte, and no file added beside them. So does a WAL-mode
// database alone, its agent closed.
func TestSQLiteReadOnly(t *testing.T) {
	live := t.TempDir()
	db, err := sql.Open("sqlite", filepath.Join(live, "db.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	exec := func(q string) {
		t.Helper()
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	exec(`PRAGMA journal_mode = WAL`)
	exec(`PRAGMA wal_autocheckpoint = 0`)
	exec(`CREATE TABLE session (id TEXT PRIMARY KEY, directory TEXT)`)
	exec(`CREATE TABLE model_usage (id TEXT PRIMARY KEY, session_id TEXT, started_at INTEGER, model_id TEXT, provider_id TEXT, status TEXT, input_tokens INTEGER, output_tokens INTEGER)`)
	exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	const day = int64(1781654400000) // 2026-06-17T00:00:00Z in ms
	for i := range 5 {
		exec(fmt.Sprintf(`INSERT INTO model_usage VALUES ('m%d', 's1', %d, 'glm-4.6', 'zai', 'completed', 100, 10)`, i, day+int64(i)*60000))
	}
	// The agent's files as a crash (or a snapshot while it runs) leaves
	// them: the rows only in the -wal.
	home := t.TempDir()
	dir := filepath.Join(home, "cli", "db")
	copyFiles(t, live, dir, "db.sqlite", "db.sqlite-wal", "db.sqlite-shm")
	db.Close()
	if fi, err := os.Stat(filepath.Join(dir, "db.sqlite-wal")); err != nil || fi.Size() == 0 {
		t.Fatalf("the fixture has no -wal to read (%v)", err)
	}
	before := snapshotDir(t, home)

	s := newTestService(t, map[string]string{"HOME": t.TempDir(), "ZCODE_HOME": home})
	got, out := byModel(t, s, "2026-06-17", nil)
	if g := got["glm-4.6"]; g.Calls != 5 || g.InputTokens != 500 {
		t.Errorf("got %+v (degraded %v), want the 5 rows only the -wal holds", got, out.Degraded)
	}

	after := snapshotDir(t, home)
	var names []string
	for p := range after {
		names = append(names, filepath.Base(p))
	}
	sort.Strings(names)
	if len(after) != len(before) {
		t.Errorf("files after the scan %v, want only db.sqlite, -wal and -shm", names)
	}
	for p, b := range before {
		if !bytes.Equal(after[p], b) {
			t.Errorf("%s changed during the scan", filepath.Base(p))
		}
	}

	// The agent closed: its last connection checkpointed the rows and
	// removed the -wal and -shm; the database stays in WAL mode.
	closed := t.TempDir()
	copyFiles(t, live, filepath.Join(closed, "cli", "db"), "db.sqlite")
	before = snapshotDir(t, closed)
	s = newTestService(t, map[string]string{"HOME": t.TempDir(), "ZCODE_HOME": closed})
	got, out = byModel(t, s, "2026-06-17", nil)
	if g := got["glm-4.6"]; g.Calls != 5 {
		t.Errorf("closed: got %+v (degraded %v), want 5 calls", got, out.Degraded)
	}
	after = snapshotDir(t, closed)
	if len(after) != len(before) {
		t.Errorf("closed: %d files after the scan, want the database alone", len(after))
	}
	for p, b := range before {
		if !bytes.Equal(after[p], b) {
			t.Errorf("closed: %s changed during the scan", filepath.Base(p))
		}
	}
}
