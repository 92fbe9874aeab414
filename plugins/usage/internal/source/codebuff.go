package source

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Codebuff reads Codebuff's (formerly Manicode's) saved chats:
// ${CODEBUFF_DATA_DIR} (comma list), else ~/.config/manicode,
// manicode-dev and manicode-staging, each with projects/<project>/chats/
// <chat>/chat-messages.json, a JSON array of the chat's messages. An
// assistant message (variant "ai" or "assistant") carries metadata.model
// and metadata.usage (inputTokens or promptTokens, outputTokens or
// completionTokens, cacheReadInputTokens, cacheCreationInputTokens), or an
// OpenAI-style metadata.codebuff.usage (prompt_tokens, which includes
// prompt_tokens_details.cached_tokens, completion_tokens). The places,
// fields and rules are those ccusage 20.0.24's adapters/codebuff reads (its
// answers on such files).
type Codebuff struct{}

var _ Provider = Codebuff{}

// Name returns "codebuff".
func (Codebuff) Name() string { return "codebuff" }

// Discover walks each root's projects folder for chat-messages.json.
func (Codebuff) Discover(env Env) (Discovery, error) {
	var rootDirs []string
	if v := env("CODEBUFF_DATA_DIR"); v != "" {
		rootDirs = roots(v)
	} else if h := env.Home(); h != "" {
		for _, d := range []string{"manicode", "manicode-dev", "manicode-staging"} {
			rootDirs = append(rootDirs, filepath.Join(h, ".config", d))
		}
	}
	var projects []string
	for _, r := range rootDirs {
		if filepath.Base(r) != "projects" {
			r = filepath.Join(r, "projects")
		}
		projects = append(projects, r)
	}
	var dsc Discovery
	list := walkOptions{Problem: func(_, _ string, err error) error {
		return fmt.Errorf("list Codebuff's projects folder: %w", err)
	}}
	walkRoots(&dsc, projects, list, func(root, p string, d fs.DirEntry) {
		if d.Name() != "chat-messages.json" {
			return
		}
		chat := filepath.Dir(p)
		project := ""
		if rel, err := filepath.Rel(root, chat); err == nil {
			project, _, _ = strings.Cut(filepath.ToSlash(rel), "/")
		}
		dsc.Sources = append(dsc.Sources, Source{Path: p, Session: filepath.Base(chat), Project: project})
	})
	return dsc, nil
}

type codebuffMessage struct {
	ID        string          `json:"id"`
	Variant   string          `json:"variant"`
	Timestamp json.RawMessage `json:"timestamp"`
	Metadata  struct {
		Model string `json:"model"`
		Usage *struct {
			Input      lenientInt `json:"inputTokens"`
			Prompt     lenientInt `json:"promptTokens"`
			Output     lenientInt `json:"outputTokens"`
			Completion lenientInt `json:"completionTokens"`
			CacheRead  lenientInt `json:"cacheReadInputTokens"`
			CacheWrite lenientInt `json:"cacheCreationInputTokens"`
		} `json:"usage"`
		Codebuff struct {
			Usage *struct {
				Prompt     lenientInt `json:"prompt_tokens"`
				Completion lenientInt `json:"completion_tokens"`
				Details    struct {
					Cached lenientInt `json:"cached_tokens"`
				} `json:"prompt_tokens_details"`
			} `json:"usage"`
		} `json:"codebuff"`
	} `json:"metadata"`
}

// codebuffTime reads a message's timestamp: RFC 3339 or Unix ms.
func codebuffTime(raw json.RawMessage) (int64, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UnixMilli(), true
		}
		return 0, false
	}
	if n, err := strconv.ParseFloat(string(raw), 64); err == nil && n > 0 {
		return int64(n), true
	}
	return 0, false
}

// Parse reads the file whole (Codebuff rewrites it): each assistant message
// with usage is a call at its timestamp, else the time the chat's folder is
// named for; its model is metadata.model, else "codebuff-unknown". Input
// is inputTokens as logged (Anthropic's, without the cache), or OpenAI's
// prompt_tokens less the cached part it includes. A message id seen twice
// counts once.
func (Codebuff) Parse(ctx context.Context, st *FileState) error {
	b, err := readWhole(st)
	if err != nil || b == nil {
		return err
	}
	var msgs []codebuffMessage
	if err := json.Unmarshal(b, &msgs); err != nil {
		st.Skipped++
		return nil
	}
	chatTime, chatOK := time.Parse("2006-01-02T15-04-05.000Z", st.Session)
	for i, m := range msgs {
		st.Lines++
		if m.Variant != "ai" && m.Variant != "assistant" {
			continue
		}
		var in, out, cr, cw int64
		switch u, o := m.Metadata.Usage, m.Metadata.Codebuff.Usage; {
		case u != nil:
			in, out = int64(u.Input), int64(u.Output)
			if in == 0 {
				in = int64(u.Prompt)
			}
			if out == 0 {
				out = int64(u.Completion)
			}
			cr, cw = int64(u.CacheRead), int64(u.CacheWrite)
		case o != nil:
			cr = max(int64(o.Details.Cached), 0)
			in, out = int64(o.Prompt)-cr, int64(o.Completion)
		default:
			continue
		}
		in, out, cr, cw = max(in, 0), max(out, 0), max(cr, 0), max(cw, 0)
		if in+out+cr+cw == 0 {
			continue
		}
		t, ok := codebuffTime(m.Timestamp)
		if !ok {
			if chatOK != nil {
				st.Skipped++
				continue
			}
			t = chatTime.UnixMilli()
		}
		model := strings.TrimSpace(m.Metadata.Model)
		if model == "" {
			model = "codebuff-unknown"
		}
		key := keyOf([]byte("codebuff"), []byte(m.ID))
		if m.ID == "" {
			key = keyOf([]byte("codebuff"), []byte(st.Path), []byte(strconv.Itoa(i)))
		}
		st.add(Call{Time: t, Origin: st.origin("codebuff", st.Project, st.Project, st.Session, model),
			Key: key, In: tok(in), Out: tok(out), CW5m: tok(cw), CR: tok(cr)}, nil)
	}
	return nil
}
