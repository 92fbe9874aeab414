// Package regular is the one way usage opens a file it reads (a session
// log, a database, a price file): only a regular file is opened, so a FIFO,
// device or socket planted under a log folder is refused at once rather
// than blocking the read or feeding it without end.
package regular

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is the error for a path that is not a regular file.
var ErrNotRegular = errors.New("not a regular file (a FIFO, device, socket or folder): skipped")

// Open opens path for reading when it is a regular file. It opens without
// blocking (a FIFO with no writer would otherwise wait for one) and checks
// the open file, so a path swapped between a stat and the open cannot
// slip through.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	return f, nil
}

// ReadFile reads the regular file path whole, failing when it holds more
// than limit bytes (limit <= 0: no limit).
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if limit > 0 {
		r = io.LimitReader(f, limit+1)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if limit > 0 && int64(len(b)) > limit {
		return nil, fmt.Errorf("read %s: larger than %d bytes", path, limit)
	}
	return b, nil
}

// Stat is os.Stat, failing with ErrNotRegular for anything but a regular
// file.
func Stat(path string) (fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "stat", Path: path, Err: ErrNotRegular}
	}
	return fi, nil
}
