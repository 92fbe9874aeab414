package brain

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lock takes the brain's write lock (an flock on .notes/lock, so writers in
// other processes and goroutines are serialised). It waits up to
// LockTimeout, then fails with locked.
func (b *Brain) lock(ctx context.Context) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(b.Root, StateDir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("brain: open lock: %w", err)
	}
	deadline := time.Now().Add(b.LockTimeout)
	wait := time.Millisecond
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fail(CodeLocked, "Another writer held the brain's lock for too long. Nothing was changed; try again in a moment.",
				"the brain is locked by another writer (waited %s)", b.LockTimeout)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("brain: wait for lock: %w", ctx.Err())
		case <-time.After(wait):
		}
		if wait < 50*time.Millisecond {
			wait *= 2
		}
	}
}
