package main

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// createUnnamed opens a file with no name in dir (O_TMPFILE): it becomes
// visible only when linkUnnamed names it, and vanishes with its descriptor
// if the process dies first.
func createUnnamed(dir *os.File) (*os.File, error) {
	fd, err := unix.Openat(int(dir.Fd()), ".", unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, err
	}
	// Naming it later goes through /proc: without /proc mounted, use a
	// named file instead of failing after the whole dump is written.
	if _, err := os.Stat(procFD(fd)); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), "(unnamed dump)"), nil
}

func procFD(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }

// linkUnnamed gives the O_TMPFILE file f the name name in the folder dir,
// failing if the name exists. It links through /proc/self/fd, which needs
// no privilege (AT_EMPTY_PATH would need CAP_DAC_READ_SEARCH).
func linkUnnamed(f, dir *os.File, name string) error {
	return unix.Linkat(unix.AT_FDCWD, procFD(int(f.Fd())), int(dir.Fd()), name, unix.AT_SYMLINK_FOLLOW)
}
