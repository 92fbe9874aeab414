//go:build unix

package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// pendingOutput is dump's save target while it is written: a new file in
// the target's folder that does not carry the target's name until commit
// links it there (never over an existing file), so a failed or interrupted
// dump leaves no half-written target. On Linux the file has no name at all
// (O_TMPFILE) and nothing is left behind even by a crash; elsewhere, or on
// a file system without O_TMPFILE, it is a hidden ".NAME.dump-…" file in
// the same folder, removed on commit and on abort.
type pendingOutput struct {
	*os.File
	dir    *os.File // the target's folder, reached without following a symlink
	tmp    string   // the file's name in dir, "" when it has none
	name   string   // the target's name in dir
	target string   // the target's absolute path
}

// unnamedOutput says whether to try an unnamed pending file first; tests
// turn it off to exercise the named fallback.
var unnamedOutput = true

// createPending makes the pending file for a dump saved as save inside the
// output folder. Each folder on the way is opened relative to the one
// before with O_NOFOLLOW, so no symlink is followed, even one swapped in
// meanwhile; it refuses at once when the target exists, even as a
// dangling symlink.
func createPending(save string) (*pendingOutput, error) {
	out, err := outputDir()
	if err != nil {
		return nil, err
	}
	parts, err := saveName(save, out)
	if err != nil {
		return nil, err
	}
	target := filepath.Join(append([]string{out}, parts...)...)
	fd, err := unix.Open(out, unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, saveError(target, folderErr(err))
	}
	for _, c := range parts[:len(parts)-1] {
		next, err := unix.Openat(fd, c, unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_RDONLY|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			return nil, saveError(target, folderErr(err))
		}
		fd = next
	}
	po := &pendingOutput{dir: os.NewFile(uintptr(fd), filepath.Dir(target)), name: parts[len(parts)-1], target: target}
	var st unix.Stat_t
	if err := unix.Fstatat(fd, po.name, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil {
		po.dir.Close()
		return nil, saveError(target, fs.ErrExist)
	}
	if err := po.create(); err != nil {
		po.dir.Close()
		return nil, saveError(target, err)
	}
	return po, nil
}

// folderErr names a symlink (ELOOP) or a file (ENOTDIR) where a folder
// should be as errSymlink.
func folderErr(err error) error {
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
		return errSymlink
	}
	return err
}

// create opens the pending file: unnamed where the system allows it, else
// under a fresh hidden name, created exclusively.
func (po *pendingOutput) create() error {
	if unnamedOutput {
		if f, err := createUnnamed(po.dir); err == nil {
			po.File = f
			return nil
		}
	}
	var err error
	for range 10 {
		var rnd [8]byte
		rand.Read(rnd[:])
		po.tmp = "." + po.name + ".dump-" + hex.EncodeToString(rnd[:])
		var fd int
		fd, err = unix.Openat(int(po.dir.Fd()), po.tmp, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
		if err == nil {
			po.File = os.NewFile(uintptr(fd), filepath.Join(po.dir.Name(), po.tmp))
			return nil
		}
		if !errors.Is(err, unix.EEXIST) {
			break
		}
	}
	po.tmp = ""
	return err
}

// commit gives the written file the target's name; it fails, leaving
// nothing behind, when something has taken that name meanwhile (link
// never replaces a name, nor follows a symlink there).
func (po *pendingOutput) commit() error {
	dirfd := int(po.dir.Fd())
	var err error
	if po.tmp == "" {
		err = linkUnnamed(po.File, po.dir, po.name)
	} else {
		err = unix.Linkat(dirfd, po.tmp, dirfd, po.name, 0)
	}
	if cerr := po.File.Close(); err == nil && cerr != nil {
		err = cerr
		unix.Unlinkat(dirfd, po.name, 0)
	}
	po.release()
	if err != nil {
		return saveError(po.target, err)
	}
	return nil
}

// abort drops the pending file.
func (po *pendingOutput) abort() {
	po.File.Close()
	po.release()
}

func (po *pendingOutput) release() {
	if po.tmp != "" {
		unix.Unlinkat(int(po.dir.Fd()), po.tmp, 0)
	}
	po.dir.Close()
}
