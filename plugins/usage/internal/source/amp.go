package source

import (
	"context"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Amp reads Amp's threads: ${AMP_DATA_DIR:-~/.local/share/amp}/threads/
// T-<uuid>.json, one JSON document a thread, rewritten as it grows. Usage
// is the thread's usageLedger.events[] (model, timestamp, tokens.input,
// .output, .total), with the cache writes and reads of the assistant
// message each event names (toMessageId → messages[].usage); a thread
// without a ledger (the current schema) bills each assistant message's
// usage (model, timestamp, inputTokens, outputTokens,
// cacheCreationInputTokens, cacheReadInputTokens, totalTokens). The layout
// and fields are those ccusage 20's adapter/amp reads (its README.md,
// paths.rs and parser.rs with their fixtures); Amp itself is closed source.
type Amp struct{}

var _ Provider = Amp{}

// Name returns "amp".
func (Amp) Name() string { return "amp" }

// Discover lists each root's threads/**/*.json.
func (Amp) Discover(env Env) (Discovery, error) {
	var threads []string
	for _, r := range rootsOr(env, "AMP_DATA_DIR", ".local", "share", "amp") {
		threads = append(threads, filepath.Join(r, "threads"))
	}
	var dsc Discovery
	walkRoots(&dsc, threads, walkOptions{}, func(_, p string, d fs.DirEntry) {
		if name := d.Name(); strings.HasSuffix(name, ".json") {
			dsc.Sources = append(dsc.Sources, Source{Path: p, Session: strings.TrimSuffix(name, ".json")})
		}
	})
	return dsc, nil
}

// ampUsage is an assistant message's usage.
type ampUsage struct {
	Model      string `json:"model"`
	Timestamp  string `json:"timestamp"`
	Input      int64  `json:"inputTokens"`
	Output     int64  `json:"outputTokens"`
	CacheWrite int64  `json:"cacheCreationInputTokens"`
	CacheRead  int64  `json:"cacheReadInputTokens"`
	Total      int64  `json:"totalTokens"`
}

type ampThread struct {
	ID          string `json:"id"`
	UsageLedger *struct {
		Events []struct {
			ID          json.RawMessage `json:"id"`
			Timestamp   string          `json:"timestamp"`
			Model       string          `json:"model"`
			ToMessageID *int64          `json:"toMessageId"`
			Tokens      *struct {
				Input  int64 `json:"input"`
				Output int64 `json:"output"`
				Total  int64 `json:"total"`
			} `json:"tokens"`
		} `json:"events"`
	} `json:"usageLedger"`
	Messages []struct {
		Role      string          `json:"role"`
		MessageID json.RawMessage `json:"messageId"`
		Timestamp string          `json:"timestamp"`
		Model     string          `json:"model"`
		Usage     *ampUsage       `json:"usage"`
	} `json:"messages"`
}

// Parse reads a thread whole. Tokens a total names beyond the parts are
// billed as output.
func (Amp) Parse(_ context.Context, st *FileState) error {
	b, err := readWhole(st)
	if b == nil {
		return err
	}
	var th ampThread
	if err := json.Unmarshal(b, &th); err != nil {
		st.Skipped++
		return nil
	}
	if th.ID == "" {
		return nil
	}
	add := func(ts, model, id string, in, out, cw, cr, total int64) {
		st.Lines++
		t, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil || model == "" {
			st.Skipped++
			return
		}
		out += max(total-(in+out+cw+cr), 0)
		if in == 0 && out == 0 && cw == 0 && cr == 0 {
			return
		}
		c := Call{Time: t.UnixMilli(), Origin: st.origin("amp", "", "", th.ID, model),
			Key: keyOf([]byte("amp"), []byte(th.ID), []byte(id)),
			In:  tok(in), Out: tok(out), CW5m: tok(cw), CR: tok(cr)}
		st.add(c, nil)
	}
	if th.UsageLedger != nil && th.UsageLedger.Events != nil {
		cache := map[string]*ampUsage{}
		for _, m := range th.Messages {
			if m.Role == "assistant" && m.Usage != nil {
				cache[string(m.MessageID)] = m.Usage
			}
		}
		for i, e := range th.UsageLedger.Events {
			if e.Tokens == nil {
				continue
			}
			var cw, cr int64
			if e.ToMessageID != nil {
				if u := cache[strconv.FormatInt(*e.ToMessageID, 10)]; u != nil {
					cw, cr = u.CacheWrite, u.CacheRead
				}
			}
			id := string(e.ID)
			if id == "" {
				id = "#" + strconv.Itoa(i)
			}
			add(e.Timestamp, e.Model, "event:"+id, e.Tokens.Input, e.Tokens.Output, cw, cr, e.Tokens.Total)
		}
		return nil
	}
	for i, m := range th.Messages {
		if m.Role != "assistant" || m.Usage == nil {
			continue
		}
		u := m.Usage
		ts, model := u.Timestamp, u.Model
		if ts == "" {
			ts = m.Timestamp
		}
		if model == "" {
			model = m.Model
		}
		id := string(m.MessageID)
		if id == "" {
			id = "#" + strconv.Itoa(i)
		}
		add(ts, model, "message:"+id, u.Input, u.Output, u.CacheWrite, u.CacheRead, u.Total)
	}
	return nil
}
