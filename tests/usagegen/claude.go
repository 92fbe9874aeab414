package usagegen

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

const ccVersion = "2.0.14"

// claudeSession writes one Claude Code session (and maybe a sub-agent file).
func (g *gen) claudeSession(date time.Time, n int) error {
	proj := g.projects[g.rng.IntN(len(g.projects))]
	sid := g.uuid()
	enc := strings.ReplaceAll(proj, "/", "-")
	dir := filepath.Join(g.root, "claude", "projects", enc)
	fw, err := create(filepath.Join(dir, sid+".jsonl"))
	if err != nil {
		return err
	}
	s := &ccSession{g: g, fw: fw, sid: sid, cwd: proj, model: g.pickModel(),
		t: date.Add(time.Duration(1+g.rng.IntN(19))*time.Hour + time.Duration(g.rng.IntN(3600))*time.Second)}
	if g.earlier == nil {
		g.earlier = map[string][][]byte{}
	}
	// A resumed session starts with copies of an earlier session's lines.
	if prev := g.earlier[proj]; len(prev) > 0 && g.rng.IntN(10) < 3 {
		for _, l := range prev {
			fw.line(l)
		}
	}
	if g.rng.IntN(4) == 0 {
		fw.line(fmt.Appendf(nil, `{"type":"summary","summary":"Fix %s","leafUuid":"%s"}`, g.content(30), g.uuid()))
	}
	turns := 1 + g.rng.IntN(2*g.cfg.TurnsPerSession)
	for i := 0; i < turns; i++ {
		s.turn()
	}
	if g.rng.IntN(5) == 0 {
		s.legacy()
	}
	if !g.cfg.NoMalformed && g.rng.IntN(5) == 0 {
		s.malformedLine()
	}
	if g.rng.IntN(3) == 0 {
		s.snapshot()
	}
	g.earlier[proj] = s.kept
	g.claudeBytes += fw.n
	if err := fw.close(); err != nil {
		return err
	}
	if g.rng.IntN(10) < 3 {
		return g.subagent(dir, sid, proj, s.t)
	}
	return nil
}

func (g *gen) pickModel() string {
	x := g.rng.IntN(100)
	switch {
	case x < 45:
		return claudeModels[0]
	case x < 55:
		return claudeModels[1]
	case x < 65:
		return claudeModels[2]
	case x < 82:
		return claudeModels[3]
	default:
		return claudeModels[4]
	}
}

// randomUsage makes up one request's tokens.
func (g *gen) randomUsage() usage {
	u := usage{in: int64(3 + g.rng.IntN(40)), out: int64(20 + g.rng.IntN(2500)),
		cr: int64(5000 + g.rng.IntN(120000))}
	if g.rng.IntN(3) == 0 {
		u.cw5m = int64(g.rng.IntN(15000))
	}
	if g.rng.IntN(5) == 0 {
		u.cw1h = int64(1000 + g.rng.IntN(20000))
	}
	if g.rng.IntN(8) == 0 {
		u.in = int64(1000 + g.rng.IntN(8000))
	}
	switch x := g.rng.IntN(100); {
	case x < 6: // long context through the cache
		u.cr = int64(150000 + g.rng.IntN(230000))
	case x < 7: // long context through plain input
		u.in = int64(205000 + g.rng.IntN(60000))
		u.cr = 0
	}
	return u
}

type ccSession struct {
	g         *gen
	fw        *fileWriter
	sid, cwd  string
	model     string
	t         time.Time
	parent    string
	sidechain bool
	kept      [][]byte
	lastMain  []byte
}

func (s *ccSession) tick(max int) time.Time {
	s.t = s.t.Add(time.Duration(1+s.g.rng.IntN(max)) * time.Second)
	return s.t
}

func ts(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func (s *ccSession) head(uuid string) []byte {
	return fmt.Appendf(nil, `{"parentUuid":%s,"isSidechain":%v,"userType":"external","cwd":"%s","sessionId":"%s","version":"%s","gitBranch":"main",`,
		quoteOrNull(s.parent), s.sidechain, s.cwd, s.sid, ccVersion)
}

func quoteOrNull(s string) string {
	if s == "" {
		return "null"
	}
	return `"` + s + `"`
}

func (s *ccSession) emit(b []byte, keep bool) {
	s.fw.line(b)
	if keep && len(s.kept) < 40 {
		s.kept = append(s.kept, b)
	}
}

func (s *ccSession) userPrompt() {
	u := s.g.uuid()
	b := s.head(u)
	b = fmt.Appendf(b, `"type":"user","message":{"role":"user","content":"%s"},"uuid":"%s","timestamp":"%s"}`,
		s.g.content(200), u, ts(s.tick(30)))
	s.parent = u
	s.emit(b, true)
}

func (s *ccSession) toolResult(toolID string, task bool) {
	u := s.g.uuid()
	b := s.head(u)
	b = fmt.Appendf(b, `"type":"user","message":{"role":"user","content":[{"tool_use_id":"%s","type":"tool_result","content":"%s","is_error":false}]},"uuid":"%s","timestamp":"%s",`,
		toolID, s.g.content(2*s.g.cfg.ContentBytes), u, ts(s.tick(5)))
	if task {
		// A sub-agent's result carries a usage object: not a billed request.
		b = fmt.Appendf(b, `"toolUseResult":{"status":"completed","totalDurationMs":5000,"totalTokens":%d,"usage":{"input_tokens":%d,"output_tokens":%d,"cache_read_input_tokens":%d}}}`,
			50000+s.g.rng.IntN(9999), 10+s.g.rng.IntN(99), 100+s.g.rng.IntN(999), 40000+s.g.rng.IntN(9999))
	} else {
		b = fmt.Appendf(b, `"toolUseResult":{"stdout":"%s","stderr":"","interrupted":false}}`, s.g.content(100))
	}
	s.parent = u
	s.emit(b, true)
}

// block is one content block of an assistant response.
type block struct {
	json   []byte
	toolID string
	task   bool
}

func (s *ccSession) textBlock() block {
	return block{json: fmt.Appendf(nil, `{"type":"text","text":"%s"}`, s.g.content(s.g.cfg.ContentBytes))}
}

func (s *ccSession) thinkingBlock() block {
	return block{json: fmt.Appendf(nil, `{"type":"thinking","thinking":"%s","signature":"Eq%x"}`, s.g.content(s.g.cfg.ContentBytes), s.g.rng.Uint64())}
}

func (s *ccSession) toolBlock(name, input string) block {
	id := s.g.id("toolu_")
	return block{json: fmt.Appendf(nil, `{"type":"tool_use","id":"%s","name":"%s","input":%s}`, id, name, input), toolID: id, task: name == "Task"}
}

func (s *ccSession) editBlock(file string) block {
	return s.toolBlock("Edit", fmt.Sprintf(`{"file_path":"%s/%s","old_string":"%s","new_string":"%s"}`,
		s.cwd, file, s.g.content(s.g.cfg.ContentBytes/2), s.g.content(s.g.cfg.ContentBytes/2)))
}

func (s *ccSession) bashBlock(cmd string) block {
	return s.toolBlock("Bash", fmt.Sprintf(`{"command":"%s","description":"run"}`, cmd))
}

// response writes one assistant response: each block its own line repeating
// the message id, request id and usage; early copies carry partial output.
func (s *ccSession) response(blocks ...block) {
	g := s.g
	msgID, reqID := g.id("msg_01"), g.id("req_011C")
	u := g.randomUsage()
	start := s.tick(20)
	for i, bl := range blocks {
		out := u.out
		if i < len(blocks)-1 {
			out = int64(1 + g.rng.IntN(int(u.out)))
		}
		uuid := g.uuid()
		b := s.head(uuid)
		b = fmt.Appendf(b, `"message":{"id":"%s","type":"message","role":"assistant","model":"%s","content":[%s],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"cache_creation":{"ephemeral_5m_input_tokens":%d,"ephemeral_1h_input_tokens":%d},"output_tokens":%d,"service_tier":"standard"}},"requestId":"%s","type":"assistant","uuid":"%s","timestamp":"%s"}`,
			msgID, s.model, bl.json, u.in, u.cw5m+u.cw1h, u.cr, u.cw5m, u.cw1h, out, reqID, uuid, ts(start.Add(time.Duration(i)*time.Second)))
		s.parent = uuid
		s.emit(b, true)
		if !s.sidechain {
			s.lastMain = b
		}
	}
	s.record(start, u)
	for _, bl := range blocks {
		if bl.toolID != "" {
			s.toolResult(bl.toolID, bl.task)
		}
	}
}

func (s *ccSession) record(t time.Time, u usage) {
	s.g.claude.add(t, s.model, u)
	s.g.all.add(t, s.model, u)
}

// turn writes a user prompt and the responses after it, in one of several
// shapes: one-shot edit, edit with a retry, exploration, conversation.
func (s *ccSession) turn() {
	g := s.g
	s.userPrompt()
	file := fmt.Sprintf("pkg/file%d.go", g.rng.IntN(20))
	maybeThink := func(b ...block) []block {
		if g.rng.IntN(3) == 0 {
			return append([]block{s.thinkingBlock()}, b...)
		}
		return b
	}
	switch g.rng.IntN(5) {
	case 0, 1: // one-shot edit
		s.response(maybeThink(s.textBlock(), s.toolBlock("Read", fmt.Sprintf(`{"file_path":"%s/%s"}`, s.cwd, file)))...)
		s.response(s.editBlock(file))
		s.response(s.bashBlock("go test ./..."))
		s.response(s.textBlock())
	case 2: // edit, failing test, edit again
		g.claude.Planted.Retries++
		g.all.Planted.Retries++
		s.response(maybeThink(s.editBlock(file))...)
		s.response(s.bashBlock("go test ./pkg/..."))
		s.response(s.textBlock(), s.editBlock(file))
		s.response(s.bashBlock("go test ./pkg/..."))
		s.response(s.textBlock())
	case 3: // exploration, sometimes through a sub-agent
		s.response(maybeThink(s.toolBlock("Grep", `{"pattern":"func main"}`))...)
		if g.rng.IntN(2) == 0 {
			s.response(s.toolBlock("Task", `{"description":"survey","prompt":"look around","subagent_type":"general-purpose"}`))
		}
		s.response(s.textBlock())
	default: // conversation
		s.response(maybeThink(s.textBlock())...)
	}
	// A sidechain call, and a sidechain replay of a main-chain response.
	if g.rng.IntN(7) == 0 {
		s.sidechain = true
		s.response(s.textBlock())
		s.sidechain = false
	}
	if s.lastMain != nil && g.rng.IntN(7) == 0 {
		replay := strings.Replace(string(s.lastMain), `"isSidechain":false`, `"isSidechain":true`, 1)
		s.emit([]byte(replay), false)
	}
}

// legacy writes an old-format line: a costUSD field, no request id, no cache
// split. Its cost is computed from its tokens like any other.
func (s *ccSession) legacy() {
	g := s.g
	u := usage{in: int64(10 + g.rng.IntN(500)), out: int64(50 + g.rng.IntN(900)), cr: int64(g.rng.IntN(30000)), cw5m: int64(g.rng.IntN(5000))}
	t := s.tick(20)
	uuid := g.uuid()
	b := s.head(uuid)
	b = fmt.Appendf(b, `"message":{"id":"%s","type":"message","role":"assistant","model":"%s","content":[{"type":"text","text":"%s"}],"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":%d}},"costUSD":%.6f,"type":"assistant","uuid":"%s","timestamp":"%s"}`,
		g.id("msg_01"), s.model, g.content(200), u.in, u.cw5m, u.cr, u.out, 0.5+g.rng.Float64(), uuid, ts(t))
	s.emit(b, false)
	s.record(t, u)
}

// malformedLine writes a usage-bearing line cut short (a crash mid-write),
// followed by a newline as the next write would leave it.
func (s *ccSession) malformedLine() {
	g := s.g
	uuid := g.uuid()
	b := s.head(uuid)
	b = fmt.Appendf(b, `"message":{"id":"%s","type":"message","role":"assistant","model":"%s","content":[{"type":"text","text":"%s"}],"usage":{"input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":%d}},"requestId":"%s","type":"assistant","uuid":"%s","timestamp":"%s"}`,
		g.id("msg_01"), s.model, g.content(100), 100, 5000, 700, g.id("req_"), uuid, ts(s.tick(5)))
	i := strings.Index(string(b), `"usage":{`) + 9
	cut := i + g.rng.IntN(len(b)-i-2)
	s.emit(b[:cut], false)
	g.malformed++
}

// snapshot writes a file-history-snapshot line: large, no usage.
func (s *ccSession) snapshot() {
	g := s.g
	size := 20000 + g.rng.IntN(200000)
	b := fmt.Appendf(nil, `{"type":"file-history-snapshot","messageId":"%s","snapshot":{"messageId":"%s","trackedFileBackups":{"%s/pkg/a.go":{"backupFileName":"a.go@v1","version":1,"backupTime":"%s","content":"`,
		g.uuid(), g.uuid(), s.cwd, ts(s.t))
	for size > 0 {
		c := g.content(max(min(size, 60000), 100))
		b = append(b, c...)
		size -= len(c) + 1
	}
	b = fmt.Appendf(b, `"}},"timestamp":"%s"},"isSnapshotUpdate":false}`, ts(s.t))
	s.emit(b, false)
}

// subagent writes <session>/subagents/agent-<id>.jsonl: sidechain calls of
// the parent session.
func (g *gen) subagent(dir, sid, cwd string, t time.Time) error {
	fw, err := create(filepath.Join(dir, sid, "subagents", "agent-"+g.id("")[:16]+".jsonl"))
	if err != nil {
		return err
	}
	s := &ccSession{g: g, fw: fw, sid: sid, cwd: cwd, model: claudeModels[4], t: t, sidechain: true}
	s.userPrompt()
	for i := 0; i < 2+g.rng.IntN(3); i++ {
		s.response(s.toolBlock("Read", fmt.Sprintf(`{"file_path":"%s/README.md"}`, cwd)))
	}
	s.response(s.textBlock())
	g.claudeBytes += fw.n
	return fw.close()
}
