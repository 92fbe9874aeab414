//go:build unix

package mcpproto

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestMain re-executes the test binary as a process that guards its stdout
// and then prints every way it can (see TestStrayPrintsMissTheProtocol).
func TestMain(m *testing.M) {
	if os.Getenv("MCPSERVER_GUARD_CHILD") == "1" {
		guardChild()
		return
	}
	os.Exit(m.Run())
}

func guardChild() {
	out, err := GuardStdout()
	if err != nil {
		fmt.Fprintln(os.Stderr, "guard:", err)
		os.Exit(2)
	}
	fmt.Println("stray fmt.Println")
	os.Stdout.WriteString("stray os.Stdout\n")
	syscall.Write(1, []byte("stray write(1)\n"))
	println("stray println")
	child := exec.Command("sh", "-c", "echo stray child; ls -l /proc/self/fd/ 2>/dev/null | grep -c protocol-stdout || true")
	child.Stdout = os.Stdout
	child.Stderr = os.Stderr
	_ = child.Run()
	out.WriteString(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n")
	os.Exit(0)
}

func TestStrayPrintsMissTheProtocol(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "MCPSERVER_GUARD_CHILD=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\n%s", err, stderr.String())
	}
	if got, want := stdout.String(), `{"jsonrpc":"2.0","id":1,"result":{}}`+"\n"; got != want {
		t.Errorf("stdout: got %q, want only the protocol line %q", got, want)
	}
	for _, s := range []string{"stray fmt.Println", "stray os.Stdout", "stray write(1)", "stray println", "stray child"} {
		if !strings.Contains(stderr.String(), s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
		}
	}
}
