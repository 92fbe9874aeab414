package source

import (
	"bytes"
	"context"
	"io/fs"
	"path/filepath"
	"strings"

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
	for _, d := range dirs {
		if filepath.Base(d) != "projects" {
			d = filepath.Join(d, "projects")
		}
		dsc.LookedIn = append(dsc.LookedIn, d)
	}
	seen := map[string]bool{}
	var l listing
	for _, d := range dirs {
		p := d
		if filepath.Base(p) != "projects" {
			p = filepath.Join(d, "projects")
		}
		ok, err := isDir(p)
		if err != nil {
			l.fail(err)
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
		projects, ok := l.list(&dsc, p)
		if !ok {
			continue
		}
		for _, pe := range projects {
			if !l.isDir(p, pe) {
				continue
			}
			pdir := filepath.Join(p, pe.Name())
			entries, ok := l.list(&dsc, pdir)
			if !ok {
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
					agents, ok := l.optional(&dsc, sub)
					if !ok {
						continue
					}
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
	l.report(&dsc, "a Claude Code projects/ folder", "sessions")
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
		}
		e, err := jsonscan.ValueEnd(line, v)
		if err != nil {
			return 0, false
		}
		f.setTop(k, line[v:e])
		return e, true
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
