// Command usagegen writes synthetic Claude Code and Codex CLI logs and their
// expected totals: usagegen -out DIR [-seed N] [-bytes N] [-days N].
// The logs go to DIR/claude and DIR/codex, the totals to DIR/expected.json.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolhost/toolhost/tests/usagegen"
)

func main() {
	out := flag.String("out", "", "output folder (required)")
	seed := flag.Uint64("seed", 1, "random seed")
	size := flag.Int64("bytes", 0, "approximate size of the Claude logs (0: by -days)")
	days := flag.Int("days", 10, "days of logs (a minimum when -bytes is set)")
	sessions := flag.Int("sessions", 3, "Claude sessions per day")
	codex := flag.Int("codex", 2, "Codex sessions per day (-1: none)")
	content := flag.Int("content", 600, "mean content bytes per line")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "usagegen: -out is required")
		os.Exit(2)
	}
	exp, err := usagegen.Generate(*out, usagegen.Config{Seed: *seed, TargetBytes: *size, Days: *days,
		SessionsPerDay: *sessions, CodexSessionsPerDay: *codex, ContentBytes: *content})
	if err == nil {
		err = usagegen.WriteJSON(filepath.Join(*out, "expected.json"), exp)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("claude %d bytes, codex %d bytes, days %s..%s\n", exp.ClaudeBytes, exp.CodexBytes, exp.From, exp.To)
}
