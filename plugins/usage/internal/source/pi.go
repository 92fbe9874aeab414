package source

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Pi reads pi's coding-agent sessions: ${PI_AGENT_DIR:-~/.pi/agent/sessions}
// (comma list), any depth, --<encoded cwd>--/<time>_<session>.jsonl, one
// entry a line (badlogic/pi-mono packages/coding-agent session manager: a
// "session" header, then "message" entries whose assistant messages carry
// model and usage: input, output, cacheRead, cacheWrite, totalTokens and
// the cost pi computed). The layout and rules are those ccusage 20's
// adapter/pi reads (its README, paths.rs and parser.rs with their
// fixtures).
type Pi struct{}

var _ Provider = Pi{}

// Name returns "pi".
func (Pi) Name() string { return "pi" }

// Discover walks each root for *.jsonl.
func (Pi) Discover(env Env) (Discovery, error) {
	rootDirs := rootsOr(env, "PI_AGENT_DIR", ".pi", "agent", "sessions")
	var dsc Discovery
	walkRoots(&dsc, rootDirs, walkOptions{}, func(root, p string, d fs.DirEntry) {
		name := d.Name()
		if !strings.HasSuffix(name, ".jsonl") {
			return
		}
		session := strings.TrimSuffix(name, ".jsonl")
		if _, after, ok := strings.Cut(session, "_"); ok {
			session = after
		}
		project := "unknown"
		if rel, err := filepath.Rel(root, p); err == nil {
			if first, _, ok := strings.Cut(filepath.ToSlash(rel), "/"); ok {
				project = first
			}
		}
		dsc.Sources = append(dsc.Sources, Source{Path: p, Appendable: true, Session: session, Project: project})
	})
	return dsc, nil
}

// piLine is the part of a session entry read.
type piLine struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	Message   *struct {
		Role  string `json:"role"`
		Model string `json:"model"`
		Usage *struct {
			Input      int64 `json:"input"`
			Output     int64 `json:"output"`
			CacheRead  int64 `json:"cacheRead"`
			CacheWrite int64 `json:"cacheWrite"`
			Total      int64 `json:"totalTokens"`
		} `json:"usage"`
	} `json:"message"`
}

var needlePiUsage = []byte(`"usage"`)

// Parse reads appended entries: each assistant message with usage is a
// call at the entry's timestamp (a total beyond the parts billed as
// output); copies of one (same session, time, model and counts) count
// once. The project is the session's folder (pi's encoded working
// directory, --home-dev-shop--), shown without its dashes.
func (Pi) Parse(ctx context.Context, st *FileState) error {
	name := strings.Trim(st.Project, "-")
	return readLines(ctx, st, func(line []byte) {
		if !bytes.Contains(line, needlePiUsage) {
			return
		}
		var r piLine
		if err := json.Unmarshal(line, &r); err != nil {
			st.Skipped++
			return
		}
		if (r.Type != "" && r.Type != "message") || r.Message == nil || r.Message.Role != "assistant" || r.Message.Usage == nil {
			return
		}
		t, err := time.Parse(time.RFC3339Nano, r.Timestamp)
		if err != nil {
			st.Skipped++
			return
		}
		u := r.Message.Usage
		in, out, cw, cr := max(u.Input, 0), max(u.Output, 0), max(u.CacheWrite, 0), max(u.CacheRead, 0)
		out += max(u.Total-(in+out+cw+cr), 0)
		if in == 0 && out == 0 && cw == 0 && cr == 0 {
			return
		}
		model := strings.TrimSpace(r.Message.Model)
		if model == "" {
			model = "unknown"
		}
		c := Call{Time: t.UnixMilli(), Origin: st.origin("pi", st.Project, name, st.Session, model),
			In: tok(in), Out: tok(out), CW5m: tok(cw), CR: tok(cr)}
		c.Key = keyOf([]byte("pi"), []byte(st.Project), []byte(st.Session), []byte(r.Timestamp), []byte(model),
			[]byte(strconv.FormatInt(in, 10)), []byte(strconv.FormatInt(out, 10)),
			[]byte(strconv.FormatInt(cw, 10)), []byte(strconv.FormatInt(cr, 10)))
		st.add(c, nil)
	})
}
