package gitstore

import "syscall"

// procAttr makes a git child die with the plugin: a writer killed
// mid-commit must not leave a git process that keeps changing the brain
// while the next writer recovers it.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
