//go:build linux

package mcpproto

import (
	"os"

	"golang.org/x/sys/unix"
)

// PollableStdin returns the protocol's stdin for the transport. When
// descriptor 0 is a pipe (as every MCP client starts a server) it opens
// that pipe again, non-blocking, through /proc/self/fd/0: a new open file
// description of the same pipe, so the flag does not reach the client's
// end or anything else sharing descriptor 0. Reads on it go through Go's
// network poller instead of a blocking read system call. With a blocking
// read the reading thread sits in the kernel and holds its P in syscall
// state, so a call the reader has just started (queued on that P) waits
// for another thread to be woken to take it over; through the poller the
// reader parks and the call runs at once on the same thread. For anything
// that is not a pipe (a terminal, a file, a socket), or when the pipe
// cannot be opened again (no /proc), it returns os.Stdin.
func PollableStdin() *os.File {
	var st unix.Stat_t
	if err := unix.Fstat(0, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return os.Stdin
	}
	// O_NONBLOCK also keeps open from waiting for a writer when the
	// client has already closed its end (then the first read is the end
	// of input, as it would have been on descriptor 0).
	fd, err := unix.Open("/proc/self/fd/0", unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return os.Stdin
	}
	return os.NewFile(uintptr(fd), "protocol-stdin")
}
