//go:build !linux

package gitstore

import "syscall"

// procAttr is nil where the kernel cannot tie a child's life to its
// parent's.
func procAttr() *syscall.SysProcAttr { return nil }
