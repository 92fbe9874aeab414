package source

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/toolhost/toolhost/plugins/usage/internal/regular"
)

// Kimi reads Kimi CLI's and Kimi Code's wire logs: ${KIMI_DATA_DIR}
// (comma list), else ~/.kimi and ~/.kimi-code, each
// sessions/<work-dir hash>/<session>/wire.jsonl (Kimi CLI) or
// sessions/<workspace>/<session>/agents/<agent>/wire.jsonl (Kimi Code: one
// file per agent of the session), one wire message a line. Kimi CLI's
// StatusUpdate message carries the step's token_usage (kosong's
// TokenUsage: input_other, output, input_cache_read,
// input_cache_creation), its message_id, and the line its timestamp (Unix
// seconds); the model is config.json's "model" at the root, else
// "kimi-for-coding". Kimi Code writes a "usage.record" line per turn
// (usageScope "turn"; the "session" records repeat the running total) with
// its time (Unix milliseconds), model ("kimi-code/<model>") and usage
// (inputOther, output, inputCacheRead, inputCacheCreation). The wire
// messages are Kimi CLI's (MoonshotAI/kimi-cli src/kimi_cli/wire and
// packages/kosong chat_provider); the layouts and rules are those ccusage
// 20.0.24's adapter/kimi reads (its paths.rs and parser.rs with their
// fixtures; Kimi Code's records as ccusage's parser.rs reads them).
type Kimi struct{}

var _ Provider = Kimi{}

// Name returns "kimi".
func (Kimi) Name() string { return "kimi" }

// Discover lists each root's sessions/*/*/wire.jsonl and
// sessions/*/*/agents/*/wire.jsonl.
func (Kimi) Discover(env Env) (Discovery, error) {
	var rootDirs []string
	var dsc Discovery
	if v := env("KIMI_DATA_DIR"); v != "" {
		rootDirs = roots(v)
	} else if h := env.Home(); h != "" {
		rootDirs = []string{filepath.Join(h, ".kimi"), filepath.Join(h, ".kimi-code")}
	}
	var l listing
	add := func(dir, session, project string) {
		wire := filepath.Join(dir, "wire.jsonl")
		if fi, err := os.Stat(wire); err == nil && fi.Mode().IsRegular() {
			dsc.Sources = append(dsc.Sources, Source{Path: wire, Appendable: true, Session: session, Project: project})
		}
	}
	for _, r := range rootDirs {
		sessions := filepath.Join(r, "sessions")
		dsc.LookedIn = append(dsc.LookedIn, sessions)
		ok, err := isDir(sessions)
		if err != nil {
			l.fail(err)
			continue
		}
		if !ok {
			continue
		}
		dsc.Found = true
		groups, ok := l.list(&dsc, sessions)
		if !ok {
			continue
		}
		for _, g := range groups {
			if !l.isDir(sessions, g) {
				continue
			}
			group := filepath.Join(sessions, g.Name())
			ses, ok := l.optional(&dsc, group)
			if !ok {
				continue
			}
			for _, s := range ses {
				if !l.isDir(group, s) {
					continue
				}
				dir := filepath.Join(group, s.Name())
				dsc.Dirs = append(dsc.Dirs, dir)
				add(dir, s.Name(), g.Name())
				agents := filepath.Join(dir, "agents")
				as, ok := l.optional(&dsc, agents)
				if !ok {
					continue
				}
				for _, a := range as {
					if l.isDir(agents, a) {
						dsc.Dirs = append(dsc.Dirs, filepath.Join(agents, a.Name()))
						add(filepath.Join(agents, a.Name()), s.Name(), g.Name())
					}
				}
			}
		}
	}
	l.report(&dsc, "Kimi's sessions/ folder", "sessions")
	return dsc, nil
}

// kimiLine is the part of a wire line read: Kimi CLI's message, or Kimi
// Code's usage record.
type kimiLine struct {
	Type      string   `json:"type"`
	Timestamp *float64 `json:"timestamp"`
	// Kimi Code's usage.record.
	Time  *float64 `json:"time"`
	Model string   `json:"model"`
	Scope string   `json:"usageScope"`
	Usage *struct {
		InputOther lenientInt `json:"inputOther"`
		Output     lenientInt `json:"output"`
		CacheRead  lenientInt `json:"inputCacheRead"`
		CacheWrite lenientInt `json:"inputCacheCreation"`
	} `json:"usage"`
	Message *struct {
		Type    string `json:"type"`
		Payload struct {
			MessageID  string `json:"message_id"`
			TokenUsage *struct {
				InputOther int64 `json:"input_other"`
				Output     int64 `json:"output"`
				CacheRead  int64 `json:"input_cache_read"`
				CacheWrite int64 `json:"input_cache_creation"`
				Total      int64 `json:"total"`
			} `json:"token_usage"`
		} `json:"payload"`
	} `json:"message"`
}

var (
	needleStatusUpdate = []byte(`"StatusUpdate"`)
	needleTokenUsage   = []byte(`"token_usage"`)
	needleUsageRecord  = []byte(`"usage.record"`)
)

// Parse reads appended wire lines: each StatusUpdate with token usage, and
// each turn usage.record, is a call (a total beyond the parts billed as
// output), at the line's time, else the file's modification time. A
// usage.record's model is its own, less the "kimi-code/" prefix. Copies of
// a step (same session, message id, time, model and counts) count once.
func (Kimi) Parse(ctx context.Context, st *FileState) error {
	model := kimiModel(st.Path)
	return readLines(ctx, st, func(line []byte) {
		record := bytes.Contains(line, needleUsageRecord)
		if !record && (!bytes.Contains(line, needleStatusUpdate) || !bytes.Contains(line, needleTokenUsage)) {
			return
		}
		var r kimiLine
		if err := json.Unmarshal(line, &r); err != nil {
			st.Skipped++
			return
		}
		var in, out, cw, cr int64
		var id string
		ms, m := st.ModTime/1e6, model
		switch {
		case r.Type == "usage.record":
			if r.Scope != "turn" || r.Usage == nil {
				return
			}
			u := r.Usage
			in, out, cw, cr = int64(u.InputOther), int64(u.Output), int64(u.CacheWrite), int64(u.CacheRead)
			if r.Time != nil && !math.IsInf(*r.Time, 0) && !math.IsNaN(*r.Time) {
				ms = int64(*r.Time)
			}
			m = strings.TrimPrefix(strings.TrimSpace(r.Model), "kimi-code/")
			if m == "" {
				m = "kimi-for-coding"
			}
		case r.Type == "metadata" || r.Message == nil || r.Message.Type != "StatusUpdate" || r.Message.Payload.TokenUsage == nil:
			return
		default:
			u := r.Message.Payload.TokenUsage
			in, out, cw, cr = max(u.InputOther, 0), max(u.Output, 0), max(u.CacheWrite, 0), max(u.CacheRead, 0)
			out += max(u.Total-(in+out+cw+cr), 0)
			if r.Timestamp != nil && !math.IsInf(*r.Timestamp, 0) && !math.IsNaN(*r.Timestamp) {
				ms = int64(math.Trunc(*r.Timestamp * 1000))
			}
			id = r.Message.Payload.MessageID
		}
		if in == 0 && out == 0 && cw == 0 && cr == 0 {
			return
		}
		c := Call{Time: ms, Origin: st.origin("kimi", st.Project, st.Project, st.Session, m),
			In: tok(in), Out: tok(out), CW5m: tok(cw), CR: tok(cr)}
		c.Key = keyOf([]byte("kimi"), []byte(st.Session), []byte(id),
			[]byte(strconv.FormatInt(ms, 10)), []byte(m), []byte(strconv.FormatInt(in, 10)),
			[]byte(strconv.FormatInt(out, 10)), []byte(strconv.FormatInt(cw, 10)), []byte(strconv.FormatInt(cr, 10)))
		st.add(c, nil)
	})
}

// kimiModel is the "model" of config.json in the Kimi root the wire file
// is under (root/sessions/<group>/<session>/wire.jsonl, or
// root/sessions/<workspace>/<session>/agents/<agent>/wire.jsonl), else
// Kimi CLI's default, "kimi-for-coding".
func kimiModel(wire string) string {
	root := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(wire))))
	if filepath.Base(filepath.Dir(filepath.Dir(wire))) == "agents" {
		root = filepath.Dir(filepath.Dir(root))
	}
	b, err := regular.ReadFile(filepath.Join(root, "config.json"), 1<<20)
	if err == nil {
		var cfg struct {
			Model string `json:"model"`
		}
		if json.Unmarshal(b, &cfg) == nil && strings.TrimSpace(cfg.Model) != "" {
			return strings.TrimSpace(cfg.Model)
		}
	}
	return "kimi-for-coding"
}
