package source

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/toolhost/toolhost/plugins/usage/internal/regular"
)

// Kimi reads Kimi CLI's wire logs: ${KIMI_DATA_DIR:-~/.kimi} (comma
// list), sessions/<work-dir hash>/<session>/wire.jsonl, one wire message a
// line. A StatusUpdate message's payload carries the step's token_usage
// (kosong's TokenUsage: input_other, output, input_cache_read,
// input_cache_creation), its message_id, and the line its timestamp (Unix
// seconds); the model is config.json's "model" at the root, else
// "kimi-for-coding". The wire messages are Kimi CLI's (MoonshotAI/kimi-cli
// src/kimi_cli/wire and packages/kosong chat_provider); the layout and
// rules are those ccusage 20's adapter/kimi reads (its paths.rs and
// parser.rs with their fixtures). Kimi Code's newer ~/.kimi-code logs are
// not read: Discover says so when they are here.
type Kimi struct{}

var _ Provider = Kimi{}

// Name returns "kimi".
func (Kimi) Name() string { return "kimi" }

// Discover lists each root's sessions/*/*/wire.jsonl.
func (Kimi) Discover(env Env) (Discovery, error) {
	var rootDirs []string
	var dsc Discovery
	if v := env("KIMI_DATA_DIR"); v != "" {
		rootDirs = roots(v)
	} else if h := env.Home(); h != "" {
		rootDirs = []string{filepath.Join(h, ".kimi")}
		if ok, _ := isDir(filepath.Join(h, ".kimi-code")); ok {
			dsc.Found = true
			dsc.Problems = append(dsc.Problems, fmt.Errorf("Kimi Code's logs (~/.kimi-code) are here but not read, so their usage is not in the totals"))
		}
	}
	var l listing
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
				wire := filepath.Join(group, s.Name(), "wire.jsonl")
				if fi, err := os.Stat(wire); err == nil && fi.Mode().IsRegular() {
					dsc.Dirs = append(dsc.Dirs, filepath.Dir(wire))
					dsc.Sources = append(dsc.Sources, Source{Path: wire, Appendable: true, Session: s.Name(), Project: g.Name()})
				}
			}
		}
	}
	l.report(&dsc, "Kimi CLI's sessions/ folder", "sessions")
	return dsc, nil
}

// kimiLine is the part of a wire line read.
type kimiLine struct {
	Type      string   `json:"type"`
	Timestamp *float64 `json:"timestamp"`
	Message   *struct {
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
)

// Parse reads appended wire lines: each StatusUpdate with token usage is a
// call (a total beyond the parts billed as output), at the line's
// timestamp, else the file's modification time. Copies of a step (same
// session, message id, time, model and counts) count once.
func (Kimi) Parse(ctx context.Context, st *FileState) error {
	model := kimiModel(st.Path)
	return readLines(ctx, st, func(line []byte) {
		if !bytes.Contains(line, needleStatusUpdate) || !bytes.Contains(line, needleTokenUsage) {
			return
		}
		var r kimiLine
		if err := json.Unmarshal(line, &r); err != nil {
			st.Skipped++
			return
		}
		if r.Type == "metadata" || r.Message == nil || r.Message.Type != "StatusUpdate" || r.Message.Payload.TokenUsage == nil {
			return
		}
		u := r.Message.Payload.TokenUsage
		in, out, cw, cr := max(u.InputOther, 0), max(u.Output, 0), max(u.CacheWrite, 0), max(u.CacheRead, 0)
		out += max(u.Total-(in+out+cw+cr), 0)
		if in == 0 && out == 0 && cw == 0 && cr == 0 {
			return
		}
		ms := st.ModTime / 1e6
		if r.Timestamp != nil && !math.IsInf(*r.Timestamp, 0) && !math.IsNaN(*r.Timestamp) {
			ms = int64(math.Trunc(*r.Timestamp * 1000))
		}
		c := Call{Time: ms, Origin: st.origin("kimi", st.Project, st.Project, st.Session, model),
			In: tok(in), Out: tok(out), CW5m: tok(cw), CR: tok(cr)}
		c.Key = keyOf([]byte("kimi"), []byte(st.Session), []byte(r.Message.Payload.MessageID),
			[]byte(strconv.FormatInt(ms, 10)), []byte(model), []byte(strconv.FormatInt(in, 10)),
			[]byte(strconv.FormatInt(out, 10)), []byte(strconv.FormatInt(cw, 10)), []byte(strconv.FormatInt(cr, 10)))
		st.add(c, nil)
	})
}

// kimiModel is the "model" of config.json in the Kimi root the wire file
// is under (root/sessions/<group>/<session>/wire.jsonl), else Kimi CLI's
// default, "kimi-for-coding".
func kimiModel(wire string) string {
	root := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(wire))))
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
