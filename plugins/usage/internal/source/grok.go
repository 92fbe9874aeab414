package source

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"math"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/toolhost/toolhost/plugins/usage/internal/regular"
)

// Grok reads xAI's Grok Build CLI sessions: ${GROK_HOME:-~/.grok},
// sessions/<url-encoded cwd>/<session>/updates.jsonl, one session update a
// line ({timestamp (Unix seconds), method, params: {sessionId, update:
// {sessionUpdate, usage}, _meta: {eventId, agentTimestampMs}}}), with
// summary.json beside it ({info: {id, cwd}, git_root_dir,
// current_model_id}). A "turn_completed" update's usage holds the turn's
// tokens (inputTokens, which includes cachedReadTokens and
// cacheCreationTokens; outputTokens, which includes reasoningTokens;
// costUsdTicks) per model in modelUsage, else once for the session's
// model. Grok's CLI is closed source: the layout and rules are those
// ccusage 20.0.24's adapters/grok reads (paths.rs, parser.rs and
// loader.rs with their fixtures, taken from Grok CLI 1.0.0's files).
type Grok struct{}

var _ Provider = Grok{}

// Name returns "grok".
func (Grok) Name() string { return "grok" }

// Discover walks sessions/ for updates.jsonl files.
func (Grok) Discover(env Env) (Discovery, error) {
	home := env.Dir("GROK_HOME", ".grok")
	if home == "" {
		return Discovery{}, nil
	}
	var dsc Discovery
	walkRoots(&dsc, []string{filepath.Join(home, "sessions")}, walkOptions{}, func(_, p string, d fs.DirEntry) {
		if d.Name() != "updates.jsonl" {
			return
		}
		session := filepath.Dir(p)
		project := filepath.Base(filepath.Dir(session))
		if dec, err := url.PathUnescape(project); err == nil {
			project = dec
		}
		dsc.Sources = append(dsc.Sources, Source{Path: p, Appendable: true, Session: filepath.Base(session), Project: project})
	})
	return dsc, nil
}

// grokUsage is one usage object: the turn's, or one model's in modelUsage.
type grokUsage struct {
	Input      lenientInt `json:"inputTokens"`
	Output     lenientInt `json:"outputTokens"`
	CacheRead  lenientInt `json:"cachedReadTokens"`
	CacheWrite lenientInt `json:"cacheCreationTokens"`
}

type grokLine struct {
	Timestamp *float64 `json:"timestamp"`
	Params    *struct {
		SessionID string `json:"sessionId"`
		Update    *struct {
			SessionUpdate string `json:"sessionUpdate"`
			Usage         *struct {
				grokUsage
				ModelUsage map[string]grokUsage `json:"modelUsage"`
			} `json:"usage"`
		} `json:"update"`
		Meta struct {
			EventID          string   `json:"eventId"`
			AgentTimestampMs *float64 `json:"agentTimestampMs"`
		} `json:"_meta"`
	} `json:"params"`
}

// grokMeta is what summary.json says of a session.
type grokMeta struct {
	session, project, model string
}

var needleTurnCompleted = []byte(`"turn_completed"`)

// Parse reads appended update lines: each turn_completed update with usage
// is a call per model, at _meta.agentTimestampMs, else the line's timestamp
// (Unix seconds), else the file's time. inputTokens less the cache reads
// and writes it includes is input; outputTokens (reasoning included) is
// output. A turn is identified by its eventId and model (the same event in
// two session files counts once), else by session, time, model and counts.
// The session, project and default model come from summary.json, else the
// line's sessionId, the folder names and "unknown".
func (Grok) Parse(ctx context.Context, st *FileState) error {
	meta := grokSummary(st)
	return readLines(ctx, st, func(line []byte) {
		if !bytes.Contains(line, needleTurnCompleted) {
			return
		}
		var r grokLine
		if err := json.Unmarshal(line, &r); err != nil {
			st.Skipped++
			return
		}
		p := r.Params
		if p == nil || p.Update == nil || p.Update.SessionUpdate != "turn_completed" || p.Update.Usage == nil {
			return
		}
		ms := st.ModTime / 1e6
		if t := p.Meta.AgentTimestampMs; t != nil && *t > 0 && !math.IsInf(*t, 0) {
			ms = int64(*t)
		} else if t := r.Timestamp; t != nil && *t > 0 && !math.IsInf(*t, 0) {
			ms = int64(*t) * 1000
		}
		session := meta.session
		if p.SessionID != "" {
			session = p.SessionID
		}
		rows := p.Update.Usage.ModelUsage
		if len(rows) == 0 {
			rows = map[string]grokUsage{meta.model: p.Update.Usage.grokUsage}
		}
		models := make([]string, 0, len(rows))
		for m := range rows {
			models = append(models, m)
		}
		sort.Strings(models)
		for _, m := range models {
			u := rows[m]
			input := int64(u.Input)
			cr := min(int64(u.CacheRead), input)
			cw := min(int64(u.CacheWrite), input-cr)
			in, out := input-cr-cw, int64(u.Output)
			if in == 0 && out == 0 && cw == 0 && cr == 0 {
				continue
			}
			c := Call{Time: ms, Origin: st.origin("grok", meta.project, filepath.Base(meta.project), session, m),
				In: tok(in), Out: tok(out), CW5m: tok(cw), CR: tok(cr)}
			if p.Meta.EventID != "" {
				c.Key = keyOf([]byte("grok"), []byte(p.Meta.EventID), []byte(m))
			} else {
				c.Key = keyOf([]byte("grok"), []byte(session), []byte(strconv.FormatInt(ms, 10)), []byte(m),
					[]byte(strconv.FormatInt(in, 10)), []byte(strconv.FormatInt(out, 10)),
					[]byte(strconv.FormatInt(cr, 10)), []byte(strconv.FormatInt(cw, 10)))
			}
			st.add(c, nil)
		}
	})
}

// grokSummary reads summary.json beside the updates file: the session id
// (else the folder's name), the working directory (info.cwd, else
// git_root_dir, else the decoded folder name) and current_model_id (else
// "unknown").
func grokSummary(st *FileState) grokMeta {
	m := grokMeta{session: st.Session, project: st.Project, model: "unknown"}
	b, err := regular.ReadFile(filepath.Join(filepath.Dir(st.Path), "summary.json"), 1<<20)
	if err != nil {
		return m
	}
	var s struct {
		Info struct {
			ID  string `json:"id"`
			Cwd string `json:"cwd"`
		} `json:"info"`
		GitRoot string `json:"git_root_dir"`
		Model   string `json:"current_model_id"`
	}
	if json.Unmarshal(b, &s) != nil {
		return m
	}
	if s.Info.ID != "" {
		m.session = s.Info.ID
	}
	if s.Info.Cwd != "" {
		m.project = s.Info.Cwd
	} else if s.GitRoot != "" {
		m.project = s.GitRoot
	}
	if s.Model != "" {
		m.model = s.Model
	}
	return m
}
