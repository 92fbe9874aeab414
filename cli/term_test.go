package cli

import (
	"bytes"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/cli/markdown"
	"github.com/toolhost/toolhost/sdk/wire"
)

// sgr matches an ANSI colour or emphasis sequence.
var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// listSheets is the shape of xlsx list-sheets' result (plugins/xlsx): a
// path and rows of objects.
const listSheets = `{"path":"book.xlsx","sheets":[{"title":"Summary","rows":3,"visible":true},{"title":"Data for 2026","rows":1200,"visible":false}]}`

func TestRenderJSON(t *testing.T) {
	tests := []struct {
		name string
		json string
		want string
	}{
		{"object with rows as a table", listSheets,
			"path  book.xlsx\nsheets\n  TITLE          ROWS  VISIBLE\n  Summary        3     true\n  Data for 2026  1200  false\n"},
		{"text with line breaks as its lines", `{"characters":9,"text":"r1: 1 | 2\nr2: 2 | 4"}`,
			"characters  9\ntext\n  r1: 1 | 2\n  r2: 2 | 4\n"},
		{"lists of scalars on one line, null as -", `{"names":["a","b"],"n":null}`, "names  a, b\nn      -\n"},
		{"nested object indented", `{"totals":{"cost":1.5,"tokens":10}}`, "totals\n  cost    1.5\n  tokens  10\n"},
		{"rows missing a key leave the cell empty", `[{"a":1},{"a":2,"b":"x"}]`, "A  B\n1\n2  x\n"},
		{"nested value in a cell as compact JSON", `[{"a":{"k":[1,2]}}]`, "A\n{\"k\":[1,2]}\n"},
		{"a sheet's rows as a grid", `{"sheet":"S1","rows":[[1,"two",null],[10,"x",true]]}`, "sheet  S1\nrows\n  1   two  -\n  10  x    true\n"},
		{"an empty list says so", `{"hits":[]}`, "hits  (none)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			w := &Writer{Out: &out, Err: io.Discard, Term: &Term{Render: true, Width: 80}}
			if code := w.Write(Result{JSON: []byte(tt.json)}); code != ExitOK {
				t.Fatalf("exit %d", code)
			}
			if out.String() != tt.want {
				t.Errorf("got\n%q\nwant\n%q", out.String(), tt.want)
			}
		})
	}
}

func TestRenderColourOnlyWhenAllowed(t *testing.T) {
	md := "# Spend\n\n**total** is $3\n\n| model | cost |\n|---|---|\n| opus | 2 |\n| haiku | 1 |\n"
	for _, color := range []bool{true, false} {
		var out bytes.Buffer
		w := &Writer{Out: &out, Err: io.Discard, PreferMarkdown: true, Term: &Term{Render: true, Color: color, Width: 80, Markdown: markdown.Render}}
		w.Write(Result{JSON: []byte(`{"total":3}`), Markdown: md})
		got := out.String()
		if strings.Contains(got, "**") || strings.Contains(got, "|---") {
			t.Errorf("color=%v: the Markdown was not rendered:\n%s", color, got)
		}
		for _, word := range []string{"Spend", "total", "opus", "haiku"} {
			if !strings.Contains(sgr.ReplaceAllString(got, ""), word) {
				t.Errorf("color=%v: %q is missing:\n%s", color, word, got)
			}
		}
		if has := hasColour(got); has != color {
			t.Errorf("color=%v: colour present=%v:\n%q", color, has, got)
		}
	}
}

// hasColour reports whether s sets a foreground or background colour (SGR
// 30–49, 90–107); bold and the like are not colour (no-color.org).
func hasColour(s string) bool {
	for _, m := range sgr.FindAllString(s, -1) {
		for _, p := range strings.Split(strings.Trim(m, "\x1b[m"), ";") {
			n, err := strconv.Atoi(p)
			if err == nil && (n >= 30 && n <= 49 || n >= 90 && n <= 107) {
				return true
			}
		}
	}
	return false
}

func TestRenderError(t *testing.T) {
	e := (&wire.Error{Code: wire.CodeUnknownAction, Message: `xlsx has no action "raed"`, DidYouMean: []string{"read-sheet"}}).
		WithNext(wire.Step{Run: wire.StepCapabilities, Tool: "xlsx", Why: "to list its actions"})
	words := func(s *wire.Step) string { return "run `host capabilities " + s.Tool + "` " + s.Why }
	var out bytes.Buffer
	w := &Writer{Out: &out, Term: &Term{Render: true, Words: words}}
	if code := w.Fail(e); code != ExitUsage {
		t.Errorf("exit %d, want %d", code, ExitUsage)
	}
	want := "error: xlsx has no action \"raed\"\n  did you mean: read-sheet\n  next: run `host capabilities xlsx` to list its actions\n  (unknown_action)\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	// Without words of its own a front end shows the envelope's next_step.
	out.Reset()
	(&Writer{Out: &out, Term: &Term{Render: true}}).Fail(e)
	if !strings.Contains(out.String(), `next: call capabilities with {"name":"xlsx"} to list its actions`) {
		t.Errorf("got %s", out.String())
	}
}

// TestPipedOutputUnchanged: a Term that does not render prints exactly what
// a plain Writer prints (scripts read it).
func TestPipedOutputUnchanged(t *testing.T) {
	results := []Result{
		{JSON: []byte(listSheets)},
		{JSON: []byte(`{"a":1}`), Markdown: "**a**"},
		{Err: &wire.Error{Code: wire.CodeInvalidArgs, Message: "bad", NextStep: "fix it", Next: &wire.Step{Run: wire.StepCapabilities}}},
		{Stream: func(w io.Writer) error { _, err := io.WriteString(w, `{"big":true}`); return err }},
	}
	for i, r := range results {
		for _, md := range []bool{false, true} {
			var plain, piped bytes.Buffer
			c1 := (&Writer{Out: &plain, Err: io.Discard, PreferMarkdown: md}).Write(r)
			c2 := (&Writer{Out: &piped, Err: io.Discard, PreferMarkdown: md, Term: &Term{Color: true, Width: 80, Words: func(*wire.Step) string { return "x" }}}).Write(r)
			if plain.String() != piped.String() || c1 != c2 {
				t.Errorf("result %d markdown=%v: piped output changed:\n%q (exit %d)\nwant\n%q (exit %d)", i, md, piped.String(), c2, plain.String(), c1)
			}
		}
	}
}

func TestProgress(t *testing.T) {
	tests := []struct {
		name string
		term *Term
		want string
	}{
		{"plain writer: a line per event", nil, "[1/4] sheet 1\n[7] rows\n"},
		{"stderr piped: silent", &Term{Width: 80}, ""},
		{"terminal: one line redrawn, wiped before the result", &Term{Spin: true, Width: 80},
			"\r\x1b[K⠋ [1/4] sheet 1\r\x1b[K⠙ [7] rows\r\x1b[K"},
		{"dumb terminal: no cursor control", &Term{Spin: true, Dumb: true, Width: 20},
			"\r| [1/4] sheet 1    \r/ [7] rows         \r                   \r"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			w := &Writer{Out: &out, Err: &errOut, Term: tt.term}
			w.Progress(1, 4, "sheet 1")
			w.Progress(7, 0, "rows")
			w.Write(Result{JSON: []byte(`{}`)})
			if errOut.String() != tt.want {
				t.Errorf("got %q, want %q", errOut.String(), tt.want)
			}
		})
	}
}

func TestDetect(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	tests := []struct {
		name  string
		env   func(string) string
		color bool
		dumb  bool
	}{
		{"colour by default", env("TERM", "xterm-256color"), true, false},
		{"NO_COLOR set", env("TERM", "xterm", "NO_COLOR", "1"), false, false},
		{"NO_COLOR empty does not count", env("TERM", "xterm", "NO_COLOR", ""), true, false},
		{"TERM=dumb", env("TERM", "dumb"), false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Detect(nil, &bytes.Buffer{}, &bytes.Buffer{}, tt.env)
			if got.Color != tt.color || got.Dumb != tt.dumb || got.Render || got.Spin || got.Ask {
				t.Errorf("got %+v, want color=%v dumb=%v and nothing a terminal (buffers are not)", got, tt.color, tt.dumb)
			}
		})
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"book.xlsx":     "book.xlsx",
		"path=a/b.xlsx": "path=a/b.xlsx",
		"my book.xlsx":  "'my book.xlsx'",
		"it's":          `'it'\''s'`,
		"":              "''",
		"$HOME":         "'$HOME'",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}
