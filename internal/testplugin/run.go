package testplugin

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/internal/rpctest"
)

// ExitCode is the exit code err (from cmd.Run or cmd.Wait) carries: 0 for
// nil, the process's code for an *exec.ExitError. Any other error (the
// command could not start) fails t.
func ExitCode(t testing.TB, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatalf("%v", err)
	return 0
}

// Run runs cmd, whose Stdout and Stderr must be unset, and returns what
// it wrote to each and its exit code; it fails t only when cmd could not
// run. Plugin tests run their binary in CLI mode with it.
func Run(t testing.TB, cmd *exec.Cmd) (stdout, stderr []byte, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	code = ExitCode(t, cmd.Run())
	return out.Bytes(), errOut.Bytes(), code
}

// Serve starts `host serve` from an installation HostAndPlugin made (dir),
// in the folder work, with the test's environment plus env and the
// installation's plugins; it returns the connection, initialized as the
// MCP client named client. The host stops (its stdin closed, then waited
// for) when the test ends; its stderr is in a failure's message.
func Serve(t testing.TB, dir, work, client string, env ...string) *rpctest.Conn {
	t.Helper()
	cmd := exec.Command(filepath.Join(dir, "host"), "serve")
	cmd.Dir = work
	cmd.Env = append(append(os.Environ(), "HOST_PLUGIN_PATH="+filepath.Join(dir, "plugins"), "HOST_SKILL_PATH="+t.TempDir()), env...)
	var stderr LockedBuffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := rpctest.New(t, stdin, stdout)
	c.Context = func() string { return "host stderr:\n" + stderr.String() }
	t.Cleanup(func() {
		c.Close()
		<-c.Ended()
		_ = cmd.Wait()
	})
	c.Initialize(client)
	return c
}

// LockedBuffer is a buffer that a process's output (written from its own
// goroutine) and the test (reading String) may use at once.
type LockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

// Write appends p.
func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns what was written so far.
func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
