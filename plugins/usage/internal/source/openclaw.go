package source

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// OpenClaw reads OpenClaw's session transcripts: ${OPENCLAW_DIR} (comma
// list), else ~/.openclaw and the names it had before (~/.clawdbot,
// ~/.moltbot, ~/.moldbot), any depth (agents/<agent>/sessions/): files
// <session>.jsonl, and the copies OpenClaw keeps of a reset or deleted
// session (<session>.jsonl.reset.<time>, .jsonl.deleted.<time>). One entry
// a line, in pi's session format (OpenClaw runs pi's agent): "message"
// entries whose assistant message carries usage (input, output, cacheRead,
// cacheWrite, totalTokens, cost) and a model, "model_change" entries (and
// "custom" model-snapshot ones) naming the model of the messages after
// them. The places and rules are those ccusage 20.0.24's adapters/openclaw
// reads (its parser.rs and loader.rs with their fixtures). Newer OpenClaw
// versions keep each agent's transcripts in a SQLite database,
// agents/<agent>/agent/openclaw-agent.sqlite: its transcript_events table
// holds the same entries, one a row (session_id, seq, event_json,
// created_at), read as ccusage 20.0.24 reads them (the table and columns
// its loader queries, the rules checked against its answers).
type OpenClaw struct{}

var _ Provider = OpenClaw{}

// Name returns "openclaw".
func (OpenClaw) Name() string { return "openclaw" }

// Discover walks each root for session transcripts.
func (OpenClaw) Discover(env Env) (Discovery, error) {
	var rootDirs []string
	if v := env("OPENCLAW_DIR"); v != "" {
		rootDirs = roots(v)
	} else if h := env.Home(); h != "" {
		for _, d := range []string{".openclaw", ".clawdbot", ".moltbot", ".moldbot"} {
			rootDirs = append(rootDirs, filepath.Join(h, d))
		}
	}
	var dsc Discovery
	walkRoots(&dsc, rootDirs, walkOptions{}, func(_, p string, d fs.DirEntry) {
		name := d.Name()
		if name == openclawDB {
			dsc.Sources = append(dsc.Sources, Source{Path: p})
			return
		}
		stem, rest, ok := strings.Cut(name, ".jsonl")
		if !ok || stem == "" || (rest != "" && !strings.HasPrefix(rest, ".reset.") && !strings.HasPrefix(rest, ".deleted.")) {
			return
		}
		dsc.Sources = append(dsc.Sources, Source{Path: p, Session: stem})
	})
	return dsc, nil
}

// openclawModel is where a line names a model: a model_change entry's
// root or its data, or a message.
type openclawModel struct {
	ModelID string `json:"modelId"`
	Model   string `json:"model"`
}

func (m openclawModel) name() string {
	if s := strings.TrimSpace(m.ModelID); s != "" {
		return s
	}
	return strings.TrimSpace(m.Model)
}

type openclawLine struct {
	Type       string `json:"type"`
	CustomType string `json:"customType"`
	openclawModel
	Data      json.RawMessage `json:"data"`
	Message   json.RawMessage `json:"message"`
	Timestamp json.RawMessage `json:"timestamp"`
}

type openclawMessage struct {
	Role string `json:"role"`
	openclawModel
	Timestamp json.RawMessage `json:"timestamp"`
	Usage     *struct {
		Input      lenientInt `json:"input"`
		Output     lenientInt `json:"output"`
		CacheRead  lenientInt `json:"cacheRead"`
		CacheWrite lenientInt `json:"cacheWrite"`
		Total      lenientInt `json:"totalTokens"`
	} `json:"usage"`
}

var (
	needleModelChange   = []byte(`"model_change"`)
	needleModelSnapshot = []byte(`"model-snapshot"`)
)

// openclawDB is the name of an agent's SQLite transcript.
const openclawDB = "openclaw-agent.sqlite"

// Parse reads the file whole (it is re-read when it changes: a message's
// model can be named lines before it): each assistant message with usage
// is a call (a total beyond the parts billed as output) at the message's
// timestamp (Unix ms or RFC 3339), else the entry's, else the file's time;
// its model is its own, else the last model_change's, else "unknown".
// Copies of a message (same session, time, model and counts) count once.
// An agent's SQLite transcript is read by parseDB.
func (OpenClaw) Parse(ctx context.Context, st *FileState) error {
	if filepath.Base(st.Path) == openclawDB {
		return openclawParseDB(ctx, st)
	}
	model := ""
	return readLines(ctx, st, func(line []byte) {
		openclawEntry(st, st.Session, line, &model, st.ModTime/1e6)
	})
}

// openclawParseDB reads an agent's SQLite transcript (read-only): each
// transcript_events row is an entry of its session, in seq order, read as
// a transcript line is, its created_at the time of last resort; an entry
// id seen twice in a session counts once (the first), as ccusage reads
// the table.
func openclawParseDB(ctx context.Context, st *FileState) error {
	rows, closeDB, err := queryDB(ctx, st, "openclaw",
		`SELECT session_id, event_json, CAST(created_at AS TEXT) FROM transcript_events ORDER BY session_id ASC, seq ASC`)
	if err != nil {
		return err
	}
	defer closeDB()
	session, model := "", ""
	seen := map[string]bool{}
	for rows.Next() {
		var sid, event, created sql.NullString
		if err := rows.Scan(&sid, &event, &created); err != nil {
			return fmt.Errorf("read openclaw transcript_events row: %w", err)
		}
		st.Lines++
		if sid.String != session {
			session, model = sid.String, ""
			clear(seen)
		}
		var head struct {
			ID string `json:"id"`
		}
		line := []byte(event.String)
		if json.Unmarshal(line, &head) != nil {
			st.Skipped++
			continue
		}
		if head.ID != "" {
			if seen[head.ID] {
				continue
			}
			seen[head.ID] = true
		}
		ms := st.ModTime / 1e6
		if t, ok := gooseTime(created.String); ok {
			ms = t.UnixMilli()
		}
		openclawEntry(st, session, line, &model, ms)
	}
	return rows.Err()
}

// openclawEntry reads one transcript entry of session: a model change sets
// *model; an assistant message with usage is a call, at fallback (Unix
// ms) when neither it nor its entry is timed.
func openclawEntry(st *FileState, session string, line []byte, model *string, fallback int64) {
	change := bytes.Contains(line, needleModelChange) || bytes.Contains(line, needleModelSnapshot)
	if !change && !bytes.Contains(line, needlePiUsage) {
		return
	}
	var r openclawLine
	if err := json.Unmarshal(line, &r); err != nil {
		st.Skipped++
		return
	}
	if r.Type == "model_change" || (r.Type == "custom" && r.CustomType == "model-snapshot") {
		src := r.openclawModel
		var data openclawModel
		if len(r.Data) > 0 && r.Data[0] == '{' && json.Unmarshal(r.Data, &data) == nil {
			src = data
		}
		if m := src.name(); m != "" {
			*model = m
		}
		return
	}
	var msg openclawMessage
	if r.Type != "message" || len(r.Message) == 0 || r.Message[0] != '{' || json.Unmarshal(r.Message, &msg) != nil ||
		msg.Role != "assistant" || msg.Usage == nil {
		return
	}
	u := msg.Usage
	in, out, cw, cr := int64(u.Input), int64(u.Output), int64(u.CacheWrite), int64(u.CacheRead)
	out += max(int64(u.Total)-(in+out+cw+cr), 0)
	if in == 0 && out == 0 && cw == 0 && cr == 0 {
		return
	}
	ms, ok := openclawTime(msg.Timestamp)
	if !ok {
		if ms, ok = openclawTime(r.Timestamp); !ok {
			ms = fallback
		}
	}
	m := msg.name()
	if m == "" {
		m = *model
	}
	if m == "" {
		m = "unknown"
	}
	c := Call{Time: ms, Origin: st.origin("openclaw", "", "", session, m),
		In: tok(in), Out: tok(out), CW5m: tok(cw), CR: tok(cr)}
	c.Key = keyOf([]byte("openclaw"), []byte(session), []byte(strconv.FormatInt(ms, 10)), []byte(m),
		[]byte(strconv.FormatInt(in, 10)), []byte(strconv.FormatInt(out, 10)),
		[]byte(strconv.FormatInt(cw, 10)), []byte(strconv.FormatInt(cr, 10)))
	st.add(c, nil)
}

// openclawTime reads a timestamp: an integer of Unix milliseconds or an
// RFC 3339 string.
func openclawTime(raw json.RawMessage) (int64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return n, true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return 0, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, false
	}
	return t.UnixMilli(), true
}
