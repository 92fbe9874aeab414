// Command spend-review is an agent: it asks the usage tool where the money
// went and how to spend less, and records the findings in the notes brain,
// calling both through the host (and so through the host's gate).
package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/toolhost/toolhost/sdk"
)

func main() {
	sdk.Main(sdk.Plugin{Actions: map[string]sdk.Handler{"weekly-review": weeklyReview}})
}

// maxNoteBytes bounds the Markdown recorded in one note.
const maxNoteBytes = 6000

func weeklyReview(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
	var args struct {
		Period string `json:"period"`
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
	host := req.Host()
	if host == nil {
		return nil, &sdk.Error{Code: "needs_host", Message: "spend-review composes other tools and runs only through the host",
			NextStep: "run it with `host call spend-review weekly-review` or the run_agent MCP tool"}
	}
	req.Progress(0, 2, "reading usage savings")
	savings, err := host.Call(ctx, "usage", "get-savings", map[string]any{"period": args.Period}, false)
	if err != nil {
		return nil, fmt.Errorf("usage get-savings: %w", err)
	}
	report := savings.Markdown
	if report == "" {
		report = "(the usage tool gave no report)"
	}
	out := map[string]any{"period": args.Period, "savings": savings.Data}
	if empty, _ := savings.Data.(map[string]any)["empty"].(bool); empty {
		out["recorded"] = nil // nothing worth remembering
		return &sdk.Result{Data: out, Markdown: report}, nil
	}
	if !record {
		return &sdk.Result{Data: out, Markdown: report}, nil
	}
	req.Progress(1, 2, "recording the findings in notes")
	day := time.Now().UTC().Format("2006-01-02")
	content := fmt.Sprintf("Spend review for %s (%s).\n\n%s", strings.ReplaceAll(args.Period, "_", " "), day, truncate(report, maxNoteBytes))
	remembered, err := host.Call(ctx, "notes", "remember", map[string]any{
		"type":    "episode",
		"title":   fmt.Sprintf("Spend review %s %s", args.Period, day),
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
