//go:build unix

package tests

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// A person at a terminal against a script reading a pipe: `host call` and a
// plugin's CLI mode run with stdout (and stderr) on a pseudo-terminal, and
// piped, and the test reads what each one saw.

// sgrSeq matches an ANSI SGR sequence (colour, bold, …).
var sgrSeq = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// colourIn reports whether s sets a foreground or background colour (SGR
// 30–49 or 90–107); bold and the like are allowed under NO_COLOR.
func colourIn(s string) bool {
	for _, m := range sgrSeq.FindAllString(s, -1) {
		for _, p := range strings.Split(strings.Trim(m, "\x1b[m"), ";") {
			if n, err := strconv.Atoi(p); err == nil && (n >= 30 && n <= 49 || n >= 90 && n <= 107) {
				return true
			}
		}
	}
	return false
}

// terminalRun is what one command showed.
type terminalRun struct {
	screen string // what the terminal showed (stdout, and stderr when it was on the terminal too)
	stderr string // stderr when it was piped
	code   int
}

// onTerminal runs bin with stdout on a pseudo-terminal of 100 columns, and
// stderr too when errToo; stdin is /dev/null (the plugins the host starts
// inherit it, and must not hold the terminal open).
func onTerminal(t *testing.T, vars []string, errToo bool, bin string, args ...string) terminalRun {
	t.Helper()
	return onTerminalCols(t, 100, vars, errToo, bin, args...)
}

// onTerminalCols is onTerminal on a terminal cols columns wide.
func onTerminalCols(t *testing.T, cols uint16, vars []string, errToo bool, bin string, args ...string) terminalRun {
	t.Helper()
	ptmx, tty, err := pty.Open()
	must(t, err)
	defer ptmx.Close()
	must(t, pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: cols}))
	cmd := exec.Command(bin, args...)
	cmd.Env = vars
	cmd.Stdout = tty
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if errToo {
		cmd.Stderr = tty
	}
	must(t, cmd.Start())
	tty.Close() // the child holds its own copy; the reader sees EOF (EIO) when it is gone
	screen := make(chan string, 1)
	go func() {
		var b bytes.Buffer
		_, _ = io.Copy(&b, ptmx) // ends with EIO once no process holds the terminal
		screen <- strings.ReplaceAll(b.String(), "\r\n", "\n")
	}()
	code := testplugin.ExitCode(t, cmd.Wait())
	return terminalRun{screen: <-screen, stderr: stderr.String(), code: code}
}

// piped runs bin with stdout and stderr on pipes.
func piped(t *testing.T, vars []string, bin string, args ...string) terminalRun {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = vars
	out, errOut, code := testplugin.Run(t, cmd)
	return terminalRun{screen: string(out), stderr: string(errOut), code: code}
}

func TestHostCallOnATerminalAndPiped(t *testing.T) {
	e := newEnv(t)
	colour := append(e.vars[:len(e.vars):len(e.vars)], "TERM=xterm-256color", "NO_COLOR=", "HOST_LOG_LEVEL=error")
	noColour := append(colour[:len(colour):len(colour)], "NO_COLOR=1")
	tests := []struct {
		name     string
		vars     []string
		tty      bool // stdout on the terminal
		errToo   bool // stderr on the terminal too
		args     []string
		code     int
		want     []string
		refuse   []string
		colour   bool
		exact    string // the whole of stdout, when set
		stderrNo string // stderr (piped) must not hold this
	}{
		{name: "Markdown rendered on a terminal", vars: colour, tty: true, args: []string{"call", "testtool", "echo", "--arg", "text=hi"},
			want: []string{"echo:", "hi"}, refuse: []string{"**echo:**", `"text"`}, colour: true},
		{name: "piped: the raw JSON", vars: colour, args: []string{"call", "testtool", "echo", "--arg", "text=hi"},
			want: []string{`"text": "hi"`}, refuse: []string{"**echo:**"}},
		{name: "piped with --markdown: the tool's Markdown, unrendered", vars: colour, args: []string{"call", "testtool", "echo", "--arg", "text=hi", "--markdown"},
			exact: "**echo:** hi\n"},
		{name: "--markdown on a terminal: unrendered too", vars: colour, tty: true, args: []string{"call", "testtool", "echo", "--arg", "text=hi", "--markdown"},
			want: []string{"**echo:** hi"}},
		{name: "--json on a terminal: the JSON", vars: colour, tty: true, args: []string{"call", "testtool", "echo", "--arg", "text=hi", "--json"},
			want: []string{`"text": "hi"`}, refuse: []string{"**echo:**"}},
		{name: "NO_COLOR: rendered without colour", vars: noColour, tty: true, args: []string{"call", "testtool", "echo", "--arg", "text=hi"},
			want: []string{"echo:", "hi"}, refuse: []string{"**echo:**"}},
		{name: "a JSON result as aligned lines", vars: noColour, tty: true, args: []string{"call", "testtool", "slow", "--arg", "ms=0"},
			want: []string{"slept_ms  0\n", "version   1\n"}, refuse: []string{"{"}},
		{name: "one progress line on a terminal's stderr", vars: noColour, tty: true, errToo: true, args: []string{"call", "testtool", "slow", "--arg", "ms=60"},
			want: []string{"\r\x1b[K⠋ [0] working", "slept_ms"}},
		{name: "no progress when stderr is piped", vars: noColour, tty: true, args: []string{"call", "testtool", "slow", "--arg", "ms=60"},
			want: []string{"slept_ms"}, refuse: []string{"working"}, stderrNo: "working"},
		{name: "an unknown action in the terminal's words", vars: noColour, tty: true, args: []string{"call", "testtool", "ehco"}, code: 2,
			want:   []string{"error: testtool has no action \"ehco\"", "did you mean: echo", "next: run `" + hostBin + " capabilities testtool` to list its actions"},
			refuse: []string{"call capabilities with", `"error"`}},
		{name: "piped: the envelope as it always was", vars: noColour, args: []string{"call", "testtool", "ehco"}, code: 2,
			want: []string{`"code": "unknown_action"`, `"next_step": "call capabilities with {\"name\":\"testtool\"} to list its actions"`}},
		{name: "a mistyped arg names the action's args", vars: noColour, tty: true, args: []string{"call", "testtool", "echo", "--arg", "txt=hi"}, code: 2,
			want: []string{"did you mean: text", "`" + hostBin + " capabilities testtool echo` for the args"}},
		{name: "a mistyped value, named once, says what to give", vars: noColour, tty: true, args: []string{"call", "testtool", "slow", "--arg", "ms=five"}, code: 2,
			want: []string{`arg ms: want integer, got "five"`, "give ms a whole number"}, refuse: []string{"arg 'ms'"}},
		{name: "the gate asks for --confirm", vars: noColour, tty: true, args: []string{"call", "testtool", "delete-thing", "--arg", "text=x"}, code: 1,
			want: []string{"irreversible", "again with --confirm"}, refuse: []string{"run_tool_confirmed"}},
		{name: "an unknown tool", vars: noColour, tty: true, args: []string{"call", "nosuch", "echo"}, code: 2,
			want: []string{"error: no tool named \"nosuch\"", "run `" + hostBin + " capabilities` to list what is available"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r terminalRun
			if tt.tty {
				r = onTerminal(t, tt.vars, tt.errToo, hostBin, tt.args...)
			} else {
				r = piped(t, tt.vars, hostBin, tt.args...)
			}
			if r.code != tt.code {
				t.Errorf("exit %d, want %d", r.code, tt.code)
			}
			if tt.exact != "" && r.screen != tt.exact {
				t.Errorf("stdout = %q, want %q", r.screen, tt.exact)
			}
			plain := sgrSeq.ReplaceAllString(r.screen, "")
			for _, w := range tt.want {
				if !strings.Contains(plain, w) {
					t.Errorf("the output lacks %q:\n%q", w, r.screen)
				}
			}
			for _, w := range tt.refuse {
				if strings.Contains(plain, w) {
					t.Errorf("the output holds %q:\n%q", w, r.screen)
				}
			}
			if got := colourIn(r.screen); got != tt.colour {
				t.Errorf("colour on screen = %v, want %v:\n%q", got, tt.colour, r.screen)
			}
			if tt.stderrNo != "" && strings.Contains(r.stderr, tt.stderrNo) {
				t.Errorf("piped stderr holds %q:\n%s", tt.stderrNo, r.stderr)
			}
			if !tt.tty && strings.Contains(r.screen, "\x1b") {
				t.Errorf("piped output holds escape sequences: %q", r.screen)
			}
		})
	}
}

// TestPluginCLIModeOnATerminal runs the test plugin's own binary as a
// command-line tool (no host).
func TestPluginCLIModeOnATerminal(t *testing.T) {
	e := newEnv(t)
	bin := filepath.Join(e.plugins, "testtool", "testtool")
	if _, err := os.Stat(bin); err != nil {
		t.Fatal(err)
	}
	vars := append(e.vars[:len(e.vars):len(e.vars)], "TERM=xterm-256color", "NO_COLOR=1")
	tests := []struct {
		name   string
		tty    bool
		args   []string
		code   int
		want   []string
		refuse []string
	}{
		{"rendered on a terminal", true, []string{"echo", "--text", "hi"}, 0, []string{"echo:", "hi"}, []string{"**echo:**", `"text"`}},
		{"piped: JSON", false, []string{"echo", "--text", "hi"}, 0, []string{`"text": "hi"`}, []string{"**"}},
		{"--help on stdout", false, []string{"--help"}, 0, []string{"echo", "--text", "(required)", "Exit codes"}, nil},
		{"--version", false, []string{"--version"}, 0, []string{"testtool "}, []string{"unknown"}},
		{"irreversible: refused without --confirm when piped", false, []string{"delete-thing", "--text", "x"}, 1,
			[]string{`"code": "approval_required"`, "again with --confirm"}, nil},
		{"irreversible with --confirm runs", false, []string{"delete-thing", "--text", "x", "--confirm"}, 0, []string{"x"}, []string{"approval_required"}},
		{"usage error on a terminal: exit 2 and the plugin's words", true, []string{"echo", "--txt", "hi"}, 2,
			[]string{"error:", "did you mean: text", "testtool echo --help"}, []string{"capabilities"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r terminalRun
			if tt.tty {
				r = onTerminal(t, vars, false, bin, tt.args...)
			} else {
				r = piped(t, vars, bin, tt.args...)
			}
			if r.code != tt.code {
				t.Errorf("exit %d, want %d\n%s\n%s", r.code, tt.code, r.screen, r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.screen, w) {
					t.Errorf("stdout lacks %q:\n%q", w, r.screen)
				}
			}
			for _, w := range tt.refuse {
				if strings.Contains(r.screen, w) {
					t.Errorf("stdout holds %q:\n%q", w, r.screen)
				}
			}
		})
	}
}
