// Command antigravity-gen writes the Antigravity conversations of the
// usage fixture home (tests/testdata/usage-home): SQLite databases as
// Antigravity keeps them, conversations/<id>.db, whose metadata rows are
// protobuf messages encoded field by field with protowire.
//
// The shape: a conversation's tables (steps, gen_metadata,
// trajectory_metadata_blob, in WAL mode) are those public readers of
// Antigravity's files list; the fields of a gen_metadata row (field 1, the
// chat model's metadata: 4 usage {1 model number, 2 input, 5 cache read,
// 9 and 10 output, 11 response id}, 9 generation {4 Timestamp}, 19 model
// label), of a step's metadata (1 Timestamp, 9 usage {1 model, 2 input,
// 3 output, 5 cache read}) and of trajectory_metadata_blob (2 the
// conversation's start) are those ccusage 20.0.24's adapters/antigravity
// reads, checked against its answers. Antigravity itself is closed source.
//
//	go run ./tests/testdata/antigravity-gen tests/testdata/usage-home
package main

import (
	"database/sql"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	_ "modernc.org/sqlite"
)

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: antigravity-gen HOME")
	}
	if err := run(os.Args[1]); err != nil {
		log.Fatal(err)
	}
}

// gen is one gen_metadata row: a response's usage.
type gen struct {
	model                uint64 // the model enum's number; 0: none
	label                string
	in, read, out, think uint64
	response             string
	at                   string // RFC 3339; "": no generation time
}

// step is one step's metadata with usage.
type step struct {
	model         uint64
	in, out, read uint64
	at            string
}

func run(home string) error {
	cli := filepath.Join(home, ".gemini", "antigravity-cli", "conversations")
	a := filepath.Join(cli, "3f6c2a9e-8d41-4b7a-9c05-ag0000000001.db")
	// A CLI conversation: a response written twice (one response id), a
	// row naming no model (the model before it), one naming its model by
	// label, one with no generation time (the conversation's start), a row
	// without tokens, thinking and response output, cache reads, a model
	// ccusage prices and the price table does not name.
	err := write(a, "2026-06-19T08:59:00Z", []gen{
		{model: 1018, in: 12000, read: 30000, out: 800, think: 400, response: "resp-ag-1", at: "2026-06-19T09:00:00Z"},
		{model: 1018, in: 12000, read: 30000, out: 800, think: 400, response: "resp-ag-1", at: "2026-06-19T09:00:00Z"},
		{in: 5000, out: 300, response: "resp-ag-2", at: "2026-06-19T09:05:00Z"},
		{label: "gemini-3.1-pro-high", in: 40000, read: 8000, out: 2000, think: 1000, response: "resp-ag-3", at: "2026-06-19T10:00:00Z"},
		{model: 1026, in: 3000, out: 500, response: "resp-ag-4", at: "2026-06-19T11:00:00Z"},
		{model: 1018, response: "resp-ag-5", at: "2026-06-19T11:30:00Z"},
		{model: 246, in: 7000, out: 900, response: "resp-ag-6"},
		{label: "Gemini 3.6 Flash (High)", in: 1000, out: 100, response: "resp-ag-7", at: "2026-06-19T23:59:59Z"},
	}, nil)
	if err != nil {
		return err
	}
	// The backup Antigravity keeps of that conversation: its responses
	// count once.
	if err := copyFile(a, filepath.Join(home, ".gemini", "antigravity-backup", "conversations", filepath.Base(a))); err != nil {
		return err
	}
	// An IDE conversation of an older version: no gen_metadata rows, its
	// usage in its steps' metadata.
	ide := filepath.Join(home, ".gemini", "antigravity", "conversations", "3f6c2a9e-8d41-4b7a-9c05-ag0000000002.db")
	return write(ide, "2026-06-20T14:00:00Z", nil, []step{
		{model: 1035, in: 20000, out: 1500, read: 60000, at: "2026-06-20T14:01:00Z"},
		{in: 8000, out: 700, at: "2026-06-20T14:10:00Z"},
	})
}

// write creates the conversation database at path.
func write(path, began string, gens []gen, steps []step) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	for _, s := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(path + s); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	_, err = db.Exec(`PRAGMA journal_mode = WAL;
CREATE TABLE steps(idx INTEGER PRIMARY KEY, step_type INTEGER, status INTEGER, has_subtrajectory INTEGER,
	metadata BLOB, error_details BLOB, permissions BLOB, task_details BLOB, render_info BLOB, step_payload BLOB, step_format INTEGER);
CREATE TABLE gen_metadata(idx INTEGER PRIMARY KEY, data BLOB, size INTEGER);
CREATE TABLE trajectory_metadata_blob(id TEXT PRIMARY KEY, data BLOB);`)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	traj := protowire.AppendTag(nil, 2, protowire.BytesType)
	traj = protowire.AppendBytes(traj, timestamp(began))
	if _, err := db.Exec(`INSERT INTO trajectory_metadata_blob VALUES ('main', ?)`, traj); err != nil {
		return err
	}
	idx := 0
	for _, g := range gens {
		b := g.encode()
		// A user step and the planner step the response answers.
		if _, err := db.Exec(`INSERT INTO steps(idx, step_type, status) VALUES (?, 14, 3), (?, 15, 3)`, idx, idx+1); err != nil {
			return err
		}
		if _, err := db.Exec(`INSERT INTO gen_metadata VALUES (?, ?, ?)`, idx/2, b, len(b)); err != nil {
			return err
		}
		idx += 2
	}
	for _, s := range steps {
		if _, err := db.Exec(`INSERT INTO steps(idx, step_type, status, metadata) VALUES (?, 15, 3, ?)`, idx, s.encode()); err != nil {
			return err
		}
		idx++
	}
	_, err = db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	return err
}

func (g gen) encode() []byte {
	var u []byte
	if g.model != 0 {
		u = varint(u, 1, g.model)
	}
	u = varint(u, 2, g.in)
	u = varint(u, 5, g.read)
	u = varint(u, 9, g.out)
	u = varint(u, 10, g.think)
	if g.response != "" {
		u = bytes(u, 11, []byte(g.response))
	}
	chat := bytes(nil, 4, u)
	if g.at != "" {
		chat = bytes(chat, 9, bytes(nil, 4, timestamp(g.at)))
	}
	if g.label != "" {
		chat = bytes(chat, 19, []byte(g.label))
	}
	return bytes(nil, 1, chat)
}

func (s step) encode() []byte {
	var u []byte
	if s.model != 0 {
		u = varint(u, 1, s.model)
	}
	u = varint(u, 2, s.in)
	u = varint(u, 3, s.out)
	u = varint(u, 5, s.read)
	return bytes(bytes(nil, 1, timestamp(s.at)), 9, u)
}

// timestamp is a google.protobuf.Timestamp.
func timestamp(rfc3339 string) []byte {
	t, err := time.Parse(time.RFC3339, rfc3339)
	if err != nil {
		panic(err)
	}
	return varint(varint(nil, 1, uint64(t.Unix())), 2, uint64(t.Nanosecond()))
}

func varint(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func bytes(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func copyFile(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
