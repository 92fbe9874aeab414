// Command spend-review is an agent: it asks the usage tool where the money
// went and how to spend less, and records the findings in the notes brain,
// calling both through the host (and so through the host's gate).
package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/toolhost/toolhost/cli/markdown"
	"github.com/toolhost/toolhost/sdk"
)

func main() {
	sdk.Main(sdk.Plugin{Actions: map[string]sdk.Handler{"weekly-review": weeklyReview}, RenderMarkdown: markdown.Render})
}

// maxNoteBytes bounds the Markdown recorded in one note.
const maxNoteBytes = 6000

func weeklyReview(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
	var args struct {
		Period string `json:"period"`
		From   string `json:"from"`
		To     string `json:"to"`
		Record *bool  `json:"record"`
		Scope  string `json:"scope"`
	}
	if err := req.Bind(&args); err != nil {
		return nil, err
	}
	if args.Period == "" {
		args.Period = "last_7_days"
	}
	if args.Scope == "" {
		args.Scope = "global"
	}
	record := args.Record == nil || *args.Record
	host, err := req.NeedHost("spend-review", "host call spend-review weekly-review")
	if err != nil {
		return nil, err
	}
	req.Progress(0, 2, "reading usage savings")
	window := map[string]any{"period": args.Period}
	if args.From != "" || args.To != "" {
		window = map[string]any{}
		for k, v := range map[string]string{"from": args.From, "to": args.To} {
			if v != "" {
				window[k] = v
			}
		}
	}
	sv := &savings{}
	res, err := sdk.CallData(ctx, host, "usage", "get-savings", window, sv)
	if err != nil {
		return nil, err
	}
	report := res.Markdown
	if report == "" {
		report = "(the usage tool gave no report)"
	}
	out := map[string]any{"period": sv.Label, "from": sv.From, "to": sv.To, "savings": res.Data, "findings": sv.Findings}
	if sv.Empty || (sv.Turns == 0 && sv.CostUSD == 0) {
		out["recorded"] = nil // nothing worth remembering
		if looked, err := noLogs(ctx, host); err != nil {
			return nil, err
		} else if looked != nil {
			out["no_logs"] = looked
			report = noLogsReport(looked)
		}
		return &sdk.Result{Data: out, Markdown: report}, nil
	}
	if !record {
		out["recorded"] = nil
		return &sdk.Result{Data: out, Markdown: report}, nil
	}
	req.Progress(1, 2, "recording the findings in notes")
	day := time.Now().UTC().Format("2006-01-02")
	content := fmt.Sprintf("Spend review for %s (%s).\n\n%s\n\n%s", sv.words(), day, summary(sv), truncate(report, maxNoteBytes))
	remembered, err := host.Call(ctx, "notes", "remember", map[string]any{
		"type":    "episode",
		"title":   fmt.Sprintf("Spend review %s %s", sv.Label, day),
		"content": content,
		"scope":   args.Scope,
		"tags":    []string{"usage", "spend-review"},
	}, false)
	if err != nil {
		return nil, fmt.Errorf("notes remember: %w", err)
	}
	out["recorded"] = remembered.Data
	req.Progress(2, 2, "done")
	return &sdk.Result{Data: out, Markdown: report + "\n\n_Recorded in notes (undo with notes undo)._"}, nil
}

// savings is the part of usage get-savings the review records.
type savings struct {
	Label     string    `json:"period"` // the period's name, or "FROM..TO"
	From      string    `json:"from"`
	To        string    `json:"to"`
	Empty     bool      `json:"empty"`
	CostUSD   float64   `json:"cost_usd"`
	Turns     int       `json:"turns"`
	EditTurns int       `json:"edit_turns"`
	Findings  []finding `json:"findings"`
	RetryTax  struct {
		TotalUSD float64 `json:"total_usd"`
		Retries  int     `json:"retries"`
	} `json:"retry_tax"`
}

// finding is one way to spend less, with its dollar impact.
type finding struct {
	Title     string  `json:"title"`
	ImpactUSD float64 `json:"impact_usd"`
	Detail    string  `json:"detail"`
}

// summary is the note's opening: the period's spend and each finding with
// its dollar impact, one per line.
func summary(sv *savings) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Spent $%.2f over %d turns (%d with edits); %d edits redone after a failed build or test.\n", sv.CostUSD, sv.Turns, sv.EditTurns, sv.RetryTax.Retries)
	if len(sv.Findings) == 0 {
		b.WriteString("\nNo findings: nothing to spend less on.")
		return b.String()
	}
	b.WriteString("\nFindings:\n")
	for _, f := range sv.Findings {
		fmt.Fprintf(&b, "- %s: $%.2f (%s)\n", f.Title, f.ImpactUSD, f.Detail)
	}
	return strings.TrimRight(b.String(), "\n")
}

// truncate cuts s to at most n bytes on a line boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndex(s[:n], "\n")
	if cut <= 0 {
		cut = n
	}
	return s[:cut] + "\n…"
}

// words is the reviewed window for a sentence: "last 7 days", or
// "2026-05-01 to 2026-05-31".
func (sv *savings) words() string {
	if strings.Contains(sv.Label, "..") {
		return sv.From + " to " + sv.To
	}
	return strings.ReplaceAll(sv.Label, "_", " ")
}

// provider is the part of usage status the review reads.
type provider struct {
	Provider string   `json:"provider"`
	Found    bool     `json:"found"`
	Files    int      `json:"files"`
	LookedIn []string `json:"looked_in"`
}

// noLogs asks usage where it looks for logs; it returns the providers,
// with where each looked, when no provider has a single log file, and nil
// when some logs exist (the window was just empty).
func noLogs(ctx context.Context, host sdk.Host) ([]provider, error) {
	var st struct {
		Providers []provider `json:"providers"`
	}
	if _, err := sdk.CallData(ctx, host, "usage", "status", map[string]any{}, &st); err != nil {
		return nil, err
	}
	for _, p := range st.Providers {
		if p.Found || p.Files > 0 {
			return nil, nil
		}
	}
	return st.Providers, nil
}

// noLogsReport says that no logs were found and where usage looked.
func noLogsReport(providers []provider) string {
	var b strings.Builder
	b.WriteString("**No AI-coding logs were found**, so there is no spend to review. The usage tool looked in:\n\n")
	for _, p := range providers {
		where := strings.Join(p.LookedIn, ", ")
		if where == "" {
			where = "(nowhere: its home folder is unknown)"
		}
		fmt.Fprintf(&b, "- %s: %s\n", p.Provider, where)
	}
	b.WriteString("\nIf your logs are elsewhere, point usage at them (CLAUDE_CONFIG_DIR, CODEX_HOME, USAGE_GEMINI_DIR, USAGE_OPENCODE_DB; see plugins/usage/README.md) and run the review again.")
	return b.String()
}
