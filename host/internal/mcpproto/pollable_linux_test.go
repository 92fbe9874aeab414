//go:build linux

package mcpproto

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// init runs the child of TestPollableStdioUsesThePollerOnPipes
// (before TestMain, which has its own child).
func init() {
	if os.Getenv("MCPPROTO_STDIN_CHILD") == "1" {
		stdinChild()
	}
}

// stdinChild takes PollableStdin and PollableStdout (of a duplicate of
// descriptor 1, as GuardStdout keeps one) and writes on the latter what the
// parent checks: whether each is another file than the one it was given,
// whether each is in Go's poller (only then can a deadline be set),
// whether descriptors 0 and 1 stayed blocking, and everything read until
// the end of input.
func stdinChild() {
	fail := func(what string, err error) {
		fmt.Fprintln(os.Stderr, what+":", err)
		os.Exit(2)
	}
	in := PollableStdin()
	dup, err := unix.FcntlInt(1, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		fail("dup", err)
	}
	kept := os.NewFile(uintptr(dup), "kept-stdout")
	out := PollableStdout(kept)
	nonblocking := func(fd int) bool {
		fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
		if err != nil {
			fail("fcntl", err)
		}
		return fl&unix.O_NONBLOCK != 0
	}
	data, err := io.ReadAll(in)
	if err != nil {
		fail("read", err)
	}
	if _, err := fmt.Fprintf(out, "in: reopened=%t polled=%t fd0-nonblocking=%t data=%q\nout: reopened=%t polled=%t fd1-nonblocking=%t\n",
		in != os.Stdin, in.SetReadDeadline(time.Time{}) == nil, nonblocking(0),
		data, out != kept, out.SetWriteDeadline(time.Time{}) == nil, nonblocking(1)); err != nil {
		fail("write", err)
	}
	os.Exit(0)
}

func TestPollableStdioUsesThePollerOnPipes(t *testing.T) {
	const input = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\nsecond line\n"
	file := filepath.Join(t.TempDir(), "input")
	if err := os.WriteFile(file, []byte(input), 0o644); err != nil {
		t.Fatal(err)
	}
	const pipedOut = "out: reopened=true polled=true fd1-nonblocking=false\n"
	for _, tc := range []struct {
		name  string
		stdin func(t *testing.T) io.Reader
		want  string
	}{
		// exec copies a reader that is not a file into a pipe: the pipe
		// is opened again, non-blocking, and read through the poller; the
		// client's descriptor 0 keeps its flags.
		{"pipe", func(*testing.T) io.Reader { return bytes.NewReader([]byte(input)) },
			fmt.Sprintf("in: reopened=true polled=true fd0-nonblocking=false data=%q\n", input) + pipedOut},
		// A pipe whose writer is gone before the child starts: the open
		// must not wait for a writer, and the input is still all read.
		{"pipe already closed", func(t *testing.T) io.Reader {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.WriteString(input); err != nil {
				t.Fatal(err)
			}
			w.Close()
			t.Cleanup(func() { r.Close() })
			return r
		}, fmt.Sprintf("in: reopened=true polled=true fd0-nonblocking=false data=%q\n", input) + pipedOut},
		// A file (host serve < requests.jsonl) is left as it is.
		{"file", func(t *testing.T) io.Reader {
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f
		}, fmt.Sprintf("in: reopened=false polled=false fd0-nonblocking=false data=%q\n", input) + pipedOut},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "MCPPROTO_STDIN_CHILD=1")
			cmd.Stdin = tc.stdin(t)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("child: %v\n%s", err, stderr.String())
			}
			if got := stdout.String(); got != tc.want {
				t.Errorf("got  %s want %s", got, tc.want)
			}
		})
	}
}
