package source

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Qwen reads Qwen Code's chat recordings:
// ${QWEN_DATA_DIR:-~/.qwen}/projects/<project>/chats/<session>.jsonl, one
// record a line (QwenLM/qwen-code packages/core/src/services/
// chatRecordingService.ts: uuid, parentUuid, sessionId, timestamp, type,
// cwd, version, model, message, and on assistant records the Gemini API's
// usageMetadata), where ccusage 20 reads them (its adapter/qwen/parser.rs).
type Qwen struct{}

var _ Provider = Qwen{}

// Name returns "qwen".
func (Qwen) Name() string { return "qwen" }

// Discover lists each root's projects/*/chats/*.jsonl.
func (Qwen) Discover(env Env) (Discovery, error) {
	rootDirs := rootsOr(env, "QWEN_DATA_DIR", ".qwen")
	var dsc Discovery
	var l listing
	for _, r := range rootDirs {
		projects := filepath.Join(r, "projects")
		dsc.LookedIn = append(dsc.LookedIn, projects)
		ok, err := isDir(projects)
		if err != nil {
			l.fail(err)
			continue
		}
		if !ok {
			continue
		}
		dsc.Found = true
		entries, ok := l.list(&dsc, projects)
		if !ok {
			continue
		}
		for _, pe := range entries {
			if !l.isDir(projects, pe) {
				continue
			}
			chats := filepath.Join(projects, pe.Name(), "chats")
			files, ok := l.optional(&dsc, chats)
			if !ok {
				continue
			}
			for _, f := range files {
				if !f.IsDir() && strings.HasSuffix(f.Name(), ".jsonl") {
					dsc.Sources = append(dsc.Sources, Source{Path: filepath.Join(chats, f.Name()), Appendable: true,
						Session: strings.TrimSuffix(f.Name(), ".jsonl"), Project: pe.Name()})
				}
			}
		}
	}
	l.report(&dsc, "a Qwen Code projects/ folder", "chats")
	return dsc, nil
}

// qwenRecord is the part of a chat record read.
type qwenRecord struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	SessionID string `json:"sessionId"`
	Model     string `json:"model"`
	Cwd       string `json:"cwd"`
	Usage     *struct {
		Prompt     int64 `json:"promptTokenCount"`
		Candidates int64 `json:"candidatesTokenCount"`
		Thoughts   int64 `json:"thoughtsTokenCount"`
		Cached     int64 `json:"cachedContentTokenCount"`
		Total      int64 `json:"totalTokenCount"`
	} `json:"usageMetadata"`
}

var (
	needleUsageMetadata = []byte(`"usageMetadata"`)
	needleTypeUser      = []byte(`"type":"user"`)
)

// Parse reads appended records. An assistant record's usage is the Gemini
// API's: promptTokenCount includes the cached part (moved to cache read),
// thoughts are billed as output; a record with only totalTokenCount counts
// it as output (as ccusage does). A user record opens a turn. Copies of a
// record (same session, time, model and counts) count once.
func (Qwen) Parse(ctx context.Context, st *FileState) error {
	carry, _ := st.Carry.(*geminiCarry)
	if carry == nil {
		carry = &geminiCarry{}
		st.Carry = carry
	}
	return readLines(ctx, st, func(line []byte) {
		if !bytes.Contains(line, needleUsageMetadata) {
			if bytes.Contains(line, needleTypeUser) {
				carry.turn++
			}
			return
		}
		var r qwenRecord
		if err := json.Unmarshal(line, &r); err != nil {
			st.Skipped++
			return
		}
		if r.Type != "assistant" || r.Usage == nil {
			return
		}
		u := r.Usage
		in, out, cached := max(u.Prompt-u.Cached, 0), u.Candidates+u.Thoughts, u.Cached
		if u.Prompt == 0 && u.Candidates == 0 && u.Thoughts == 0 && u.Cached == 0 {
			out = u.Total
		}
		if in == 0 && out == 0 && cached == 0 {
			return
		}
		t, err := time.Parse(time.RFC3339Nano, r.Timestamp)
		if err != nil {
			fi, serr := os.Stat(st.Path)
			if serr != nil {
				st.Skipped++
				return
			}
			t = fi.ModTime()
		}
		session := r.SessionID
		if session == "" {
			session = st.Session
		}
		model := r.Model
		if model == "" {
			model = "unknown"
		}
		project, name := st.Project, st.Project
		if r.Cwd != "" {
			project, name = r.Cwd, baseName(r.Cwd)
		}
		c := Call{Time: t.UnixMilli(), Origin: st.origin("qwen", project, name, session, model), Turn: carry.turn,
			In: tok(in), Out: tok(out), CR: tok(cached)}
		c.Key = keyOf([]byte("qwen"), []byte(session), []byte(r.Timestamp), []byte(model),
			[]byte(strconv.FormatInt(u.Prompt, 10)), []byte(strconv.FormatInt(u.Candidates, 10)),
			[]byte(strconv.FormatInt(u.Cached, 10)), []byte(strconv.FormatInt(u.Thoughts, 10)))
		st.add(c, nil)
	})
}
