//go:build !linux

package supervisor

// groupUsage measures nothing outside Linux (see limitsEnforced: Windows
// has the kernel enforce the ceilings, macOS does not enforce them).
func groupUsage(_, _ map[int]bool) map[int]usage { return nil }
