package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/toolhost/toolhost/sdk/wire"
)

// Result is what a call answered, whichever path ran it: the data as a
// JSON object and its optional Markdown rendering, or the error envelope.
type Result struct {
	// JSON is the structured result, a JSON object; ignored when Err is set.
	JSON json.RawMessage
	// Markdown is the plugin's rendering of the same data, when it gave one.
	Markdown string
	// Err is the error envelope of a failed call.
	Err *wire.Error
	// Stream, when set, writes the JSON object itself instead of JSON: to
	// Out as it is made (buffered, not re-indented), so a large result is
	// never held whole. It is called exactly once (into io.Discard when the
	// Markdown is printed instead). An error it returns is printed as Fail
	// prints one, after whatever part of the object went out already.
	Stream func(io.Writer) error
}

// Writer prints results for a person at the terminal: the JSON on Out
// (indented, in the plugin's own key order), or the Markdown when
// PreferMarkdown is set and the plugin gave one, and an error as
// {"error": {...}} on Out with its exit code. Progress and hints go to Err.
// It is a plain struct so a front end may wrap it (terminal rendering, a
// streaming output) and keep the same exit codes.
type Writer struct {
	// Out receives the result (stdout).
	Out io.Writer
	// Err receives progress and hints (stderr).
	Err io.Writer
	// PreferMarkdown prints the Markdown rendering instead of the JSON
	// when the plugin gave one.
	PreferMarkdown bool
	// Term, when set, is how to print for a person at a terminal (Detect):
	// rendered results and errors when Term.Render, one progress line when
	// Term.Spin. Nil is the plain output of today's scripts.
	Term *Term

	mu    sync.Mutex // guards the progress line
	spins int        // progress events drawn; >0: a line is on screen
}

// Write prints r and returns the exit code: ExitOK, or ExitCode(r.Err).
func (w *Writer) Write(r Result) int {
	w.clearProgress()
	if r.Err != nil {
		return w.Fail(r.Err)
	}
	if w.Term != nil && w.Term.Render {
		return w.render(r)
	}
	if w.PreferMarkdown && r.Markdown != "" {
		if r.Stream != nil {
			_ = r.Stream(io.Discard)
		}
		fmt.Fprintln(w.Out, r.Markdown)
		return ExitOK
	}
	if r.Stream != nil {
		return w.stream(r.Stream)
	}
	body := r.JSON
	if len(bytes.TrimSpace(body)) == 0 {
		body = json.RawMessage("{}")
	}
	if err := w.JSON(body); err != nil {
		return w.Fail(wire.Errorf(wire.CodeInternalError, "the result is not valid JSON: %v", err))
	}
	return ExitOK
}

// Fail prints the error envelope as {"error": {...}} on Out and returns its
// exit code.
func (w *Writer) Fail(e *wire.Error) int {
	w.clearProgress()
	if w.Term != nil && w.Term.Render {
		w.Term.renderError(w.Out, e)
		return ExitCode(e)
	}
	_ = w.JSON(map[string]any{"error": e})
	return ExitCode(e)
}

// render prints a successful result for a person: the Markdown through
// the terminal renderer when the plugin gave one, else the JSON as aligned
// lines and tables. A streamed result is read whole first (a person reads
// it on a screen, not a pipe).
func (w *Writer) render(r Result) int {
	if r.Markdown != "" {
		if r.Stream != nil {
			_ = r.Stream(io.Discard)
		}
		out, err := w.Term.markdown(r.Markdown)
		if err != nil {
			fmt.Fprintln(w.Out, r.Markdown)
			return ExitOK
		}
		fmt.Fprint(w.Out, out)
		return ExitOK
	}
	body := []byte(r.JSON)
	if r.Stream != nil {
		var buf bytes.Buffer
		if err := r.Stream(&buf); err != nil {
			var e *wire.Error
			if !errors.As(err, &e) {
				e = wire.Errorf(wire.CodeInternalError, "write the result: %v", err)
			}
			return w.Fail(e)
		}
		body = buf.Bytes()
	}
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	if err := w.Term.renderJSON(w.Out, body); err != nil {
		return w.Fail(wire.Errorf(wire.CodeInternalError, "the result is not valid JSON: %v", err))
	}
	return ExitOK
}

// JSON prints v indented on Out; a json.RawMessage keeps its own key order.
func (w *Writer) JSON(v any) error {
	var b []byte
	if raw, ok := v.(json.RawMessage); ok {
		var buf bytes.Buffer
		if err := json.Indent(&buf, raw, "", "  "); err != nil {
			return fmt.Errorf("cli: indent result: %w", err)
		}
		b = buf.Bytes()
	} else {
		var err error
		if b, err = json.MarshalIndent(v, "", "  "); err != nil {
			return fmt.Errorf("cli: encode output: %w", err)
		}
	}
	_, err := fmt.Fprintln(w.Out, string(b))
	return err
}

// Progress prints one progress event on Err: "[done/total] message", or
// "[done] message" when the total is unknown, one line per event. With a
// Term it is one line redrawn in place behind a spinner when stderr is a
// terminal (Term.Spin), and nothing when it is not. It is safe to call
// from any goroutine.
func (w *Writer) Progress(done, total float64, message string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.Term == nil:
		fmt.Fprintln(w.Err, progressText(done, total, message))
	case w.Term.Spin:
		line := w.Term.progressLine(w.spins, done, total, message)
		if w.Term.Dumb {
			fmt.Fprintf(w.Err, "\r%-*s", w.Term.Width-1, line)
		} else {
			fmt.Fprintf(w.Err, "\r\x1b[K%s", line)
		}
		w.spins++
	}
}

// clearProgress wipes the progress line before the result is printed.
func (w *Writer) clearProgress() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.spins == 0 || w.Term == nil {
		return
	}
	if w.Term.Dumb {
		fmt.Fprintf(w.Err, "\r%*s\r", w.Term.Width-1, "")
	} else {
		fmt.Fprint(w.Err, "\r\x1b[K")
	}
	w.spins = 0
}

// streamBuffer is the buffer of a streamed result on its way to Out. A
// plugin that streams large results writes them in large pieces, which
// pass it by untouched; only the last, partial piece is copied into it,
// and memory a process touches for the first time costs page faults, so
// the buffer stays small.
const streamBuffer = 64 << 10

// stream runs a Result's Stream into Out through a buffer: on an error what
// is still buffered is dropped (a small result's error comes alone), and
// the envelope follows on its own line when part of the object is out.
func (w *Writer) stream(write func(io.Writer) error) int {
	cw := &countingWriter{w: w.Out}
	bw := bufio.NewWriterSize(cw, streamBuffer)
	err := write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		if cw.n > 0 {
			fmt.Fprintln(w.Out)
		}
		var e *wire.Error
		if !errors.As(err, &e) {
			e = wire.Errorf(wire.CodeInternalError, "write the result: %v", err)
		}
		return w.Fail(e)
	}
	fmt.Fprintln(w.Out)
	return ExitOK
}

// countingWriter counts the bytes that went through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
