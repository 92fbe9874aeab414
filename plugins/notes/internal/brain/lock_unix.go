//go:build unix

package brain

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an flock on path without waiting: unlock is nil when
// another writer holds it. An flock is released by the kernel if the
// process dies, so a crash never leaves the brain locked.
func tryLock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, nil
		}
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
