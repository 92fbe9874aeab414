package brain

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// benchHybrid measures hybrid search over the benchmark's brain: first
// every section gets its vector (timed, reported), then the same queries
// as the keyword run, in mode hybrid. It returns the report's lines.
func benchHybrid(t *testing.T, ctx context.Context, b *Brain, call func(string, map[string]any) time.Duration, queries []string, bareFTS []time.Duration) string {
	t.Helper()
	t.Setenv("NOTES_EMBED_MODEL", installedModel)
	emb, err := b.embedder()
	if err != nil {
		return fmt.Sprintf("  hybrid search: not measured: %v\n", err)
	}
	secs, err := b.ix.PendingSections(ctx, emb.Model())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if pending, err := b.syncVectors(ctx, -1); err != nil || pending != 0 {
		t.Fatalf("sync vectors: %d pending, %v", pending, err)
	}
	embedAll := time.Since(start)
	var hybrid []time.Duration
	for _, q := range queries {
		hybrid = append(hybrid, call("search", map[string]any{"query": q, "mode": "hybrid"}))
	}
	p50 := func(d []time.Duration) time.Duration { return percentile(d, 0.5) }
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }
	return fmt.Sprintf("  embedding:     %d sections in %s (%s a section)\n  hybrid search: p50 %s  p90 %s  (the same queries, keyword and meaning fused)  = %.1fx the bare FTS5 query\n",
		len(secs), embedAll.Round(time.Millisecond), ms(embedAll/time.Duration(max(1, len(secs)))),
		ms(p50(hybrid)), ms(percentile(hybrid, 0.9)), float64(p50(hybrid))/float64(p50(bareFTS)))
}
