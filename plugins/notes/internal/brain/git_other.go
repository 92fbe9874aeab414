//go:build !linux

package brain

import "syscall"

// gitProcAttr is nil where the kernel cannot tie a child's life to its
// parent's.
func gitProcAttr() *syscall.SysProcAttr { return nil }
