//go:build linux

package mcpproto

import (
	"fmt"
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

// PollableStdout returns the protocol's stdout (out, as GuardStdout kept
// it) for the transport. When it is a pipe it opens that pipe again,
// non-blocking, as PollableStdin does, and closes out: writes then go
// through Go's poller too, and a write to a full pipe (a client slow to
// read) parks the writing goroutine instead of blocking its thread in the
// kernel. With the host on one P (tuneProcs), a blocked thread would hold
// that P until the runtime's monitor took it back (20 µs to 10 ms), and no
// other call could run meanwhile, not even the reading of a cancellation.
// When out is not a pipe, or the pipe cannot be opened again, out is
// returned as it is.
func PollableStdout(out *os.File) *os.File {
	raw, err := out.SyscallConn() // unlike Fd, leaves out's mode alone
	if err != nil {
		return out
	}
	reopened := -1
	_ = raw.Control(func(fd uintptr) {
		var st unix.Stat_t
		if unix.Fstat(int(fd), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
			return
		}
		// Fails (ENXIO) when the client has closed its end already: then
		// the first write fails on out as it would have.
		if nfd, err := unix.Open(fmt.Sprintf("/proc/self/fd/%d", fd), unix.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0); err == nil {
			reopened = nfd
		}
	})
	if reopened < 0 {
		return out
	}
	out.Close()
	return os.NewFile(uintptr(reopened), "protocol-stdout")
}
