// Command usage is the toolhost plugin that reports AI-coding token usage and
// cost from local session logs (Claude Code, Codex CLI, Gemini CLI,
// OpenCode), and where money could be saved.
package main

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/metrics"

	"github.com/toolhost/toolhost/sdk"
)

func main() {
	svc := newService(os.Getenv)
	if len(os.Args) > 1 && os.Args[1] == "statusline" {
		// Run by Claude Code on every update: its own fast path, not an
		// action (stdin is Claude Code's JSON, stdout one line of text).
		os.Exit(svc.statusline(context.Background(), os.Args[2:], os.Stdin, os.Stdout))
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		svc.memoryFloor = memoryFloor
		debug.SetMemoryLimit(memoryFloor)
	}
	sdk.Main(sdk.Plugin{
		Actions: svc.actions(),
		Start:   svc.prewarm,
		// Its results carry Markdown, rendered for a person at a terminal
		// without glamour (renderTerminal).
		RenderMarkdown: renderTerminal,
	})
}

// actions maps the manifest's action names to handlers.
func (s *service) actions() map[string]sdk.Handler {
	return map[string]sdk.Handler{
		"get-usage":   s.getUsage,
		"get-savings": s.getSavings,
		"blocks":      s.blocks,
		"status":      s.status,
		"budget":      s.budgetAction,
	}
}

// prewarm starts watching the logs' folders (so warm calls need not list
// them) and scans today's usage once at launch so the first call is warm.
func (s *service) prewarm(ctx context.Context) {
	if err := s.store.Watch(ctx); err != nil {
		sdk.Logger().Warn("usage: watching the logs failed; every call will list them", "error", err)
	}
	// The call a client makes with no args, tool.yaml's defaults filled in
	// (the host runs the plugin in its folder, beside its tool.yaml).
	req, err := sdk.NewRequestFor("get-usage", nil)
	if err != nil {
		sdk.Logger().Warn("usage: no prewarm", "error", err)
		return
	}
	if _, err := s.getUsage(ctx, req); err != nil {
		sdk.Logger().Warn("usage: prewarm", "error", err)
	}
}

// memoryFloor is the plugin's soft memory limit while its index is small:
// the garbage collector then returns memory early instead of letting the
// heap double. After each scan the limit follows the live heap (twice it),
// so a large index never makes the collector thrash. The floor is sized to
// hold the index of a cold scan of a year of logs with room for the
// collector (the usage README's benchmark gives the peak it keeps).
const memoryFloor = 40 << 20

// adjustMemory raises or lowers the soft memory limit to twice the live
// heap, never below the floor (0: the limit is not managed).
func (s *service) adjustMemory() {
	if s.memoryFloor == 0 {
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	debug.SetMemoryLimit(max(s.memoryFloor, int64(2*sample[0].Value.Uint64())))
}
