package source

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolhost/toolhost/plugins/usage/internal/jsonscan"
)

// Claude reads Claude Code's projects/<encoded-cwd>/<session>.jsonl files
// and their <session>/subagents/agent-*.jsonl sub-agent logs.
type Claude struct{}

var _ Provider = Claude{}

// Name returns "claude".
func (Claude) Name() string { return "claude" }

// Discover finds the projects folders: each CLAUDE_CONFIG_DIR entry (the
// config dir or its projects/), else ~/.config/claude and ~/.claude.
func (Claude) Discover(env Env) ([]Source, bool, error) {
	var dirs []string
	if v := env("CLAUDE_CONFIG_DIR"); v != "" {
		dirs = roots(v)
	} else if h := env.Home(); h != "" {
		dirs = []string{filepath.Join(h, ".config", "claude"), filepath.Join(h, ".claude")}
	}
	var out []Source
	found := false
	seen := map[string]bool{}
	for _, d := range dirs {
		p := d
		if filepath.Base(p) != "projects" {
			p = filepath.Join(d, "projects")
		}
		ok, err := isDir(p)
		if err != nil {
			return out, true, err
		}
		if !ok || seen[p] {
			continue
		}
		seen[p] = true
		found = true
		projects, err := os.ReadDir(p)
		if err != nil {
			return out, true, err
		}
		for _, pe := range projects {
			if !pe.IsDir() {
				continue
			}
			pdir := filepath.Join(p, pe.Name())
			entries, err := os.ReadDir(pdir)
			if err != nil {
				return out, true, err
			}
			for _, e := range entries {
				name := e.Name()
				switch {
				case !e.IsDir() && strings.HasSuffix(name, ".jsonl"):
					out = append(out, Source{Path: filepath.Join(pdir, name), Appendable: true,
						Session: strings.TrimSuffix(name, ".jsonl"), Project: pe.Name()})
				case e.IsDir():
					sub := filepath.Join(pdir, name, "subagents")
					agents, err := os.ReadDir(sub)
					if err != nil {
						continue
					}
					for _, a := range agents {
						if !a.IsDir() && strings.HasSuffix(a.Name(), ".jsonl") {
							out = append(out, Source{Path: filepath.Join(sub, a.Name()), Appendable: true,
								Session: name, Project: pe.Name()})
						}
					}
				}
			}
		}
	}
	return out, found, nil
}

type claudeCarry struct {
	turn    uint32
	cwd     string
	name    string
	model   string
	lastKey string
}

var (
	needleUsage    = []byte(`"usage":{`)
	needleUser     = []byte(`"type":"user"`)
	needleToolUse  = []byte(`"tool_use"`)
	userPrefixScan = 4096
)

// Parse reads appended lines of one Claude Code log.
func (c Claude) Parse(ctx context.Context, st *FileState) error {
	carry, _ := st.Carry.(*claudeCarry)
	if carry == nil {
		carry = &claudeCarry{}
		st.Carry = carry
	}
	return readLines(ctx, st, func(line []byte) {
		if bytes.Contains(line, needleUsage) {
			c.assistant(st, carry, line)
			return
		}
		head := line
		if len(head) > userPrefixScan {
			head = head[:userPrefixScan]
		}
		if bytes.Contains(head, needleUser) && isPrompt(line) {
			carry.turn++
		}
	})
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

func (Claude) assistant(st *FileState, carry *claudeCarry, line []byte) {
	var (
		typ, ts, reqID, msgID, model []byte
		cwd                          string
		usage, content               []byte
	)
	err := jsonscan.Fields(line, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			typ = v
		case "timestamp":
			ts = v
		case "requestId":
			reqID = v
		case "cwd":
			if len(v) < 2 || carry.cwd == "" || string(v[1:len(v)-1]) != carry.cwd {
				cwd, _ = jsonscan.String(v)
			}
		case "message":
			return jsonscan.Fields(v, func(k, v []byte) bool {
				switch string(k) {
				case "id":
					msgID = v
				case "model":
					model = v
				case "usage":
					usage = v
				case "content":
					content = v
				}
				return true
			}) == nil
		}
		return true
	})
	if err != nil {
		st.Skipped++
		return
	}
	if string(typ) != `"assistant"` || usage == nil {
		return // e.g. a tool result whose payload carries a usage object
	}
	t, ok := parseTime(ts)
	if !ok {
		st.Skipped++
		return
	}
	if cwd != "" {
		carry.cwd = cwd
		carry.name = baseName(cwd)
	}
	call := Call{Provider: "claude", Time: t, Session: st.Session, Turn: uint64(st.ID)<<32 | uint64(carry.turn)}
	if carry.cwd != "" {
		call.Project, call.Name = carry.cwd, carry.name
	} else {
		call.Project, call.Name = st.Project, st.Project
	}
	if m, ok := jsonscan.String(model); ok {
		if m != carry.model {
			carry.model = m
		}
		call.Model = carry.model
	}
	if call.Model == "<synthetic>" || call.Model == "" {
		return
	}
	if len(msgID) > 2 && len(reqID) > 2 {
		k := make([]byte, 0, len(msgID)+len(reqID))
		k = append(append(append(k, msgID[1:len(msgID)-1]...), ':'), reqID[1:len(reqID)-1]...)
		if string(k) == carry.lastKey {
			call.Key = carry.lastKey
		} else {
			call.Key = string(k)
			carry.lastKey = call.Key
		}
	}
	var cwTotal, cw5, cw1h int64 = -1, -1, 0
	if jsonscan.Fields(usage, func(k, v []byte) bool {
		switch string(k) {
		case "input_tokens":
			call.Tokens.Input, _ = jsonscan.Int(v)
		case "output_tokens":
			call.Tokens.Output, _ = jsonscan.Int(v)
		case "cache_read_input_tokens":
			call.Tokens.CacheRead, _ = jsonscan.Int(v)
		case "cache_creation_input_tokens":
			cwTotal, _ = jsonscan.Int(v)
		case "cache_creation":
			_ = jsonscan.Fields(v, func(k, v []byte) bool {
				switch string(k) {
				case "ephemeral_5m_input_tokens":
					cw5, _ = jsonscan.Int(v)
				case "ephemeral_1h_input_tokens":
					cw1h, _ = jsonscan.Int(v)
				}
				return true
			})
		}
		return true
	}) != nil {
		st.Skipped++
		return
	}
	call.Tokens.CacheWrite1h = cw1h
	switch {
	case cwTotal >= 0:
		call.Tokens.CacheWrite5m = max(cwTotal-cw1h, 0)
	case cw5 >= 0:
		call.Tokens.CacheWrite5m = cw5
	}
	if content != nil && bytes.Contains(content, needleToolUse) {
		call.Steps = steps(content)
	}
	st.Calls = append(st.Calls, call)
}

// steps lists the tool uses of a Claude message's content array.
func steps(content []byte) []Step {
	var out []Step
	_ = jsonscan.Elements(content, func(el []byte) bool {
		var typ, name, input []byte
		_ = jsonscan.Fields(el, func(k, v []byte) bool {
			switch string(k) {
			case "type":
				typ = v
			case "name":
				name = v
			case "input":
				input = v
			}
			return true
		})
		if string(typ) != `"tool_use"` {
			return true
		}
		n, _ := jsonscan.String(name)
		s := Step{Kind: StepOther}
		switch n {
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
					cmd, _ := jsonscan.String(v)
					s.Kind = ShellKind(cmd)
					return false
				}
				return true
			})
		}
		out = append(out, s)
		return true
	})
	return out
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

// parseTime reads a raw JSON RFC 3339 timestamp into Unix milliseconds.
func parseTime(v []byte) (int64, bool) {
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
