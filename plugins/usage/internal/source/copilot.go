package source

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// Copilot reads GitHub Copilot CLI's session state:
// ${COPILOT_HOME:-~/.copilot}/session-state/<session>/events.jsonl, one
// event a line ({type, data, id, timestamp, parentId}). A session.shutdown
// event's data.modelMetrics holds, per model, the session's usage so far
// (inputTokens, which includes the cache reads and writes, outputTokens,
// cacheReadTokens, cacheWriteTokens). The events are Copilot CLI's; the
// place and the rule (each shutdown bills what grew since the one before)
// are those ccusage 20.0.24 applies (its guide's data source and its
// answers on such files). Copilot's OpenTelemetry file export is read too
// (copilot_otel.go): the file COPILOT_OTEL_FILE_EXPORTER_PATH names and
// every *.jsonl under ${COPILOT_HOME:-~/.copilot}/otel, the places ccusage
// 20.0.24 reads.
type Copilot struct{}

var _ Provider = Copilot{}

// Name returns "copilot".
func (Copilot) Name() string { return "copilot" }

// Discover lists session-state/*/events.jsonl and the OpenTelemetry
// export's files.
func (Copilot) Discover(env Env) (Discovery, error) {
	home := env.Dir("COPILOT_HOME", ".copilot")
	if home == "" {
		return Discovery{}, nil
	}
	state := filepath.Join(home, "session-state")
	dsc := Discovery{LookedIn: []string{state}}
	discoverCopilotOTel(env, home, &dsc)
	ok, err := isDir(state)
	if err != nil {
		dsc.Problems = append(dsc.Problems, err)
		return dsc, nil
	}
	if !ok {
		return dsc, nil
	}
	dsc.Found = true
	dsc.Dirs = append(dsc.Dirs, state)
	var l listing
	sessions, ok := l.list(&dsc, state)
	if ok {
		for _, s := range sessions {
			if !l.isDir(state, s) {
				continue
			}
			p := filepath.Join(state, s.Name(), "events.jsonl")
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				dsc.Dirs = append(dsc.Dirs, filepath.Dir(p))
				dsc.Sources = append(dsc.Sources, Source{Path: p, Session: s.Name()})
			}
		}
	}
	l.report(&dsc, "Copilot's session-state folder", "sessions")
	return dsc, nil
}

// copilotUsage is one model's usage in a shutdown's modelMetrics.
type copilotUsage struct {
	Input      int64 `json:"inputTokens"`
	Output     int64 `json:"outputTokens"`
	CacheRead  int64 `json:"cacheReadTokens"`
	CacheWrite int64 `json:"cacheWriteTokens"`
}

type copilotEvent struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	Data      struct {
		ModelMetrics map[string]struct {
			Usage copilotUsage `json:"usage"`
		} `json:"modelMetrics"`
	} `json:"data"`
}

var needleShutdown = []byte(`"session.shutdown"`)

// Parse reads the file whole (it is re-read when it changes). An
// events.jsonl (a source with a session): each session.shutdown is a call
// per model for what that model's usage grew since the previous shutdown,
// at the event's time. An OpenTelemetry export: parseCopilotOTel.
func (Copilot) Parse(ctx context.Context, st *FileState) error {
	if st.Session == "" {
		return parseCopilotOTel(ctx, st)
	}
	prev := map[string]copilotUsage{}
	n := 0
	return readLines(ctx, st, func(line []byte) {
		if !bytes.Contains(line, needleShutdown) {
			return
		}
		var e copilotEvent
		if err := json.Unmarshal(line, &e); err != nil {
			st.Skipped++
			return
		}
		if e.Type != "session.shutdown" {
			return
		}
		t, err := time.Parse(time.RFC3339Nano, e.Timestamp)
		if err != nil {
			st.Skipped++
			return
		}
		n++
		models := make([]string, 0, len(e.Data.ModelMetrics))
		for m := range e.Data.ModelMetrics {
			models = append(models, m)
		}
		sort.Strings(models)
		for _, m := range models {
			u, p := e.Data.ModelMetrics[m].Usage, prev[m]
			prev[m] = u
			d := copilotUsage{Input: max(u.Input-p.Input, 0), Output: max(u.Output-p.Output, 0),
				CacheRead: max(u.CacheRead-p.CacheRead, 0), CacheWrite: max(u.CacheWrite-p.CacheWrite, 0)}
			in := max(d.Input-d.CacheRead-d.CacheWrite, 0)
			if in == 0 && d.Output == 0 && d.CacheRead == 0 && d.CacheWrite == 0 {
				continue
			}
			c := Call{Time: t.UnixMilli(), Origin: st.origin("copilot", "", "", st.Session, m),
				Key: keyOf([]byte("copilot"), []byte(st.Session), []byte(fmt.Sprint(n)), []byte(m)),
				In:  tok(in), Out: tok(d.Output), CW5m: tok(d.CacheWrite), CR: tok(d.CacheRead)}
			st.add(c, nil)
		}
	})
}
