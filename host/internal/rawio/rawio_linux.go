//go:build linux

package rawio

import (
	"io"
	"net"
	"os"
	"syscall"
	"time"
	"unsafe"
)

// Conn returns c reading and writing its descriptor with raw system calls
// when c is a socket in the network poller (a *net.UnixConn or
// *net.TCPConn); any other conn is returned as it is.
func Conn(c net.Conn) net.Conn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return c
	}
	return &conn{Conn: c, rc: rc}
}

// Reader returns f reading with raw system calls when f is in the network
// poller (a pipe opened non-blocking); otherwise f itself.
func Reader(f *os.File) io.Reader {
	if rc := pollable(f); rc != nil {
		return &file{rc: rc}
	}
	return f
}

// Writer returns f writing with raw system calls when f is in the network
// poller (a pipe opened non-blocking); otherwise f itself.
func Writer(f *os.File) io.Writer {
	if rc := pollable(f); rc != nil {
		return &file{rc: rc}
	}
	return f
}

// pollable returns f's RawConn when f's descriptor is in the network
// poller, or nil. Only then does RawConn park a goroutine when the
// descriptor would block; package os polls a descriptor that was
// non-blocking when the file was made, and only such a file takes a
// deadline.
func pollable(f *os.File) syscall.RawConn {
	if f == nil || f.SetDeadline(time.Time{}) != nil {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}

// conn is a socket read and written with raw system calls.
type conn struct {
	net.Conn
	rc syscall.RawConn
}

// Read implements net.Conn.
func (c *conn) Read(p []byte) (int, error) { return read(c.rc, p) }

// Write implements net.Conn.
func (c *conn) Write(p []byte) (int, error) { return write(c.rc, p) }

// file is a pollable pipe read or written with raw system calls.
type file struct{ rc syscall.RawConn }

// Read implements io.Reader.
func (f *file) Read(p []byte) (int, error) { return read(f.rc, p) }

// Write implements io.Writer.
func (f *file) Write(p []byte) (int, error) { return write(f.rc, p) }

// read reads once into p: it waits in the poller while nothing is there,
// and returns io.EOF at the end of input, as os.File and net.Conn do.
func read(rc syscall.RawConn, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	err := rc.Read(func(fd uintptr) bool {
		for {
			r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false
			}
			n, errno = int(r), e
			return true
		}
	})
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, &os.SyscallError{Syscall: "read", Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// write writes all of p, waiting in the poller whenever the descriptor is
// full.
func write(rc syscall.RawConn, p []byte) (int, error) {
	var done int
	var errno syscall.Errno
	err := rc.Write(func(fd uintptr) bool {
		for done < len(p) {
			r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[done])), uintptr(len(p)-done))
			switch e {
			case 0:
				done += int(r)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false
			default:
				errno = e
				return true
			}
		}
		return true
	})
	switch {
	case err != nil:
		return done, err
	case errno != 0:
		return done, &os.SyscallError{Syscall: "write", Err: errno}
	}
	return done, nil
}
