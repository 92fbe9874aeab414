// Command usage is the toolhost plugin that reports AI-coding token usage and
// cost from local session logs (Claude Code, Codex CLI, Gemini CLI,
// OpenCode), and where money could be saved.
package main

import (
	"context"
	"os"

	"github.com/toolhost/toolhost/sdk"
)

func main() {
	svc := newService(os.Getenv)
	sdk.Main(sdk.Plugin{
		Actions: svc.actions(),
		Start:   svc.prewarm,
	})
}

// actions maps the manifest's action names to handlers.
func (s *service) actions() map[string]sdk.Handler {
	return map[string]sdk.Handler{
		"get-usage":   s.getUsage,
		"get-savings": s.getSavings,
		"status":      s.status,
	}
}

// prewarm starts watching the logs' folders (so warm calls need not list
// them) and scans today's usage once at launch so the first call is warm.
func (s *service) prewarm(ctx context.Context) {
	if err := s.store.Watch(ctx); err != nil {
		sdk.Logger().Warn("usage: watching the logs failed; every call will list them", "error", err)
	}
	req, err := sdk.NewRequest("get-usage", map[string]any{"period": "today"})
	if err != nil {
		return
	}
	if _, err := s.getUsage(ctx, req); err != nil {
		sdk.Logger().Warn("usage: prewarm", "error", err)
	}
}
