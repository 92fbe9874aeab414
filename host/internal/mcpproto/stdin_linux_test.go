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

// init runs the child of TestPollableStdinReadsThePipeThroughThePoller
// (before TestMain, which has its own child).
func init() {
	if os.Getenv("MCPPROTO_STDIN_CHILD") == "1" {
		stdinChild()
	}
}

// stdinChild takes PollableStdin and prints what the parent checks: whether
// it is another file than os.Stdin, whether it is in Go's poller (only
// then can a read deadline be set), whether descriptor 0 stayed blocking,
// and everything it reads until the end of input.
func stdinChild() {
	in := PollableStdin()
	fl, err := unix.FcntlInt(0, unix.F_GETFL, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fcntl:", err)
		os.Exit(2)
	}
	data, err := io.ReadAll(in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "read:", err)
		os.Exit(2)
	}
	fmt.Printf("reopened=%t polled=%t fd0-nonblocking=%t data=%q\n",
		in != os.Stdin, in.SetReadDeadline(time.Time{}) == nil, fl&unix.O_NONBLOCK != 0, data)
	os.Exit(0)
}

func TestPollableStdinReadsThePipeThroughThePoller(t *testing.T) {
	const input = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\nsecond line\n"
	file := filepath.Join(t.TempDir(), "input")
	if err := os.WriteFile(file, []byte(input), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		stdin func(t *testing.T) io.Reader
		want  string
	}{
		// exec copies a reader that is not a file into a pipe: the pipe
		// is opened again, non-blocking, and read through the poller; the
		// client's descriptor 0 keeps its flags.
		{"pipe", func(*testing.T) io.Reader { return bytes.NewReader([]byte(input)) },
			fmt.Sprintf("reopened=true polled=true fd0-nonblocking=false data=%q\n", input)},
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
		}, fmt.Sprintf("reopened=true polled=true fd0-nonblocking=false data=%q\n", input)},
		// A file (host serve < requests.jsonl) is left as it is.
		{"file", func(t *testing.T) io.Reader {
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f
		}, fmt.Sprintf("reopened=false polled=false fd0-nonblocking=false data=%q\n", input)},
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
