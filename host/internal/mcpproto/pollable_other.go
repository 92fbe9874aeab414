//go:build !linux

package mcpproto

import "os"

// PollableStdin returns the protocol's stdin for the transport: os.Stdin
// as it is on this platform (Linux reopens a pipe non-blocking, so reads
// go through the network poller).
func PollableStdin() *os.File { return os.Stdin }

// PollableStdout returns the protocol's stdout for the transport: out as it
// is on this platform (Linux reopens a pipe non-blocking, so writes go
// through the network poller).
func PollableStdout(out *os.File) *os.File { return out }
