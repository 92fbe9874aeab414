package source

import (
	"bytes"

	"github.com/toolhost/toolhost/plugins/usage/internal/jsonscan"
)

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

// setTop keeps v, the raw value of the top-level field k of an assistant
// line, when it is one claudeFields holds, and reports whether it was:
// the one list of those fields for all three readers (the head, the tail
// after the message, the full decode).
func (f *claudeFields) setTop(k, v []byte) bool {
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
	default:
		return false
	}
	return true
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
		end, ok := oneField(line, i+1, func(k, v []byte) { f.setTop(k, v) })
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
		f    claudeFields
		data []byte
	)
	d := jsonscan.Dec{B: line}
	d.Object(func(k []byte) {
		switch string(k) {
		case "data":
			data = d.Raw()
		case "message":
			if d.Peek() != '{' {
				return
			}
			d.Object(func(k []byte) {
				switch string(k) {
				case "id":
					f.msgID = d.Raw()
				case "model":
					f.model = d.Raw()
				case "usage":
					f.usage = d.Raw()
				case "content":
					if d.Peek() == '[' {
						f.steps = contentSteps(&d, nil)
					}
				}
			})
		default:
			f.setTop(k, d.Raw())
		}
	})
	if d.Err != nil || skipSpace(line, d.I) != len(line) {
		return claudeFields{}, false
	}
	if string(f.typ) == `"progress"` && data != nil {
		return progressFields(data, f.cwdRaw)
	}
	return f, true
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
