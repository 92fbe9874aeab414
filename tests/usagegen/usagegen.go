// Package usagegen writes synthetic Claude Code and Codex CLI session logs,
// deterministic per seed and of configurable size, with every quirk the usage
// plugin must survive (duplicated content-block lines with partial usage on
// early copies, resumed sessions copying earlier lines, sidechains and their
// replays, sub-agent files, legacy costUSD lines, malformed lines,
// long-context requests, 1h cache writes, Codex re-emitted and replayed
// token_count events), together with the exact expected totals, computed from
// the generator's own record of the requests it made up. It shares no code
// with the plugin.
package usagegen

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// Config sizes and seeds a generation.
type Config struct {
	// Seed makes the output reproducible.
	Seed uint64
	// Start is the first day (UTC); default 2026-06-01.
	Start time.Time
	// Days is how many days the logs span (default 10).
	Days int
	// Projects is how many projects (default 4).
	Projects int
	// SessionsPerDay is how many Claude sessions start each day (default 3).
	SessionsPerDay int
	// TurnsPerSession is the mean number of turns per session (default 6).
	TurnsPerSession int
	// TargetBytes, when > 0, keeps adding days of sessions until the Claude
	// logs reach about this size (Days is then a minimum).
	TargetBytes int64
	// ContentBytes is the mean size of message content per line (default 600).
	ContentBytes int
	// CodexSessionsPerDay is how many Codex sessions start each day
	// (default 2; -1 for none).
	CodexSessionsPerDay int
	// NoMalformed leaves out malformed lines.
	NoMalformed bool
}

// Bucket is the expected usage of one group.
type Bucket struct {
	Calls       int     `json:"calls"`
	Input       int64   `json:"input_tokens"`
	Output      int64   `json:"output_tokens"`
	CacheWrite  int64   `json:"cache_write_tokens"`
	CacheRead   int64   `json:"cache_read_tokens"`
	CostUSD     float64 `json:"cost_usd"`
	CostCCUsage float64 `json:"cost_usd_ccusage"`
}

func (b *Bucket) add(model string, u usage) {
	b.Calls++
	b.Input += u.in
	b.Output += u.out
	b.CacheWrite += u.cw5m + u.cw1h
	b.CacheRead += u.cr
	b.CostUSD += costReal(model, u)
	b.CostCCUsage += costPerBucket(model, u)
}

// Totals are a provider's expected totals by day (UTC) and model.
type Totals struct {
	Days   map[string]map[string]*Bucket `json:"days"`
	Models map[string]*Bucket            `json:"models"`
	Total  Bucket                        `json:"total"`
	// Planted is what the generator planted that a savings review must
	// find, in USD.
	Planted Planted `json:"planted"`
}

// Planted are the savings findings the generator planted, priced by its own
// table: what long-context requests cost above the base rates, and what
// 1-hour cache writes cost above 5-minute ones; and the edits redone.
type Planted struct {
	LongContextPremiumUSD float64 `json:"long_context_premium_usd"`
	OneHourCacheUSD       float64 `json:"one_hour_cache_usd"`
	// Retries counts the turns that redo an edit after a failed test run.
	Retries int `json:"retries"`
}

func newTotals() *Totals {
	return &Totals{Days: map[string]map[string]*Bucket{}, Models: map[string]*Bucket{}}
}

func (t *Totals) add(ts time.Time, model string, u usage) {
	day := ts.UTC().Format("2006-01-02")
	if t.Days[day] == nil {
		t.Days[day] = map[string]*Bucket{}
	}
	b := t.Days[day][model]
	if b == nil {
		b = &Bucket{}
		t.Days[day][model] = b
	}
	b.add(model, u)
	m := t.Models[model]
	if m == nil {
		m = &Bucket{}
		t.Models[model] = m
	}
	m.add(model, u)
	t.Total.add(model, u)
	t.Planted.LongContextPremiumUSD += costReal(model, u) - costBase(model, u)
	r := rates[model]
	t.Planted.OneHourCacheUSD += float64(u.cw1h) * (r.cw1h - r.cw5m) / 1e6
}

// Expected is what a correct reader must report for the generated logs.
type Expected struct {
	Seed uint64 `json:"seed"`
	// From and To are the first and last day (UTC) with usage.
	From string `json:"from"`
	To   string `json:"to"`
	// Claude and Codex are each provider's totals; All is both.
	Claude *Totals `json:"claude"`
	Codex  *Totals `json:"codex"`
	All    *Totals `json:"all"`
	// MalformedLines counts truncated usage-bearing lines written.
	MalformedLines int `json:"malformed_lines"`
	// ProjectPaths are the projects' absolute working directories and
	// ProjectNames their last elements: neither may appear in a redacted
	// output.
	ProjectPaths []string `json:"project_paths"`
	ProjectNames []string `json:"project_names"`
	// ClaudeBytes and CodexBytes are the sizes written.
	ClaudeBytes int64 `json:"claude_bytes"`
	CodexBytes  int64 `json:"codex_bytes"`
	// ClaudeDir and CodexDir are the roots to point CLAUDE_CONFIG_DIR and
	// CODEX_HOME at.
	ClaudeDir string `json:"claude_dir"`
	CodexDir  string `json:"codex_dir"`
}

var projectNames = []string{"acme-billing-api", "orbit-dashboard", "kestrel-infra", "lumen-docs-site",
	"pylon-mobile-app", "tessera-ml", "quill-cms", "harbor-cli"}

// Generate writes logs under dir (dir/claude and dir/codex) and returns the
// expected totals.
func Generate(dir string, cfg Config) (*Expected, error) {
	if cfg.Start.IsZero() {
		cfg.Start = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	}
	if cfg.Days <= 0 {
		cfg.Days = 10
	}
	if cfg.Projects <= 0 {
		cfg.Projects = 4
	}
	cfg.Projects = min(cfg.Projects, len(projectNames))
	if cfg.SessionsPerDay <= 0 {
		cfg.SessionsPerDay = 3
	}
	if cfg.TurnsPerSession <= 0 {
		cfg.TurnsPerSession = 6
	}
	if cfg.ContentBytes <= 0 {
		cfg.ContentBytes = 600
	}
	if cfg.CodexSessionsPerDay == 0 {
		cfg.CodexSessionsPerDay = 2
	}
	g := &gen{
		cfg:    cfg,
		rng:    rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
		claude: newTotals(),
		codex:  newTotals(),
		all:    newTotals(),
		root:   dir,
	}
	g.text = makeText(rand.New(rand.NewPCG(cfg.Seed+1, 7)), 1<<20)
	exp := &Expected{Seed: cfg.Seed, ClaudeDir: filepath.Join(dir, "claude"), CodexDir: filepath.Join(dir, "codex")}
	for i := 0; i < cfg.Projects; i++ {
		p := "/home/dev/work/" + projectNames[i]
		g.projects = append(g.projects, p)
		exp.ProjectPaths = append(exp.ProjectPaths, p)
		exp.ProjectNames = append(exp.ProjectNames, projectNames[i])
	}
	for day := 0; day < cfg.Days || (cfg.TargetBytes > 0 && g.claudeBytes < cfg.TargetBytes); day++ {
		date := cfg.Start.AddDate(0, 0, day)
		for s := 0; s < cfg.SessionsPerDay; s++ {
			if err := g.claudeSession(date, s); err != nil {
				return nil, err
			}
		}
		for s := 0; s < cfg.CodexSessionsPerDay; s++ {
			if err := g.codexSession(date, s); err != nil {
				return nil, err
			}
		}
	}
	exp.Claude, exp.Codex, exp.All = g.claude, g.codex, g.all
	exp.MalformedLines = g.malformed
	exp.ClaudeBytes, exp.CodexBytes = g.claudeBytes, g.codexBytes
	var days []string
	for d := range g.all.Days {
		days = append(days, d)
	}
	sort.Strings(days)
	if len(days) > 0 {
		exp.From, exp.To = days[0], days[len(days)-1]
	}
	return exp, nil
}

// WriteJSON writes v as indented JSON to path.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("usagegen: encode: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("usagegen: write: %w", err)
	}
	return nil
}

type gen struct {
	cfg                     Config
	rng                     *rand.Rand
	text                    []byte
	projects                []string
	claude, codex, all      *Totals
	malformed               int
	claudeBytes, codexBytes int64
	root                    string
	seq                     int
	// earlier keeps, per project, a finished session's lines that a later
	// session resumes from (copies them into its own file).
	earlier map[string][][]byte
}

// id returns a deterministic unique identifier with a prefix.
func (g *gen) id(prefix string) string {
	g.seq++
	return fmt.Sprintf("%s%08x%016x", prefix, g.seq, g.rng.Uint64())
}

func (g *gen) uuid() string {
	a, b := g.rng.Uint64(), g.rng.Uint64()
	return fmt.Sprintf("%08x-%04x-4%03x-a%03x-%012x", uint32(a), uint16(a>>32), uint16(a>>48)&0xfff, uint16(b)&0xfff, b>>16)
}

// content returns JSON-string-safe text (already escaped) of about n bytes.
func (g *gen) content(n int) []byte {
	if n <= 0 {
		n = 1
	}
	n = n/2 + g.rng.IntN(n+1)
	if n >= len(g.text) {
		n = len(g.text) - 1
	}
	off := g.rng.IntN(len(g.text) - n)
	// Start and end on a word boundary: never inside an escape sequence or
	// a multi-byte character.
	for off > 0 && g.text[off-1] != ' ' {
		off--
	}
	end := off + n
	for end > off && g.text[end-1] != ' ' {
		end--
	}
	if end == off { // shorter than a word: take one word
		for end < len(g.text) && g.text[end] != ' ' {
			end++
		}
	}
	return g.text[off:end]
}

// makeText builds escaped JSON string content: words, escaped quotes,
// newlines, tabs and non-ASCII letters, as message content has.
func makeText(rng *rand.Rand, n int) []byte {
	words := []string{"func", "return", "the", "error", "test", "value", "config", "handler", "struct", "τιμή",
		"données", "файл", "\\\"quoted\\\"", "\\n", "\\t", "{", "}", "if err != nil", "usage", "tokens", "\\\\path"}
	out := make([]byte, 0, n+32)
	for len(out) < n {
		out = append(out, words[rng.IntN(len(words))]...)
		out = append(out, ' ')
	}
	return out
}

type fileWriter struct {
	f *os.File
	w *bufio.Writer
	n int64
}

func create(path string) (*fileWriter, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("usagegen: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("usagegen: %w", err)
	}
	return &fileWriter{f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

func (fw *fileWriter) line(b []byte) {
	fw.w.Write(b)
	fw.w.WriteByte('\n')
	fw.n += int64(len(b) + 1)
}

func (fw *fileWriter) close() error {
	if err := fw.w.Flush(); err != nil {
		fw.f.Close()
		return fmt.Errorf("usagegen: %w", err)
	}
	if err := fw.f.Close(); err != nil {
		return fmt.Errorf("usagegen: %w", err)
	}
	return nil
}
