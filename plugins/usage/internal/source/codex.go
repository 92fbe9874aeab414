package source

import (
	"bytes"
	"context"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/toolhost/toolhost/plugins/usage/internal/jsonscan"
)

// Codex reads Codex CLI's ${CODEX_HOME:-~/.codex}/sessions/YYYY/MM/DD/
// rollout-*.jsonl and archived_sessions/ logs.
type Codex struct{}

var _ Provider = Codex{}

// Name returns "codex".
func (Codex) Name() string { return "codex" }

// Discover walks sessions/ and archived_sessions/ under CODEX_HOME.
func (Codex) Discover(env Env) (Discovery, error) {
	home := env("CODEX_HOME")
	if home == "" {
		if h := env.Home(); h != "" {
			home = filepath.Join(h, ".codex")
		}
	}
	var dsc Discovery
	if home == "" {
		return dsc, nil
	}
	for _, sub := range []string{"sessions", "archived_sessions"} {
		dir := filepath.Join(home, sub)
		ok, err := isDir(dir)
		if err != nil {
			return dsc, err
		}
		if !ok {
			continue
		}
		dsc.Found = true
		err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				dsc.Dirs = append(dsc.Dirs, p)
			} else if strings.HasPrefix(d.Name(), "rollout-") && strings.HasSuffix(d.Name(), ".jsonl") {
				dsc.Sources = append(dsc.Sources, Source{Path: p, Appendable: true, Session: strings.TrimSuffix(d.Name(), ".jsonl")})
			}
			return nil
		})
		if err != nil {
			return dsc, err
		}
	}
	return dsc, nil
}

// codexUsage is one token_usage object.
type codexUsage struct {
	input, cached, output, total int64
}

type codexCarry struct {
	model, cwd, name, session string
	turn                      uint32
	max                       codexUsage
}

var (
	needleTokenCount  = []byte(`"token_count"`)
	needleTurnContext = []byte(`"turn_context"`)
	needleSessionMeta = []byte(`"session_meta"`)
	needleUserMessage = []byte(`"user_message"`)
)

// Parse reads appended lines of one Codex rollout. Token counts come from
// token_count events: last_token_usage, else the difference of cumulative
// totals; an event whose cumulative total does not exceed the largest seen
// (a re-emit or a replayed burst) is ignored. input_tokens includes cached
// input, so the cached part is moved to the cache-read bucket.
func (c Codex) Parse(ctx context.Context, st *FileState) error {
	carry, _ := st.Carry.(*codexCarry)
	if carry == nil {
		carry = &codexCarry{session: st.Session}
		st.Carry = carry
	}
	return readLines(ctx, st, func(line []byte) {
		head := line
		if len(head) > 256 {
			head = head[:256]
		}
		switch {
		case bytes.Contains(line, needleTokenCount):
		case bytes.Contains(head, needleTurnContext), bytes.Contains(head, needleSessionMeta):
		case bytes.Contains(line, needleUserMessage):
		default:
			return
		}
		c.line(st, carry, line)
	})
}

func (Codex) line(st *FileState, carry *codexCarry, line []byte) {
	var typ, ts, payload []byte
	if err := jsonscan.Fields(line, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			typ = v
		case "timestamp":
			ts = v
		case "payload":
			payload = v
		}
		return true
	}); err != nil {
		st.Skipped++
		return
	}
	switch string(typ) {
	case `"session_meta"`, `"turn_context"`:
		_ = jsonscan.Fields(payload, func(k, v []byte) bool {
			switch string(k) {
			case "model":
				carry.model, _ = jsonscan.String(v)
			case "cwd":
				carry.cwd, _ = jsonscan.String(v)
				carry.name = baseName(carry.cwd)
			case "id":
				if string(typ) == `"session_meta"` {
					carry.session, _ = jsonscan.String(v)
				}
			}
			return true
		})
	case `"event_msg"`:
		var ptype, info []byte
		_ = jsonscan.Fields(payload, func(k, v []byte) bool {
			switch string(k) {
			case "type":
				ptype = v
			case "info":
				info = v
			}
			return true
		})
		switch string(ptype) {
		case `"user_message"`:
			carry.turn++
		case `"token_count"`:
			if len(info) == 0 || info[0] != '{' {
				return
			}
			var total, last codexUsage
			hasTotal, hasLast := false, false
			_ = jsonscan.Fields(info, func(k, v []byte) bool {
				switch string(k) {
				case "total_token_usage":
					total, hasTotal = readCodexUsage(v), true
				case "last_token_usage":
					last, hasLast = readCodexUsage(v), v[0] == '{'
				}
				return true
			})
			if !hasTotal || total.total <= carry.max.total {
				return
			}
			if !hasLast {
				last = codexUsage{input: total.input - carry.max.input, cached: total.cached - carry.max.cached,
					output: total.output - carry.max.output}
			}
			carry.max = total
			t, ok := parseTime(ts)
			if !ok {
				st.Skipped++
				return
			}
			model := carry.model
			if model == "" {
				model = "gpt-5"
			}
			call := Call{Time: t, Origin: st.origin("codex", carry.cwd, carry.name, carry.session, model), Turn: carry.turn}
			call.CR = tok(last.cached)
			call.In = tok(last.input - last.cached)
			call.Out = tok(last.output)
			st.add(call, nil)
		}
	}
}

func readCodexUsage(v []byte) codexUsage {
	var u codexUsage
	_ = jsonscan.Fields(v, func(k, v []byte) bool {
		switch string(k) {
		case "input_tokens":
			u.input, _ = jsonscan.Int(v)
		case "cached_input_tokens":
			u.cached, _ = jsonscan.Int(v)
		case "output_tokens":
			u.output, _ = jsonscan.Int(v)
		case "total_tokens":
			u.total, _ = jsonscan.Int(v)
		}
		return true
	})
	if u.total == 0 {
		u.total = u.input + u.output
	}
	return u
}
