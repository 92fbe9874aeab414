package source

import (
	"bufio"
	"context"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolhost/toolhost/plugins/usage/internal/regular"
)

// Droid reads Factory's Droid sessions: each <session>.settings.json under
// ${DROID_SESSIONS_DIR:-~/.factory/sessions} (any depth) holds the
// session's cumulative tokenUsage, its model and providerLockTimestamp;
// the <session>.jsonl beside it names the model when the settings do not
// ("Model: …"). The layout and fields are those ccusage 20's adapter/droid
// reads (its parser.rs and loader.rs, and their fixtures).
type Droid struct{}

var _ Provider = Droid{}

// Name returns "droid".
func (Droid) Name() string { return "droid" }

// Discover walks each root for *.settings.json.
func (Droid) Discover(env Env) (Discovery, error) {
	rootDirs := rootsOr(env, "DROID_SESSIONS_DIR", ".factory", "sessions")
	var dsc Discovery
	walkRoots(&dsc, rootDirs, walkOptions{}, func(root, p string, d fs.DirEntry) {
		if name := d.Name(); strings.HasSuffix(name, ".settings.json") {
			project := ""
			if dir := filepath.Dir(p); dir != root {
				project = filepath.Base(dir)
			}
			dsc.Sources = append(dsc.Sources, Source{Path: p, Session: strings.TrimSuffix(name, ".settings.json"), Project: project})
		}
	})
	return dsc, nil
}

type droidSettings struct {
	Model          string `json:"model"`
	ProviderLock   string `json:"providerLock"`
	ProviderLockAt string `json:"providerLockTimestamp"`
	TokenUsage     *struct {
		Input      int64 `json:"inputTokens"`
		Output     int64 `json:"outputTokens"`
		CacheWrite int64 `json:"cacheCreationTokens"`
		CacheRead  int64 `json:"cacheReadTokens"`
		Thinking   int64 `json:"thinkingTokens"`
		Total      int64 `json:"totalTokens"`
	} `json:"tokenUsage"`
}

// Parse reads a settings file whole: one call, the session's totals so
// far, at providerLockTimestamp (else the file's modification time).
// Thinking tokens are billed as output; only totalTokens counts as output.
// Copies of a session (an archived settings file) share its key, so the
// largest, the latest, counts.
func (Droid) Parse(_ context.Context, st *FileState) error {
	b, err := readWhole(st)
	if b == nil {
		return err
	}
	var s droidSettings
	if err := json.Unmarshal(b, &s); err != nil {
		st.Skipped++
		return nil
	}
	st.Lines++
	u := s.TokenUsage
	if u == nil {
		return nil
	}
	out := u.Output + u.Thinking
	if u.Input == 0 && u.Output == 0 && u.CacheWrite == 0 && u.CacheRead == 0 && u.Thinking == 0 {
		out = u.Total
	}
	if u.Input == 0 && out == 0 && u.CacheWrite == 0 && u.CacheRead == 0 {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, s.ProviderLockAt)
	if err != nil {
		t = time.Unix(0, st.ModTime)
	}
	model := normalizeDroidModel(s.Model)
	if model == "" {
		model = droidSidecarModel(st.Path)
	}
	if model == "" {
		model = "unknown"
	}
	c := Call{Time: t.UnixMilli(), Origin: st.origin("droid", st.Project, st.Project, st.Session, model),
		Key: keyOf([]byte("droid"), []byte(st.Session)),
		In:  tok(u.Input), Out: tok(out), CW5m: tok(u.CacheWrite), CR: tok(u.CacheRead)}
	st.add(c, nil)
	return nil
}

// normalizeDroidModel is a Droid model label as a model id: a "custom:"
// prefix and [bracketed] parts dropped, lower case, dots and spaces as
// dashes, runs of dashes as one ("Claude-Sonnet-4.5-[Anthropic]" is
// claude-sonnet-4-5), as ccusage names them.
func normalizeDroidModel(m string) string {
	m = strings.TrimPrefix(m, "custom:")
	var b strings.Builder
	depth := 0
	for _, r := range m {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth = max(depth-1, 0)
		case depth == 0:
			b.WriteRune(r)
		}
	}
	lower := strings.ToLower(strings.TrimRight(strings.TrimSpace(b.String()), "-"))
	var out strings.Builder
	dash := false
	for _, r := range lower {
		if r == '.' || r == '-' || r == ' ' || r == '\t' {
			if !dash {
				out.WriteByte('-')
			}
			dash = true
			continue
		}
		out.WriteRune(r)
		dash = false
	}
	return strings.Trim(out.String(), "-")
}

// droidSidecarModel is the model a session's .jsonl names in its first
// 500 lines ("Model: Claude Opus 4.5 [Anthropic]"), "" when none does.
func droidSidecarModel(settings string) string {
	f, err := regular.Open(strings.TrimSuffix(settings, ".settings.json") + ".jsonl")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for n := 0; n < 500 && sc.Scan(); n++ {
		_, tail, ok := strings.Cut(sc.Text(), "Model:")
		if !ok {
			continue
		}
		if i := strings.IndexAny(tail, "\"\\["); i >= 0 {
			tail = tail[:i]
		}
		if m := normalizeDroidModel(strings.TrimSpace(tail)); m != "" {
			return m
		}
	}
	return ""
}
