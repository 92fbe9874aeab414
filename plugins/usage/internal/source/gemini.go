package source

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Gemini reads Gemini CLI's recorded chats:
// ${USAGE_GEMINI_DIR:-~/.gemini}/tmp/<project-hash>/chats/session-*.json
// (one JSON document) or .jsonl (one message per line).
type Gemini struct{}

var _ Provider = Gemini{}

// Name returns "gemini".
func (Gemini) Name() string { return "gemini" }

// Discover lists the chat files: chats/session-*.json(l) of each project
// and the sub-agent chats Gemini CLI records beside them,
// chats/<parentSessionId>/<id>.json(l), which roll into the parent
// session. A folder that cannot be listed is counted in Problems and the
// rest is still found.
func (Gemini) Discover(env Env) (Discovery, error) {
	dir := env.Dir("USAGE_GEMINI_DIR", ".gemini")
	var dsc Discovery
	if dir == "" {
		return dsc, nil
	}
	tmp := filepath.Join(dir, "tmp")
	dsc.LookedIn = []string{tmp}
	ok, err := isDir(tmp)
	if err != nil || !ok {
		return dsc, err
	}
	if real, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = real
	}
	dsc.Found = true
	dsc.Dirs = append(dsc.Dirs, tmp)
	projects, err := os.ReadDir(tmp)
	if err != nil {
		return dsc, err
	}
	var l listing
	add := func(dir, name, project, session string) {
		switch {
		case strings.HasSuffix(name, ".json"):
			dsc.Sources = append(dsc.Sources, Source{Path: filepath.Join(dir, name), Project: project, Session: session})
		case strings.HasSuffix(name, ".jsonl"):
			dsc.Sources = append(dsc.Sources, Source{Path: filepath.Join(dir, name), Appendable: true, Project: project, Session: session})
		}
	}
	for _, p := range projects {
		if !l.isDir(tmp, p) {
			continue
		}
		dsc.Dirs = append(dsc.Dirs, filepath.Join(tmp, p.Name()))
		chats := filepath.Join(tmp, p.Name(), "chats")
		files, ok := l.optional(&dsc, chats)
		if !ok {
			continue
		}
		for _, f := range files {
			n := f.Name()
			if f.IsDir() {
				// Sub-agent chats of session n.
				sub := filepath.Join(chats, n)
				agents, err := os.ReadDir(sub)
				if err != nil {
					l.fail(err)
					continue
				}
				dsc.Dirs = append(dsc.Dirs, sub)
				for _, a := range agents {
					if !a.IsDir() {
						add(sub, a.Name(), p.Name(), n)
					}
				}
				continue
			}
			if strings.HasPrefix(n, "session-") {
				add(chats, n, p.Name(), "")
			}
		}
	}
	l.report(&dsc, "Gemini CLI's tmp/", "chats")
	return dsc, nil
}

// geminiMessage is the part of one recorded message this provider reads.
type geminiMessage struct {
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Model     string `json:"model"`
	Tokens    *struct {
		Input    int64 `json:"input"`
		Output   int64 `json:"output"`
		Cached   int64 `json:"cached"`
		Thoughts int64 `json:"thoughts"`
		Tool     int64 `json:"tool"`
	} `json:"tokens"`
	ToolCalls []struct {
		Name string `json:"name"`
		Args struct {
			FilePath string `json:"file_path"`
			Command  string `json:"command"`
		} `json:"args"`
	} `json:"toolCalls"`
}

// geminiCarry is a JSONL chat's state between appended reads.
type geminiCarry struct {
	session string
	turn    uint32
}

// steps classifies the message's tool calls (gemini-cli's tool names:
// packages/core/src/tools/*.ts).
func (m *geminiMessage) steps() []Step {
	var out []Step
	for _, tc := range m.ToolCalls {
		s := Step{Kind: StepOther}
		switch tc.Name {
		case "replace", "write_file", "edit", "smart_edit":
			s = Step{Kind: StepEdit, File: fnv64([]byte(tc.Args.FilePath))}
		case "read_file", "read_many_files", "list_directory", "glob", "search_file_content", "grep", "web_fetch", "google_web_search":
			s.Kind = StepRead
		case "run_shell_command":
			s.Kind = ShellKind(tc.Args.Command)
		case "delegate_to_agent", "codebase_investigator":
			s.Kind = StepDelegate
		}
		out = append(out, s)
	}
	return out
}

type geminiChat struct {
	SessionID   string          `json:"sessionId"`
	ProjectHash string          `json:"projectHash"`
	Messages    []geminiMessage `json:"messages"`
}

// Parse reads a chat file. Gemini's input count includes cached input (moved
// to the cache-read bucket) and its thoughts are billed as output; tool-use
// prompt tokens count as input.
func (g Gemini) Parse(ctx context.Context, st *FileState) error {
	if !st.Appendable {
		b, err := readWhole(st)
		if b == nil {
			return err
		}
		var chat geminiChat
		if err := json.Unmarshal(b, &chat); err != nil {
			st.Skipped++
			return fmt.Errorf("malformed chat: %w", err)
		}
		st.Lines += int64(len(chat.Messages))
		session := chat.SessionID
		if st.Session != "" {
			session = st.Session // a sub-agent's chat: its parent's session
		}
		var turn uint32
		for _, m := range chat.Messages {
			g.add(st, session, &turn, m)
		}
		return nil
	}
	carry, _ := st.Carry.(*geminiCarry)
	if carry == nil {
		carry = &geminiCarry{}
		st.Carry = carry
	}
	if st.Session != "" {
		carry.session = st.Session
	}
	return readLines(ctx, st, func(line []byte) {
		var m struct {
			geminiMessage
			SessionID string `json:"sessionId"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			st.Skipped++
			return
		}
		if m.SessionID != "" && carry.session == "" {
			carry.session = m.SessionID
		}
		g.add(st, carry.session, &carry.turn, m.geminiMessage)
	})
}

// add records a model response; a user message opens a turn.
func (Gemini) add(st *FileState, session string, turn *uint32, m geminiMessage) {
	if m.Type == "user" {
		*turn++
		return
	}
	if m.Type != "gemini" || m.Tokens == nil {
		return
	}
	t, err := time.Parse(time.RFC3339Nano, m.Timestamp)
	if err != nil {
		st.Skipped++
		return
	}
	if session == "" {
		session = st.Path
	}
	c := Call{Time: t.UnixMilli(), Origin: st.origin("gemini", st.Project, st.Project, session, m.Model), Turn: *turn}
	if m.ID != "" {
		c.Key = keyOf([]byte("gemini"), []byte(session), []byte(m.ID))
	}
	c.CR = tok(m.Tokens.Cached)
	c.In = tok(max(m.Tokens.Input-m.Tokens.Cached, 0) + m.Tokens.Tool)
	c.Out = tok(m.Tokens.Output + m.Tokens.Thoughts)
	st.add(c, m.steps())
}
