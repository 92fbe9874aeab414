//go:build unix

package brain

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// openBrainFile opens rel under root one segment at a time with openat and
// O_NOFOLLOW, so no symbolic link on the way is followed (not even one
// swapped in between two checks), and without blocking on a FIFO.
func openBrainFile(root, rel string) (*os.File, error) {
	parts, err := splitRel(rel)
	if err != nil {
		return nil, err
	}
	dir, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("brain: open %s: %w", root, err)
	}
	for i, seg := range parts {
		last := i == len(parts)-1
		flags := unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_CLOEXEC | unix.O_NONBLOCK
		if !last {
			flags |= unix.O_DIRECTORY
		}
		fd, err := unix.Openat(dir, seg, flags, 0)
		unix.Close(dir)
		switch {
		case errors.Is(err, unix.ENOENT):
			return nil, notExist(rel)
		case errors.Is(err, unix.ELOOP):
			return nil, &unsafeFileError{Rel: rel, Why: "a symbolic link (" + filepath.Join(parts[:i+1]...) + ")"}
		case errors.Is(err, unix.ENOTDIR):
			// A file where a folder should be (or, on some systems, a
			// link met with O_DIRECTORY): refused, never followed.
			return nil, &unsafeFileError{Rel: rel, Why: "a path through something not a folder (" + filepath.Join(parts[:i+1]...) + ")"}
		case err != nil:
			return nil, fmt.Errorf("brain: open %s: %w", rel, err)
		}
		if last {
			return os.NewFile(uintptr(fd), filepath.Join(root, rel)), nil
		}
		dir = fd
	}
	return nil, notExist(rel)
}
