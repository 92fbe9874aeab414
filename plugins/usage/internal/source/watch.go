package source

import (
	"context"
	"strings"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// watch tracks changes to the watched folders between refreshes. Until
// Watch starts it, it vouches for nothing and every refresh lists and stats
// all sources.
type watch struct {
	mu      sync.Mutex
	w       *fsnotify.Watcher
	dirs    map[string]bool
	dirty   bool            // something other than a write to a known file happened
	written map[string]bool // files written since the last refresh
	ok      bool            // every folder of the last discovery is watched
}

// Watch watches the sources' folders until ctx ends, so refreshes skip
// listing and stat-ing unchanged files. Without it (a one-shot CLI run)
// every refresh looks at everything.
func (s *Store) Watch(ctx context.Context) error {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	s.w.mu.Lock()
	s.w.w, s.w.dirs, s.w.dirty, s.w.written = fw, map[string]bool{}, true, map[string]bool{}
	s.w.mu.Unlock()
	go func() {
		<-ctx.Done()
		s.w.mu.Lock()
		s.w.w = nil
		s.w.mu.Unlock()
		_ = fw.Close()
	}()
	go func() {
		for {
			select {
			case ev, ok := <-fw.Events:
				if !ok {
					return
				}
				s.w.mu.Lock()
				switch {
				case ev.Op&fsnotify.Write != 0 && ev.Op&(fsnotify.Create|fsnotify.Remove|fsnotify.Rename) == 0:
					p := ev.Name
					for _, suf := range []string{"-wal", "-shm"} {
						p = strings.TrimSuffix(p, suf)
					}
					s.w.written[p] = true
				case ev.Op == fsnotify.Chmod:
				default:
					s.w.dirty = true
				}
				s.w.mu.Unlock()
			case _, ok := <-fw.Errors:
				if !ok {
					return
				}
				s.w.mu.Lock()
				s.w.dirty = true
				s.w.mu.Unlock()
			}
		}
	}()
	return nil
}

// add watches dirs (after a full discovery).
func (w *watch) add(dirs []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.w == nil {
		return
	}
	for _, d := range dirs {
		if w.dirs[d] {
			continue
		}
		if err := w.w.Add(d); err != nil {
			w.ok = false
			return
		}
		w.dirs[d] = true
	}
}

// take returns the files written since the last call; ok is false when the
// watcher cannot vouch that nothing else changed (then the caller discovers
// everything, and the watcher starts vouching again afterwards).
func (w *watch) take() (written []string, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.w == nil {
		return nil, false
	}
	if w.dirty || !w.ok {
		w.dirty, w.ok = false, true
		clear(w.written)
		return nil, false
	}
	for p := range w.written {
		written = append(written, p)
	}
	clear(w.written)
	return written, true
}

func (w *watch) active() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w != nil
}
