//go:build unix

package mcpproto

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// GuardStdout makes stdout the protocol's alone: it keeps a private
// duplicate of file descriptor 1 (close-on-exec, so no plugin inherits it)
// and returns it for the transport, then points descriptor 1 at stderr. A
// stray print anywhere in the process afterwards — host code, a library,
// cgo — lands on stderr instead of corrupting the stream.
func GuardStdout() (*os.File, error) {
	fd, err := unix.FcntlInt(1, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, fmt.Errorf("mcp: keep stdout: %w", err)
	}
	if err := unix.Dup2(2, 1); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("mcp: point stdout at stderr: %w", err)
	}
	return os.NewFile(uintptr(fd), "protocol-stdout"), nil
}
