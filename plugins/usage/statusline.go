package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolhost/toolhost/plugins/usage/internal/budget"
	"github.com/toolhost/toolhost/plugins/usage/internal/pricing"
	"github.com/toolhost/toolhost/plugins/usage/internal/report"
	"github.com/toolhost/toolhost/plugins/usage/internal/source"
)

// statusInput is the part of Claude Code's statusline JSON (sent on stdin
// on every update; code.claude.com/docs/en/statusline) the line uses.
type statusInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Model          struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	} `json:"model"`
	Cost struct {
		TotalCostUSD *float64 `json:"total_cost_usd"`
	} `json:"cost"`
}

const statuslineHelp = `usage statusline: one line for Claude Code's status line.

Reads Claude Code's statusline JSON on stdin and prints the session's cost,
today's cost (every agent read), the active 5-hour block's cost and time
left, its burn rate, and the budgets' state when a budgets file is set.
It answers from an on-disk index of what earlier runs read (only bytes
appended since are read), kept in USAGE_CACHE_DIR (default
$XDG_CACHE_HOME/toolhost-usage).

Colours follow NO_COLOR; COLUMNS, when set, bounds the line's width (the
least important parts are dropped first). Wire it into Claude Code with
  host install-client claude-code --statusline
`

// indexFile is the on-disk index for this environment's log folders: one
// per set of folders, so two homes never share an index.
func (s *service) indexFile() string {
	h := fnv.New64a()
	for _, k := range []string{"HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME", "USAGE_GEMINI_DIR", "USAGE_OPENCODE_DB", "QWEN_DATA_DIR", "DROID_SESSIONS_DIR", "AMP_DATA_DIR", "GOOSE_PATH_ROOT", "KIMI_DATA_DIR", "KILO_DATA_DIR", "PI_AGENT_DIR", "HERMES_HOME", "COPILOT_HOME", "COPILOT_OTEL_FILE_EXPORTER_PATH", "GROK_HOME", "OPENCLAW_DIR", "ZCODE_HOME", "CODEBUFF_DATA_DIR"} {
		fmt.Fprintf(h, "%s=%s\x00", k, s.env(k))
	}
	return filepath.Join(s.cacheDir(), fmt.Sprintf("index-%016x.bin", h.Sum64()))
}

// statusline prints the status line for the JSON on in. It always exits
// 0 with one line: Claude Code blanks the status line on a failure, so
// a problem is shown in the line instead.
func (s *service) statusline(ctx context.Context, args []string, in io.Reader, out io.Writer) int {
	for _, a := range args {
		if a == "-h" || a == "--help" {
			fmt.Fprint(out, statuslineHelp)
			return 0
		}
	}
	line, err := s.statusText(ctx, in)
	if err != nil {
		line = "usage: " + err.Error()
	}
	fmt.Fprintln(out, line)
	return 0
}

// statusText computes the line.
func (s *service) statusText(ctx context.Context, in io.Reader) (string, error) {
	var inp statusInput
	b, err := io.ReadAll(io.LimitReader(in, 1<<20))
	if err != nil {
		return "", fmt.Errorf("read stdin: %w", err)
	}
	if len(strings.TrimSpace(string(b))) > 0 {
		if err := json.Unmarshal(b, &inp); err != nil {
			return "", errors.New("stdin is not Claude Code's statusline JSON")
		}
	}
	index := s.indexFile()
	loadErr := s.store.Load(index)
	loaded := s.store.Files()
	s.store.Refresh(ctx, nil)
	if loadErr != nil || s.store.Stats().FilesParsed > 0 || s.store.Files() != loaded {
		// A failed save costs the next run a longer read, nothing else.
		_ = s.store.Save(index)
	}
	loc, _, err := s.zone("")
	if err != nil {
		loc = time.Local
	}
	prices, _, _ := s.table(ctx)
	now := s.now()
	cfg, path, berr := s.loadBudgets()
	var st *report.Status
	var bs *budgetState
	var stale *report.StalePrices
	s.store.View(func(snap *source.Snapshot) {
		q := &report.Query{Loc: loc, Mode: pricing.ModeProvider, Prices: prices}
		st = report.BuildStatus(snap.Calls, q, inp.SessionID, now)
		stale = report.CheckPrices(snap.Calls, prices)
		if cfg != nil && len(cfg.Budgets) > 0 {
			bs = evalBudgets(cfg, path, snap.Calls, prices, loc, now)
		}
	})
	p := newPainter(s.env("NO_COLOR") == "" && s.env("TERM") != "dumb")
	var parts []part
	model := inp.Model.DisplayName
	if model == "" {
		model = inp.Model.ID
	}
	if model != "" {
		parts = append(parts, part{5, "🤖 " + model})
	}
	session := "$" + money(st.SessionUSD) + " session"
	if st.SessionCalls == 0 && inp.Cost.TotalCostUSD != nil {
		session = "$" + money(*inp.Cost.TotalCostUSD) + " session (Claude Code's)"
	}
	block := "no active block"
	if b := st.Block; b != nil {
		left := parseTime(b.End).Sub(now)
		block = "$" + money(b.CostUSD) + " block (" + hm(left) + " left)"
	}
	parts = append(parts, part{0, "💰 " + session + " / $" + money(st.TodayUSD) + " today / " + block})
	if b := st.Block; b != nil && b.BurnRate != nil {
		rate := b.BurnRate.CostPerHourUSD
		colour := green
		switch {
		case rate >= 20:
			colour = red
		case rate >= 5:
			colour = yellow
		}
		parts = append(parts, part{2, "🔥 " + p.paint(colour, "$"+money(rate)+"/hr")})
	}
	switch {
	case berr != nil:
		parts = append(parts, part{1, p.paint(red, "budgets file unreadable")})
	case bs != nil:
		text := "budget ok"
		colour := green
		if br := budget.Breached(bs.Budgets); len(br) > 0 {
			text = fmt.Sprintf("%s %s %.0f%%", br[0].Name, br[0].State, br[0].SpentPct)
			colour = yellow
			if br[0].State == budget.StateOver {
				colour = red
			}
		}
		parts = append(parts, part{1, "🎯 " + p.paint(colour, text)})
	}
	if len(st.Unpriced) > 0 {
		parts = append(parts, part{3, p.paint(yellow, "n/a: no price for "+strings.Join(st.Unpriced, ", "))})
	}
	if stale != nil {
		parts = append(parts, part{4, p.paint(yellow, "prices of "+stale.AsOf+" older than "+stale.Model)})
	}
	width, _ := strconv.Atoi(s.env("COLUMNS"))
	return fitParts(parts, width), nil
}

// part is one segment of the line; rank orders what is dropped first when
// the line is too wide (highest first).
type part struct {
	rank int
	text string
}

// fitParts joins parts with " | ", dropping the highest-ranked ones until
// the visible width is at most width (0: no bound).
func fitParts(parts []part, width int) string {
	join := func(ps []part) string {
		texts := make([]string, len(ps))
		for i, p := range ps {
			texts[i] = p.text
		}
		return strings.Join(texts, " | ")
	}
	for width > 0 && len(parts) > 1 && visible(join(parts)) > width {
		worst := 0
		for i, p := range parts {
			if p.rank > parts[worst].rank {
				worst = i
			}
		}
		parts = append(parts[:worst:worst], parts[worst+1:]...)
	}
	return join(parts)
}

// visible counts the runes a terminal shows (colour sequences left out).
func visible(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			j := strings.IndexByte(s[i:], 'm')
			if j < 0 {
				break
			}
			i += j + 1
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return n
}

// ANSI colours of the line.
const (
	green  = "32"
	yellow = "33"
	red    = "31"
)

type painter struct{ on bool }

func newPainter(on bool) painter { return painter{on} }

func (p painter) paint(colour, s string) string {
	if !p.on {
		return s
	}
	return "\x1b[" + colour + "m" + s + "\x1b[0m"
}

// money is a dollar amount with cents (four places under a cent).
func money(f float64) string { return strings.TrimPrefix(usd(f), "$") }

// hm is a duration as "2h 05m".
func hm(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	m := int(d.Round(time.Minute) / time.Minute)
	return fmt.Sprintf("%dh %02dm", m/60, m%60)
}

func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339, s)
	return t
}
