package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// agGen is a gen_metadata row of an Antigravity conversation (the fields
// ccusage 20.0.24's adapters/antigravity reads; see
// tests/testdata/antigravity-gen): field 1, the chat model's metadata,
// holds the usage (4: model number 1, input 2, cache read 5, output 9 and
// 10, response id 11), the generation (9: Timestamp 4) and the label (19).
func agGen(model uint64, label string, in, read, out, think uint64, response, at string) []byte {
	var u []byte
	if model != 0 {
		u = pbVarint(u, 1, model)
	}
	u = pbVarint(pbVarint(pbVarint(pbVarint(u, 2, in), 5, read), 9, out), 10, think)
	if response != "" {
		u = pbBytes(u, 11, []byte(response))
	}
	chat := pbBytes(nil, 4, u)
	if at != "" {
		chat = pbBytes(chat, 9, pbBytes(nil, 4, pbTimestamp(at)))
	}
	if label != "" {
		chat = pbBytes(chat, 19, []byte(label))
	}
	return pbBytes(nil, 1, chat)
}

func pbVarint(b []byte, n protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(b, n, protowire.VarintType), v)
}

func pbBytes(b []byte, n protowire.Number, v []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(b, n, protowire.BytesType), v)
}

func pbTimestamp(rfc3339 string) []byte {
	t, err := time.Parse(time.RFC3339, rfc3339)
	if err != nil {
		panic(err)
	}
	return pbVarint(nil, 1, uint64(t.Unix()))
}

// writeConversation writes an Antigravity conversation database with these
// gen_metadata rows and steps' metadata.
func writeConversation(t *testing.T, path, began string, gens, steps [][]byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`CREATE TABLE steps(idx INTEGER PRIMARY KEY, step_type INTEGER, status INTEGER, metadata BLOB)`)
	exec(`CREATE TABLE gen_metadata(idx INTEGER PRIMARY KEY, data BLOB, size INTEGER)`)
	exec(`CREATE TABLE trajectory_metadata_blob(id TEXT PRIMARY KEY, data BLOB)`)
	exec(`INSERT INTO trajectory_metadata_blob VALUES ('main', ?)`, pbBytes(nil, 2, pbTimestamp(began)))
	for i, g := range gens {
		exec(`INSERT INTO gen_metadata VALUES (?, ?, ?)`, i, g, len(g))
	}
	for i, s := range steps {
		exec(`INSERT INTO steps VALUES (?, 15, 3, ?)`, i, s)
	}
}

// TestAntigravityConversations: Antigravity's conversations/<id>.db under
// each data folder (ANTIGRAVITY_DATA_DIR, a comma list): each gen_metadata
// row with tokens is a call of its model number's model, else its label's,
// else the row before's; output counts both output fields; a row without a
// generation time is at the conversation's start; a response id seen in
// two conversations (a backup's copy) counts once; a conversation without
// gen_metadata rows is read from its steps; a garbage row, an absurd token
// count and a blob over 4 MB are skipped and counted, a conversation of nothing but garbage and a file that is not a
// database are named in degraded, and the rest is still read.
func TestAntigravityConversations(t *testing.T) {
	root := t.TempDir()
	cli := filepath.Join(root, "cli", "conversations")
	a := [][]byte{
		agGen(1018, "", 1000, 3000, 80, 40, "r1", "2026-06-19T09:00:00Z"),
		agGen(1018, "", 1000, 3000, 80, 40, "r1", "2026-06-19T09:00:00Z"),
		agGen(0, "", 500, 0, 30, 0, "r2", "2026-06-19T09:05:00Z"),
		agGen(0, "Gemini 3.1 Pro (High)", 4000, 0, 200, 100, "r3", "2026-06-19T10:00:00Z"),
		agGen(1026, "gemini-3-flash", 300, 0, 50, 0, "r4", ""),
		agGen(1018, "", 0, 0, 0, 0, "r5", "2026-06-19T11:00:00Z"),
		{0xff, 0xff, 0xff},
		agGen(1018, "", 2e9, 0, 0, 0, "r7", "2026-06-19T11:00:00Z"),
		pbBytes(agGen(1018, "", 1, 0, 0, 0, "r8", "2026-06-19T11:00:00Z"), 30, make([]byte, 5<<20)),
	}
	writeConversation(t, filepath.Join(cli, "c1.db"), "2026-06-19T08:00:00Z", a, nil)
	backup := filepath.Join(root, "backup")
	writeConversation(t, filepath.Join(backup, "c1.db"), "2026-06-19T08:00:00Z", a[:2], nil)
	ide := filepath.Join(root, "ide", "conversations")
	step := pbBytes(pbBytes(nil, 1, pbTimestamp("2026-06-19T12:00:00Z")), 9,
		pbVarint(pbVarint(pbVarint(pbVarint(nil, 1, 1035), 2, 700), 3, 70), 5, 7000))
	writeConversation(t, filepath.Join(ide, "c2.db"), "2026-06-19T12:00:00Z", nil, [][]byte{step})
	writeConversation(t, filepath.Join(ide, "garbage.db"), "2026-06-19T12:00:00Z", [][]byte{{0x0a, 0x7f}}, nil)
	if err := os.WriteFile(filepath.Join(ide, "corrupt.db"), []byte("not a database, not at all: sixteen bytes and more"), 0o644); err != nil {
		t.Fatal(err)
	}

	s := newTestService(t, map[string]string{"HOME": t.TempDir(),
		"ANTIGRAVITY_DATA_DIR": strings.Join([]string{filepath.Join(root, "cli"), backup, filepath.Join(root, "ide")}, ",")})
	got, out := byModel(t, s, "2026-06-19", map[string]any{"provider": "antigravity"})
	want := map[string]row{
		"gemini-3-flash-preview": {Calls: 2, InputTokens: 1500, OutputTokens: 150, CacheReadTokens: 3000},
		"gemini-3.1-pro":         {Calls: 1, InputTokens: 4000, OutputTokens: 300},
		"claude-opus-4-6":        {Calls: 1, InputTokens: 300, OutputTokens: 50},
		"claude-sonnet-4-6":      {Calls: 1, InputTokens: 700, OutputTokens: 70, CacheReadTokens: 7000},
	}
	for m, w := range want {
		g := got[m]
		if g.Calls != w.Calls || g.InputTokens != w.InputTokens || g.OutputTokens != w.OutputTokens || g.CacheReadTokens != w.CacheReadTokens {
			t.Errorf("%s: got %+v, want %+v (degraded %v)", m, g, w, out.Degraded)
		}
	}
	if len(got) != len(want) {
		t.Errorf("models %v, want %d", got, len(want))
	}
	if out.SkippedLines != 4 {
		t.Errorf("skipped_lines %d, want 4 (a garbage row, a row of 2e9 tokens, a 5 MB row, the garbage conversation's row)", out.SkippedLines)
	}
	named := map[string]bool{}
	for _, d := range out.Degraded {
		if d.Provider != "antigravity" {
			continue
		}
		for _, f := range []string{"garbage.db", "corrupt.db"} {
			if strings.Contains(d.Reason, f) {
				named[f] = true
			}
		}
	}
	if !named["garbage.db"] || !named["corrupt.db"] {
		t.Errorf("degraded %v does not name garbage.db and corrupt.db", out.Degraded)
	}
	for _, n := range []string{"", "-wal", "-shm", "-journal"} {
		if _, err := os.Stat(filepath.Join(ide, "corrupt.db"+n)); n != "" && err == nil {
			t.Errorf("the scan left corrupt.db%s beside the agent's file", n)
		}
	}
}
