//go:build !unix

package mcpproto

import "os"

// GuardStdout returns the protocol's stdout. On this platform descriptor 1
// is not redirected: stray prints are kept out by the project's stdout test
// alone.
func GuardStdout() (*os.File, error) {
	out := os.Stdout
	os.Stdout = os.Stderr
	return out, nil
}
