package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolhost/toolhost/plugins/usage/internal/jsonscan"
)

// Claude reads Claude Code's projects/<encoded-cwd>/<session>.jsonl files
// and their <session>/subagents/agent-*.jsonl sub-agent logs.
type Claude struct{}

var _ Provider = Claude{}

// Name returns "claude".
func (Claude) Name() string { return "claude" }

// Discover finds the projects folders: each CLAUDE_CONFIG_DIR entry (the
// config dir or its projects/), else ~/.config/claude and ~/.claude. A
// folder that cannot be listed is counted in Problems (by count, not by
// name: a project folder's name is its path) and the rest is still found.
func (Claude) Discover(env Env) (Discovery, error) {
	var dirs []string
	if v := env("CLAUDE_CONFIG_DIR"); v != "" {
		dirs = roots(v)
	} else if h := env.Home(); h != "" {
		dirs = []string{filepath.Join(h, ".config", "claude"), filepath.Join(h, ".claude")}
	}
	var dsc Discovery
	seen := map[string]bool{}
	unreadable := 0
	var firstErr error
	fail := func(err error) {
		unreadable++
		if firstErr == nil {
			firstErr = unwrapPath(err)
		}
	}
	for _, d := range dirs {
		p := d
		if filepath.Base(p) != "projects" {
			p = filepath.Join(d, "projects")
		}
		ok, err := isDir(p)
		if err != nil {
			fail(err)
			continue
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		if !ok || seen[p] {
			continue
		}
		seen[p] = true
		dsc.Found = true
		dsc.Dirs = append(dsc.Dirs, p)
		projects, err := os.ReadDir(p)
		if err != nil {
			fail(err)
			continue
		}
		for _, pe := range projects {
			if ok, err := isDirEntry(p, pe); err != nil {
				fail(err)
				continue
			} else if !ok {
				continue
			}
			pdir := filepath.Join(p, pe.Name())
			dsc.Dirs = append(dsc.Dirs, pdir)
			entries, err := os.ReadDir(pdir)
			if err != nil {
				fail(err)
				continue
			}
			for _, e := range entries {
				name := e.Name()
				switch {
				case !e.IsDir() && strings.HasSuffix(name, ".jsonl"):
					dsc.Sources = append(dsc.Sources, Source{Path: filepath.Join(pdir, name), Appendable: true,
						Session: strings.TrimSuffix(name, ".jsonl"), Project: pe.Name()})
				case e.IsDir():
					dsc.Dirs = append(dsc.Dirs, filepath.Join(pdir, name))
					sub := filepath.Join(pdir, name, "subagents")
					agents, err := os.ReadDir(sub)
					if err != nil {
						if !errors.Is(err, fs.ErrNotExist) {
							fail(err)
						}
						continue
					}
					dsc.Dirs = append(dsc.Dirs, sub)
					for _, a := range agents {
						if !a.IsDir() && strings.HasSuffix(a.Name(), ".jsonl") {
							dsc.Sources = append(dsc.Sources, Source{Path: filepath.Join(sub, a.Name()), Appendable: true,
								Session: name, Project: pe.Name()})
						}
					}
				}
			}
		}
	}
	if unreadable > 0 {
		dsc.Problems = append(dsc.Problems, fmt.Errorf(
			"%d folder(s) under a Claude Code projects/ folder could not be listed (%w); their sessions are not counted: check their permissions (ls -l)",
			unreadable, firstErr))
	}
	return dsc, nil
}

// isDirEntry reports whether a listed entry is a folder, following a
// symbolic link; a link that cannot be followed (a loop, no permission) is
// an error, a dangling one is not a folder.
func isDirEntry(parent string, e fs.DirEntry) (bool, error) {
	if e.IsDir() {
		return true, nil
	}
	if e.Type()&fs.ModeSymlink != 0 {
		return isDir(filepath.Join(parent, e.Name()))
	}
	return false, nil
}

type claudeCarry struct {
	turn  uint32
	cwd   string
	name  string
	model string
	fast  string // model + "-fast", kept for the next fast line
	steps []Step // a line's tool uses, reused
}

// fastModel is the model's fast-mode name ("claude-opus-4-6-fast", as
// ccusage names it); the price table applies the fast multiplier.
func (c *claudeCarry) fastModel() string {
	if !strings.HasPrefix(c.fast, c.model) || len(c.fast) != len(c.model)+5 {
		c.fast = c.model + "-fast"
	}
	return c.fast
}

var needleUsage = []byte(`"usage":{`)

// Parse reads appended lines of one Claude Code log. Lines are sorted by
// their first bytes: an assistant response (its "role":"assistant" comes
// early) is decoded in one pass; a user line only far enough to tell a
// prompt from a tool result; summaries and file-history snapshots not at
// all. A line the head does not place is decoded when it carries a usage
// object.
func (c Claude) Parse(ctx context.Context, st *FileState) error {
	carry, _ := st.Carry.(*claudeCarry)
	if carry == nil {
		carry = &claudeCarry{}
		st.Carry = carry
	}
	return readLines(ctx, st, func(line []byte) { c.line(st, carry, line) })
}

// line reads one line of a Claude Code log.
func (c Claude) line(st *FileState, carry *claudeCarry, line []byte) {
	switch kind, at, head := classify(line); kind {
	case lineAssistant:
		c.assistantAt(st, carry, line, head, at)
	case lineUser:
		if p, known := promptAt(line, at, head.meta); known {
			if p {
				carry.turn++
			}
		} else if isPrompt(line) {
			carry.turn++
		}
	case lineOther:
	default:
		if bytes.Contains(line, needleUsage) {
			c.assistant(st, carry, line)
		}
	}
}

var (
	needleAssistant = []byte(`"role":"assistant"`)
	prefixSnapshot  = []byte(`{"type":"file-history-snapshot"`)
	prefixSummary   = []byte(`{"type":"summary"`)
)

type lineKind int

const (
	lineUnknown lineKind = iota
	lineAssistant
	lineUser
	lineOther
)

// classify sorts a line by its first fields: the top-level keys are
// walked (values skipped) up to "message", whose role comes first in a user
// message and after the id and type in an assistant one. For a user line at
// is where the message's fields start; for an assistant line, where the
// message value starts; head holds the top-level fields read on the way.
func classify(line []byte) (kind lineKind, at int, head claudeFields) {
	if bytes.HasPrefix(line, prefixSnapshot) || bytes.HasPrefix(line, prefixSummary) {
		return lineOther, 0, head
	}
	head, msgAt, ok := headFields(line)
	if !ok || msgAt >= len(line) || line[msgAt] != '{' {
		return lineUnknown, 0, head
	}
	at = msgAt + 1
	win := line[at:min(len(line), at+160)]
	switch {
	case bytes.HasPrefix(win, needleRoleUser):
		return lineUser, at, head
	case bytes.Contains(win, needleAssistant):
		return lineAssistant, msgAt, head
	}
	return lineUnknown, 0, head
}

// headFields walks the top-level keys up to "message" (whose value starts
// at msgAt), keeping the ones an assistant line needs.
func headFields(line []byte) (f claudeFields, msgAt int, ok bool) {
	msgAt = -1
	_, err := jsonscan.Walk(line, 0, func(k []byte, v int) (int, bool) {
		switch string(k) {
		case "message":
			msgAt = v
			return 0, false
		case "isMeta":
			// As written: `"isMeta":true`.
			f.meta = line[v-1] == ':' && line[v-2] == '"' && bytes.HasPrefix(line[v:], []byte("true"))
			return -1, true
		case "isSidechain":
			f.side = bytes.HasPrefix(line[v:], []byte("true"))
			return -1, true
		case "type", "timestamp", "requestId", "cwd":
			e, err := jsonscan.ValueEnd(line, v)
			if err != nil {
				return 0, false
			}
			switch string(k) {
			case "type":
				f.typ = line[v:e]
			case "timestamp":
				f.ts = line[v:e]
			case "requestId":
				f.reqID = line[v:e]
			default:
				f.cwdRaw = line[v:e]
			}
			return e, true
		}
		return -1, true
	})
	return f, msgAt, err == nil && msgAt >= 0
}

var needleRoleUser = []byte(`"role":"user","content":`)

// promptAt tells a prompt from a tool result by the first bytes of a user
// message's content (at is where the message's fields start); known is
// false when they do not say.
func promptAt(line []byte, at int, meta bool) (prompt, known bool) {
	if meta {
		return false, true
	}
	rest := line[at+len(needleRoleUser):]
	switch {
	case len(rest) == 0:
		return false, false
	case rest[0] == '"':
		return true, true
	case bytes.HasPrefix(rest, []byte(`[{"type":"text"`)):
		return true, true
	case bytes.HasPrefix(rest, []byte(`[{"tool_use_id"`)), bytes.HasPrefix(rest, []byte(`[{"type":"tool_result"`)):
		return false, true
	}
	return false, false
}

// isPrompt reports whether a user line is a person's prompt (string or text
// content) rather than a tool result or a meta line.
func isPrompt(line []byte) bool {
	prompt := false
	typeUser := false
	meta := false
	_ = jsonscan.Fields(line, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			typeUser = string(v) == `"user"`
		case "isMeta":
			meta = jsonscan.Bool(v)
		case "message":
			_ = jsonscan.Fields(v, func(k, v []byte) bool {
				if string(k) != "content" {
					return true
				}
				if len(v) > 0 && v[0] == '"' {
					prompt = true
				} else if len(v) > 0 && v[0] == '[' {
					_ = jsonscan.Elements(v, func(el []byte) bool {
						_ = jsonscan.Fields(el, func(k, v []byte) bool {
							if string(k) == "type" {
								prompt = string(v) == `"text"`
								return false
							}
							return true
						})
						return false
					})
				}
				return false
			})
		}
		return true
	})
	return typeUser && prompt && !meta
}

// claudeFields are the fields of an assistant line this provider reads.
type claudeFields struct {
	typ, ts, reqID, msgID, model, cwdRaw, usage []byte
	steps                                       []Step
	// meta is a head's `"isMeta":true`.
	meta bool
	// side is `"isSidechain":true`.
	side bool
	// tokens holds the usage object's counts when the reader already read
	// them (tokensOK).
	tokens   usageTokens
	tokensOK bool
}

// assistant reads one assistant line: by its head and tail when the line
// has Claude Code's layout (message content is then only searched for tool
// uses, never walked), else by a full one-pass decode.
func (c Claude) assistant(st *FileState, carry *claudeCarry, line []byte) {
	head, msgAt, ok := headFields(line)
	if !ok {
		f, ok := assistantFull(line)
		if !ok {
			st.Skipped++
			return
		}
		c.record(st, carry, f)
		return
	}
	c.assistantAt(st, carry, line, head, msgAt)
}

// assistantAt is assistant after the head was read.
func (c Claude) assistantAt(st *FileState, carry *claudeCarry, line []byte, head claudeFields, msgAt int) {
	head.steps = carry.steps[:0] // a buffer: record copies the steps
	f, ok := assistantFastAt(line, head, msgAt)
	if f.steps != nil {
		carry.steps = f.steps[:0]
	}
	if !ok {
		f, ok = assistantFull(line)
		if !ok {
			st.Skipped++
			return
		}
	}
	c.record(st, carry, f)
}

var (
	needleToolUseBlock = []byte(`"type":"tool_use"`)
)

// assistantFast reads the fields before the message content from the
// line's head, the usage object and the fields after the message from its
// tail. ok is false when the line does not have that layout.
func assistantFast(line []byte) (claudeFields, bool) {
	head, msgAt, ok := headFields(line)
	if !ok {
		return head, false
	}
	return assistantFastAt(line, head, msgAt)
}

// assistantFastAt is assistantFast after the head: f holds the top-level
// fields before the message, whose value starts at msgAt.
func assistantFastAt(line []byte, f claudeFields, msgAt int) (claudeFields, bool) {
	contentAt := -1
	_, err := jsonscan.Walk(line, msgAt, func(k []byte, v int) (int, bool) {
		switch string(k) {
		case "content":
			contentAt = v
			return 0, false
		case "id", "model":
			e, err := jsonscan.ValueEnd(line, v)
			if err != nil {
				return 0, false
			}
			if string(k) == "id" {
				f.msgID = line[v:e]
			} else {
				f.model = line[v:e]
			}
			return e, true
		case "usage":
			return 0, false // usage before content: not the usual layout
		}
		return -1, true
	})
	if err != nil || contentAt < 0 {
		return f, false
	}
	// Tail: the last usage object must close the message, and the rest of
	// the line must be the top-level object's last fields.
	u := lastUsage(line)
	if u <= contentAt {
		return f, false
	}
	if p := bytes.TrimRight(line[contentAt:u], " \t\r\n"); len(p) == 0 || p[len(p)-1] != ',' {
		return f, false
	}
	us := u + len(needleUsage) - 1
	ue, ok := 0, false
	if f.tokens, ue, ok = readUsage(line, us); ok {
		f.tokensOK = true
	} else if ue, err = jsonscan.ValueEnd(line, us); err != nil {
		return f, false
	}
	f.usage = line[us:ue]
	// The message's remaining fields, then its end.
	rest := ue
	for {
		i := skipSpace(line, rest)
		if i >= len(line) {
			return f, false
		}
		if line[i] == '}' {
			rest = i + 1
			break
		}
		if line[i] != ',' {
			return f, false
		}
		end, ok := oneField(line, i+1, nil)
		if !ok {
			return f, false
		}
		rest = end
	}
	// Top-level fields after the message, to the end of the line.
	for {
		i := skipSpace(line, rest)
		if i >= len(line) {
			return f, false
		}
		if line[i] == '}' {
			if skipSpace(line, i+1) != len(line) {
				return f, false
			}
			break
		}
		if line[i] != ',' {
			return f, false
		}
		// Claude Code 2.1.81 and later write cwd, timestamp and sessionId
		// after the message.
		end, ok := oneField(line, i+1, func(k, v []byte) {
			switch string(k) {
			case "type":
				f.typ = v
			case "timestamp":
				f.ts = v
			case "requestId":
				f.reqID = v
			case "cwd":
				f.cwdRaw = v
			case "isSidechain":
				f.side = string(v) == "true"
			}
		})
		if !ok {
			return f, false
		}
		rest = end
	}
	// Tool uses: walk the content only when it has any.
	// Claude Code writes one content block per line, so the first bytes
	// decide (a text or thinking block first is taken as the only block:
	// tool uses only shape the savings analysis, never tokens or cost);
	// other layouts are searched.
	content := line[contentAt:u]
	var hasTool bool
	switch {
	case bytes.HasPrefix(content, []byte(`[{"type":"tool_use"`)):
		hasTool = true
	case bytes.HasPrefix(content, []byte(`[{"type":"text"`)), bytes.HasPrefix(content, []byte(`[{"type":"thinking"`)):
	default:
		hasTool = bytes.Contains(content, needleToolUseBlock)
	}
	if hasTool {
		d := jsonscan.Dec{B: line, I: contentAt}
		if d.Peek() == '[' {
			f.steps = contentSteps(&d, f.steps)
		}
		if d.Err != nil {
			return f, false
		}
	}
	return f, true
}

// lastUsage is bytes.LastIndex(line, needleUsage), found by the needle's
// last byte: '{' is rare near the end of a line, where the usage object
// sits, so the last kilobyte is searched forward for it first (bytes.LastIndex
// would hash every byte of the content before it).
func lastUsage(line []byte) int {
	n := len(needleUsage) - 1
	at := func(p int) bool { return p >= n && string(line[p-n:p]) == string(needleUsage[:n]) }
	from := max(0, len(line)-1024)
	last := -1
	for i := from; ; {
		j := bytes.IndexByte(line[i:], '{')
		if j < 0 {
			break
		}
		if at(i + j) {
			last = i + j - n
		}
		i += j + 1
	}
	if last >= 0 {
		return last
	}
	for end := from; ; {
		p := bytes.LastIndexByte(line[:end], '{')
		if p < 0 {
			return -1
		}
		if at(p) {
			return p - n
		}
		end = p
	}
}

// oneField reads `"key":value` at b[i] and returns the index past it.
func oneField(b []byte, i int, fn func(k, v []byte)) (int, bool) {
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	ke, err := jsonscan.ValueEnd(b, i)
	if err != nil {
		return 0, false
	}
	j := skipSpace(b, ke)
	if j >= len(b) || b[j] != ':' {
		return 0, false
	}
	vs := skipSpace(b, j+1)
	ve, err := jsonscan.ValueEnd(b, vs)
	if err != nil {
		return 0, false
	}
	if fn != nil {
		fn(b[i+1:ke-1], b[vs:ve])
	}
	return ve, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// assistantFull decodes an assistant line in one pass.
func assistantFull(line []byte) (claudeFields, bool) {
	var (
		typ, ts, reqID, msgID, model, cwdRaw, usage, data []byte
		stepList                                          []Step
		side                                              bool
	)
	d := jsonscan.Dec{B: line}
	d.Object(func(k []byte) {
		switch string(k) {
		case "isSidechain":
			side = string(d.Raw()) == "true"
		case "data":
			data = d.Raw()
		case "type":
			typ = d.Raw()
		case "timestamp":
			ts = d.Raw()
		case "requestId":
			reqID = d.Raw()
		case "cwd":
			cwdRaw = d.Raw()
		case "message":
			if d.Peek() != '{' {
				return
			}
			d.Object(func(k []byte) {
				switch string(k) {
				case "id":
					msgID = d.Raw()
				case "model":
					model = d.Raw()
				case "usage":
					usage = d.Raw()
				case "content":
					if d.Peek() == '[' {
						stepList = contentSteps(&d, nil)
					}
				}
			})
		}
	})
	if d.Err != nil || skipSpace(line, d.I) != len(line) {
		return claudeFields{}, false
	}
	if string(typ) == `"progress"` && data != nil {
		return progressFields(data, cwdRaw)
	}
	return claudeFields{typ: typ, ts: ts, reqID: reqID, msgID: msgID, model: model, cwdRaw: cwdRaw, usage: usage,
		steps: stepList, side: side}, true
}

// progressFields reads a sub-agent's response carried by an agent-progress
// line ({"type":"progress","data":{"message":{"type":"assistant",
// "timestamp":…,"requestId":…,"message":{…}}}}): the inner entry is an
// assistant line of its own; cwd is the outer line's.
func progressFields(data, cwdRaw []byte) (claudeFields, bool) {
	var inner []byte
	_ = jsonscan.Fields(data, func(k, v []byte) bool {
		if string(k) == "message" {
			inner = v
			return false
		}
		return true
	})
	if len(inner) == 0 || inner[0] != '{' {
		return claudeFields{}, true // progress without a response: nothing to count
	}
	f, ok := assistantFull(inner)
	if ok && f.cwdRaw == nil {
		f.cwdRaw = cwdRaw
	}
	return f, ok
}

// record turns an assistant line's fields into a call.
func (Claude) record(st *FileState, carry *claudeCarry, f claudeFields) {
	if string(f.typ) != `"assistant"` || f.usage == nil {
		return // e.g. a tool result whose payload carries a usage object
	}
	u := f.tokens
	if !f.tokensOK {
		var ok bool
		if u, ok = usageFields(f.usage); !ok {
			st.Skipped++
			return
		}
	}
	var call Call
	call.In, call.Out, call.CR = tok(u.in), tok(u.out), tok(u.cr)
	call.CW1h = tok(u.cw1h)
	switch {
	case u.cwTotal >= 0:
		call.CW5m = tok(u.cwTotal - u.cw1h)
	case u.cw5 >= 0:
		call.CW5m = tok(u.cw5)
	}
	switch {
	case len(f.msgID) > 2 && len(f.reqID) > 2:
		call.Key, call.sub = keyOf(f.msgID), subOf(f.side, f.reqID)
	case len(f.msgID) > 2:
		// No requestId (gateways, proxies): the message id within the
		// session, as ccusage does.
		call.Key, call.sub = keyOf(f.msgID), subOf(f.side, []byte("session"), []byte(st.Session))
	}
	if call.Key != 0 {
		// Another content block of the response just read, no larger: done.
		if n := len(st.Calls); n > 0 && call.sameRequest(&st.Calls[n-1]) && call.Total() <= st.Calls[n-1].Total() {
			st.extendLast(f.steps)
			return
		}
	}
	t, ok := parseTime(f.ts)
	if !ok {
		st.Skipped++
		return
	}
	call.Time, call.Turn = t, carry.turn
	if cwdRaw := f.cwdRaw; len(cwdRaw) >= 2 && (carry.cwd == "" || string(cwdRaw[1:len(cwdRaw)-1]) != carry.cwd) {
		if cwd, ok := jsonscan.String(cwdRaw); ok && cwd != "" {
			carry.cwd = cwd
			carry.name = baseName(cwd)
		}
	}
	if model := f.model; len(model) < 2 || string(model[1:len(model)-1]) != carry.model {
		if m, ok := jsonscan.String(model); ok {
			carry.model = m
		}
	}
	if carry.model == "<synthetic>" || carry.model == "" {
		return
	}
	model := carry.model
	if u.fast {
		model = carry.fastModel()
	}
	if carry.cwd != "" {
		call.Origin = st.origin("claude", carry.cwd, carry.name, st.Session, model)
	} else {
		call.Origin = st.origin("claude", st.Project, st.Project, st.Session, model)
	}
	st.add(call, f.steps)
}

// usageTokens are the counts of a usage object; cwTotal and cw5 are -1
// when absent.
type usageTokens struct {
	in, out, cr, cwTotal, cw5, cw1h int64
	// fast is `"speed":"fast"`: Claude Code's fast mode, billed at a
	// multiple of the model's rates.
	fast bool
}

// usageFields reads a usage object field by field; ok is false when it is
// not a well-formed object.
func usageFields(u []byte) (usageTokens, bool) {
	t := usageTokens{cwTotal: -1, cw5: -1}
	err := jsonscan.Fields(u, func(k, v []byte) bool {
		n, _ := jsonscan.Int(v)
		switch string(k) {
		case "input_tokens":
			t.in = n
		case "output_tokens":
			t.out = n
		case "cache_read_input_tokens":
			t.cr = n
		case "cache_creation_input_tokens":
			t.cwTotal = n
		case "speed":
			t.fast = string(v) == `"fast"`
		case "cache_creation":
			_ = jsonscan.Fields(v, func(k, v []byte) bool {
				switch string(k) {
				case "ephemeral_5m_input_tokens":
					t.cw5, _ = jsonscan.Int(v)
				case "ephemeral_1h_input_tokens":
					t.cw1h, _ = jsonscan.Int(v)
				}
				return true
			})
		}
		return true
	})
	return t, err == nil
}

// readUsage reads the usage object at b[i] in one pass, as usageFields
// would, and returns the index just past it. It takes only the layout
// Claude Code writes (no whitespace, counts as plain digits); ok is false
// for anything else, which usageFields then reads.
func readUsage(b []byte, i int) (t usageTokens, end int, ok bool) {
	t = usageTokens{cwTotal: -1, cw5: -1}
	if i >= len(b) || b[i] != '{' {
		return t, 0, false
	}
	i++
	if i < len(b) && b[i] == '}' {
		return t, i + 1, true
	}
	for {
		key, v, ok := plainKey(b, i)
		if !ok {
			return t, 0, false
		}
		var dst *int64
		switch string(key) {
		case "input_tokens":
			dst = &t.in
		case "output_tokens":
			dst = &t.out
		case "cache_read_input_tokens":
			dst = &t.cr
		case "cache_creation_input_tokens":
			dst = &t.cwTotal
		case "speed":
			t.fast = bytes.HasPrefix(b[v:], []byte(`"fast"`))
		case "cache_creation":
			if v >= len(b) || b[v] != '{' {
				dst = new(int64) // a count of 0, as Int reads a non-number
				break
			}
			j := v + 1
			if j < len(b) && b[j] == '}' {
				i = j + 1
				goto next
			}
			for {
				key, w, ok := plainKey(b, j)
				if !ok {
					return t, 0, false
				}
				n, e, ok := plainValue(b, w)
				if !ok {
					return t, 0, false
				}
				switch string(key) {
				case "ephemeral_5m_input_tokens":
					t.cw5 = n
				case "ephemeral_1h_input_tokens":
					t.cw1h = n
				}
				if e >= len(b) {
					return t, 0, false
				}
				j = e + 1
				if b[e] == '}' {
					break
				}
				if b[e] != ',' {
					return t, 0, false
				}
			}
			i = j
			goto next
		}
		if dst == nil {
			// Another field: skipped as usageFields skips it.
			e, err := jsonscan.ValueEnd(b, v)
			if err != nil || e == v || skipSpace(b, v) != v {
				return t, 0, false
			}
			i = e
		} else {
			n, e, ok := plainValue(b, v)
			if !ok {
				return t, 0, false
			}
			*dst = n
			i = e
		}
	next:
		if i >= len(b) {
			return t, 0, false
		}
		switch b[i] {
		case ',':
			i++
		case '}':
			return t, i + 1, true
		default:
			return t, 0, false
		}
	}
}

// plainKey reads `"key":` at b[i] (the key raw, as jsonscan.Fields gives
// it, and not ending in a backslash); v is where the value starts.
func plainKey(b []byte, i int) (key []byte, v int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	k := bytes.IndexByte(b[i+1:], '"')
	if k < 0 {
		return nil, 0, false
	}
	key = b[i+1 : i+1+k]
	v = i + k + 3
	if v > len(b) || b[v-1] != ':' || (k > 0 && key[k-1] == '\\') {
		return nil, 0, false
	}
	return key, v, true
}

// plainValue reads a scalar value at b[i]: a count of plain digits (n), or
// a string, null, true or false (n is 0, as Int reads them); e is the index
// past it. Objects, arrays and other numbers are not plain.
func plainValue(b []byte, i int) (n int64, e int, ok bool) {
	if i >= len(b) {
		return 0, 0, false
	}
	switch c := b[i]; {
	case c >= '0' && c <= '9':
		e = i
		for e < len(b) && b[e] >= '0' && b[e] <= '9' {
			e++
		}
		if e < len(b) && (b[e] == '.' || b[e] == 'e' || b[e] == 'E' || b[e] == '+' || b[e] == '-') {
			return 0, 0, false
		}
		n, _ = jsonscan.Int(b[i:e])
		return n, e, true
	case c == '"':
		e, err := jsonscan.ValueEnd(b, i)
		return 0, e, err == nil
	case c == 'n' || c == 't' || c == 'f':
		e, err := jsonscan.ValueEnd(b, i)
		return 0, e, err == nil
	}
	return 0, 0, false
}

// contentSteps reads a message's content array in one pass, appending its
// tool uses to out.
func contentSteps(d *jsonscan.Dec, out []Step) []Step {
	d.Array(func() {
		if d.Peek() != '{' {
			return
		}
		var typ, name, input []byte
		d.Object(func(k []byte) {
			switch string(k) {
			case "type":
				typ = d.Raw()
			case "name":
				name = d.Raw()
			case "input":
				input = d.Raw()
			}
		})
		if string(typ) == `"tool_use"` {
			out = append(out, toolStep(name, input))
		}
	})
	return out
}

// rawString is a raw JSON string's bytes when it has no escapes, without
// copying; else it is decoded.
func rawString(v []byte) []byte {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && bytes.IndexByte(v, '\\') < 0 {
		return v[1 : len(v)-1]
	}
	s, _ := jsonscan.String(v)
	return []byte(s)
}

// toolStep classifies one tool use by its name and input.
func toolStep(name, input []byte) Step {
	s := Step{Kind: StepOther}
	switch string(rawString(name)) {
	case "Edit", "MultiEdit", "Write", "NotebookEdit":
		s.Kind = StepEdit
		_ = jsonscan.Fields(input, func(k, v []byte) bool {
			if string(k) == "file_path" || string(k) == "notebook_path" {
				s.File = fnv64(v)
				return false
			}
			return true
		})
	case "Read", "Grep", "Glob", "LS", "WebFetch", "WebSearch", "TodoWrite":
		s.Kind = StepRead
	case "Task", "Agent":
		s.Kind = StepDelegate
	case "Bash":
		s.Kind = StepShell
		_ = jsonscan.Fields(input, func(k, v []byte) bool {
			if string(k) == "command" {
				s.Kind = shellKind(rawString(v))
				return false
			}
			return true
		})
	}
	return s
}

// shellKind is ShellKind without copying an ASCII command.
func shellKind(cmd []byte) StepKind {
	for _, c := range cmd {
		if c >= utf8.RuneSelf {
			return ShellKind(string(cmd))
		}
	}
	// ASCII: strings.Fields splits at these bytes.
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' }
	word := func(i int) (w []byte, next int) {
		for i < len(cmd) && isSpace(cmd[i]) {
			i++
		}
		j := i
		for j < len(cmd) && !isSpace(cmd[j]) {
			j++
		}
		return cmd[i:j], j
	}
	first, i := word(0)
	if len(first) == 0 {
		return StepShell
	}
	switch string(first) {
	case "ls", "cat", "head", "tail", "grep", "rg", "find", "pwd", "echo", "wc", "which", "tree", "less", "file", "stat", "du", "df":
		return StepShellRead
	case "go", "npm", "pnpm", "yarn", "cargo", "pytest", "make", "bun", "deno":
		for {
			var w []byte
			if w, i = word(i); len(w) == 0 {
				break
			}
			if bytes.HasPrefix(w, []byte("test")) || string(w) == "vet" {
				return StepTest
			}
		}
	case "git":
		if w, _ := word(i); len(w) > 0 {
			switch string(w) {
			case "status", "diff", "log", "show", "branch", "blame":
				return StepShellRead
			}
		}
		return StepGit
	}
	if bytes.Contains(cmd, []byte("pytest")) || bytes.Contains(cmd, []byte("jest")) || bytes.Contains(cmd, []byte("vitest")) {
		return StepTest
	}
	return StepShell
}

// ShellKind classifies a shell command by its first word(s).
func ShellKind(cmd string) StepKind {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return StepShell
	}
	switch f[0] {
	case "ls", "cat", "head", "tail", "grep", "rg", "find", "pwd", "echo", "wc", "which", "tree", "less", "file", "stat", "du", "df":
		return StepShellRead
	case "go", "npm", "pnpm", "yarn", "cargo", "pytest", "make", "bun", "deno":
		for _, w := range f[1:] {
			if w == "test" || w == "vet" || strings.HasPrefix(w, "test") {
				return StepTest
			}
		}
	case "git":
		if len(f) > 1 {
			switch f[1] {
			case "status", "diff", "log", "show", "branch", "blame":
				return StepShellRead
			}
		}
		return StepGit
	}
	if strings.Contains(cmd, "pytest") || strings.Contains(cmd, "jest") || strings.Contains(cmd, "vitest") {
		return StepTest
	}
	return StepShell
}

// parseTime reads a raw JSON RFC 3339 timestamp into Unix milliseconds;
// the UTC form logs use ("2026-06-01T10:00:00.000Z") is read directly.
func parseTime(v []byte) (int64, bool) {
	if ms, ok := parseUTC(v); ok {
		return ms, true
	}
	s, ok := jsonscan.String(v)
	if !ok {
		return 0, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, false
	}
	return t.UnixMilli(), true
}

// parseUTC reads "YYYY-MM-DDTHH:MM:SS[.fff…]Z" (quoted); ok is false for
// any other form.
func parseUTC(v []byte) (int64, bool) {
	if len(v) < 22 || v[0] != '"' || v[len(v)-2] != 'Z' || v[len(v)-1] != '"' {
		return 0, false
	}
	b := v[1 : len(v)-2]
	if len(b) < 19 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return 0, false
	}
	num := func(s []byte) (int, bool) {
		n := 0
		for _, c := range s {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	y, ok1 := num(b[0:4])
	mo, ok2 := num(b[5:7])
	d, ok3 := num(b[8:10])
	h, ok4 := num(b[11:13])
	mi, ok5 := num(b[14:16])
	sec, ok6 := num(b[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 {
		return 0, false
	}
	ms := 0
	if frac := b[19:]; len(frac) > 0 {
		if frac[0] != '.' || len(frac) < 2 {
			return 0, false
		}
		digits := frac[1:]
		for i := 0; i < 3; i++ {
			ms *= 10
			if i < len(digits) {
				c := digits[i]
				if c < '0' || c > '9' {
					return 0, false
				}
				ms += int(c - '0')
			}
		}
		for _, c := range digits {
			if c < '0' || c > '9' {
				return 0, false
			}
		}
	}
	// Days from the civil date (Howard Hinnant's algorithm).
	yy := y
	if mo <= 2 {
		yy--
	}
	era := yy / 400
	yoe := yy - era*400
	mp := (mo + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	days := int64(era*146097+doe) - 719468
	return ((days*24+int64(h))*60+int64(mi))*60000 + int64(sec)*1000 + int64(ms), true
}
