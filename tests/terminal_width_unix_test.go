//go:build unix

package tests

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// fitsWidth fails t for every line of screen wider than cols columns.
func fitsWidth(t *testing.T, what, screen string, cols int) {
	t.Helper()
	for _, line := range strings.Split(screen, "\n") {
		if w := ansi.StringWidth(line); w > cols {
			t.Errorf("%s: a line %d columns wide on a %d-column terminal:\n%q\nwhole screen:\n%s", what, w, cols, line, screen)
			return
		}
	}
}

// wordsOnLine reports whether some line of screen holds word whole,
// between non-word characters.
func wordsOnLine(screen, word string) bool {
	return regexp.MustCompile(`(^|[\s(|])` + regexp.QuoteMeta(word) + `($|[\s)|,])`).MatchString(screen)
}

// TestTablesFitEightyColumns runs the terminal commands whose answers are
// tables on an 80-column terminal: usage by model (a Markdown table),
// notes search (rows of JSON objects) and `host list` with a tool whose
// not-ready reason runs over several lines. No line is wider than the
// terminal, every model name and title is printed whole on one line, and
// the list's reason stays in its column, under the table's rows.
func TestTablesFitEightyColumns(t *testing.T) {
	const cols = 80
	e, exp, _ := realEnv(t)
	vars := append(e.vars[:len(e.vars):len(e.vars)], "TERM=xterm-256color", "NO_COLOR=1")

	t.Run("usage by model", func(t *testing.T) {
		r := onTerminalCols(t, cols, vars, false, hostBin, "call", "usage", "get-usage", "--arg", "by=model",
			"--arg", "from="+exp.From, "--arg", "to="+exp.To, "--arg", "timezone=UTC")
		if r.code != 0 {
			t.Fatalf("exit %d: %s%s", r.code, r.screen, r.stderr)
		}
		fitsWidth(t, "usage by model", r.screen, cols)
		for model := range exp.All.Models {
			if !wordsOnLine(r.screen, model) {
				t.Errorf("model %s is not printed whole on one line:\n%s", model, r.screen)
			}
		}
		if !strings.Contains(r.screen, "Cost") || !strings.Contains(r.screen, "Calls") {
			t.Errorf("the cost and calls columns are gone:\n%s", r.screen)
		}
	})

	t.Run("notes search", func(t *testing.T) {
		title := "Consumer acknowledgement keeps queues honest"
		r := piped(t, vars, hostBin, "call", "notes", "remember", "--arg", "type=gotcha", "--arg", "title="+title,
			"--arg", "content=Queues decouple producers from consumers; the consumer acknowledges every message after its side effects, never before.")
		if r.code != 0 {
			t.Fatalf("remember: exit %d: %s%s", r.code, r.screen, r.stderr)
		}
		r = onTerminalCols(t, cols, vars, false, hostBin, "call", "notes", "search", "--arg", "query=queues acknowledgement", "--arg", "mode=keyword")
		if r.code != 0 {
			t.Fatalf("search: exit %d: %s%s", r.code, r.screen, r.stderr)
		}
		fitsWidth(t, "notes search", r.screen, cols)
		for _, want := range []string{title, "acknowledges every message", "memory/gotchas/"} {
			if !strings.Contains(r.screen, want) {
				t.Errorf("the hit's %q is not on one line:\n%s", want, r.screen)
			}
		}
	})

	t.Run("host list with a multi-line reason", func(t *testing.T) {
		le := newEnv(t)
		// A tool whose binary dies at start with three lines on stderr:
		// list's check says so, with those lines.
		dir := filepath.Join(le.plugins, "dies")
		must(t, os.MkdirAll(dir, 0o755))
		must(t, os.WriteFile(filepath.Join(dir, "tool.yaml"), []byte(strings.ReplaceAll(sheetsManifest, "sheets", "dies")), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, "dies"), []byte("#!/bin/sh\necho 'Traceback (most recent call last):' >&2\necho '  File \"main.py\", line 1, in <module>' >&2\necho \"ModuleNotFoundError: No module named 'grpc'\" >&2\nexit 1\n"), 0o755))
		le.approve()
		lvars := append(le.vars[:len(le.vars):len(le.vars)], "TERM=xterm-256color", "NO_COLOR=1", "HOST_LOG_LEVEL=")
		r := onTerminalCols(t, cols, lvars, false, hostBin, "list")
		if r.code != 0 {
			t.Fatalf("list: exit %d: %s%s", r.code, r.screen, r.stderr)
		}
		fitsWidth(t, "host list", r.screen, cols)
		lines := strings.Split(strings.TrimRight(r.screen, "\n"), "\n")
		status := strings.Index(lines[0], "STATUS")
		if status < 0 {
			t.Fatalf("no STATUS column:\n%s", r.screen)
		}
		// Every line of the table either starts a row (a name in the
		// first column) or continues the status, in the status column.
		saw := false
		for _, line := range lines[1:] {
			if strings.HasPrefix(line, " ") {
				if strings.TrimSpace(line[:min(status, len(line))]) != "" {
					t.Errorf("a continued line leaves the STATUS column:\n%q\nwhole table:\n%s", line, r.screen)
				}
				saw = saw || strings.Contains(line, "No module named")
				continue
			}
			if line == "" || strings.HasPrefix(line, "broken:") {
				break
			}
		}
		if !saw {
			t.Errorf("the reason's stderr lines are not in the STATUS column:\n%s", r.screen)
		}
		for _, name := range []string{"dies", "sheets", "testtool", "bigtool"} {
			if !wordsOnLine(r.screen, name) {
				t.Errorf("%s is not listed whole:\n%s", name, r.screen)
			}
		}
		if strings.Contains(r.stderr, "host.plugin") {
			t.Errorf("without --verbose the plugins' logs reach stderr:\n%s", r.stderr)
		}
		// list checks again (a failure is not remembered): --verbose shows
		// the plugin's exit as the host logged it.
		r = onTerminalCols(t, cols, lvars, false, hostBin, "list", "--verbose")
		if !strings.Contains(r.stderr, "host.plugin.dies") {
			t.Errorf("with --verbose the plugin's log is not on stderr:\n%s", r.stderr)
		}
	})
}
