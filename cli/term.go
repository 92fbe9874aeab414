package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/term"

	"github.com/toolhost/toolhost/sdk/wire"
)

// Term says how a Writer prints for a person. A nil *Term is the plain
// output every script sees: JSON on Out, one line per progress event on Err.
type Term struct {
	// Render prints results for a person (Markdown through a terminal
	// renderer, rows of objects as aligned tables, errors as sentences)
	// instead of JSON. Set when stdout is a terminal and --json was not
	// given.
	Render bool
	// Color allows ANSI colour and emphasis: not under NO_COLOR, not on
	// TERM=dumb.
	Color bool
	// Width is the terminal's width in columns (80 when unknown).
	Width int
	// Spin draws progress as one line redrawn in place on Err; when false
	// (stderr is not a terminal) progress is not printed at all.
	Spin bool
	// Ask: stdin and stderr are terminals, so a front end may ask the
	// person a question (a y/N before an irreversible action).
	Ask bool
	// Dumb is TERM=dumb: no cursor control, so the progress line is
	// redrawn with a carriage return and spaces.
	Dumb bool
	// Words words an error's structured next step as this front end's
	// command line; nil leaves the envelope's NextStep as it is.
	Words func(*wire.Step) string
	// Markdown renders a result's Markdown when Render is set (the
	// package cli/markdown's Render); nil prints the Markdown as written,
	// and keeps the renderer out of a binary that never needs it.
	Markdown MarkdownRenderer
}

// MarkdownRenderer renders Markdown for a terminal width columns wide:
// with colour, without colour but with emphasis (colour false), or with no
// escape sequence at all (dumb).
type MarkdownRenderer func(md string, width int, colour, dumb bool) (string, error)

// Detect is the Term for a command reading stdin and writing to stdout and
// stderr: Render when stdout is a terminal, Spin when stderr is one, Ask
// when stdin and stderr are, Color unless NO_COLOR is set (to anything but
// "") or TERM is dumb. getenv is os.Getenv in production.
func Detect(stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) *Term {
	t := &Term{Width: 80}
	if fd, ok := terminalFD(stdout); ok {
		t.Render = true
		if w, _, err := term.GetSize(fd); err == nil && w > 0 {
			t.Width = w
		}
	}
	_, t.Spin = terminalFD(stderr)
	_, in := terminalFD(stdin)
	t.Ask = in && t.Spin
	t.Dumb = getenv("TERM") == "dumb"
	t.Color = getenv("NO_COLOR") == "" && !t.Dumb
	return t
}

// terminalFD is w's file descriptor when w is a terminal.
func terminalFD(w any) (int, bool) {
	f, ok := w.(*os.File)
	if !ok {
		return 0, false
	}
	fd := int(f.Fd())
	return fd, term.IsTerminal(fd)
}

// spinFrames are the progress line's spinner, one frame per event.
var (
	spinFrames      = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
	spinFramesASCII = []string{"|", "/", "-", `\`}
)

// progressLine is the one progress line: spinner frame, count, step text,
// cut to the terminal's width.
func (t *Term) progressLine(n int, done, total float64, message string) string {
	frames := spinFrames
	if t.Dumb {
		frames = spinFramesASCII
	}
	var b strings.Builder
	b.WriteString(frames[n%len(frames)])
	b.WriteByte(' ')
	b.WriteString(progressText(done, total, message))
	return cut(strings.ReplaceAll(b.String(), "\n", " "), t.Width-1)
}

// progressText is "[done/total] message", or "[done] message" when the
// total is unknown.
func progressText(done, total float64, message string) string {
	var b strings.Builder
	b.WriteByte('[')
	b.WriteString(number(done))
	if total > 0 {
		b.WriteByte('/')
		b.WriteString(number(total))
	}
	b.WriteString("] ")
	b.WriteString(message)
	return b.String()
}

// cut shortens s to at most n runes, ending in "…" when it was longer.
func cut(s string, n int) string {
	if n <= 1 {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// cutWords shortens s to at most n runes at a space, ending in "…" when
// it was longer; a first word longer than n is cut inside.
func cutWords(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	head := string(r[:n-1])
	if i := strings.LastIndexByte(head, ' '); i > 0 {
		head = head[:i]
	}
	return strings.TrimRight(head, " ") + "…"
}

// number prints a progress count: whole numbers without decimals.
func number(f float64) string {
	if f == float64(int64(f)) {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'f', 1, 64)
}

// Quote is s as one shell word: itself when it holds only safe
// characters, else in single quotes.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,@%+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ArgText is an arg's value as a person types it after its flag: a string
// as itself, anything else as JSON.
func ArgText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
