package brain

import (
	"context"
	"fmt"
	"path/filepath"
	"time"
)

// lock takes the brain's write lock (an flock on .notes/lock, so writers in
// other processes and goroutines are serialised). It waits up to
// LockTimeout, then fails with locked. Holding it, it first recovers the
// writes of any writer that died mid-write (see journal).
func (b *Brain) lock(ctx context.Context) (unlock func(), err error) {
	path := filepath.Join(b.Root, StateDir, "lock")
	deadline := time.Now().Add(b.LockTimeout)
	wait := time.Millisecond
	for {
		unlock, err := tryLock(path)
		if err != nil {
			return nil, fmt.Errorf("brain: lock: %w", err)
		}
		if unlock != nil {
			// Holding the lock, no live writer owns a journal: any
			// left belongs to a writer that died mid-write.
			rec, err := b.recoverLocked(ctx)
			if len(rec) > 0 {
				b.recMu.Lock()
				b.recovered = append(b.recovered, rec...)
				b.recMu.Unlock()
			}
			if err != nil {
				unlock()
				return nil, err
			}
			return unlock, nil
		}
		if time.Now().After(deadline) {
			return nil, fail(CodeLocked, "Another writer held the brain's lock for too long. Nothing was changed; try again in a moment.",
				"the brain is locked by another writer (waited %s)", b.LockTimeout)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("brain: wait for lock: %w", ctx.Err())
		case <-time.After(wait):
		}
		if wait < 50*time.Millisecond {
			wait *= 2
		}
	}
}

// lockFresh takes the write lock and brings the index to HEAD under it, for
// a writer whose decisions (paths, duplicates, the superseded note) read
// the index: two writers then never decide on the same stale view. It
// releases the lock when the index cannot be brought up to date.
func (b *Brain) lockFresh(ctx context.Context) (unlock func(), err error) {
	unlock, err = b.lock(ctx)
	if err != nil {
		return nil, err
	}
	if err := b.freshLocked(ctx); err != nil {
		unlock()
		return nil, err
	}
	return unlock, nil
}
