package source

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/conc/pool"

	"github.com/toolhost/toolhost/plugins/usage/internal/regular"
)

// Degraded says why a provider's data is partial or missing.
type Degraded struct {
	Provider string `json:"provider"`
	Reason   string `json:"reason"`
}

// ProviderStatus is what a refresh found for one provider.
type ProviderStatus struct {
	Provider string `json:"provider"`
	Found    bool   `json:"found"`
	// LookedIn is where a provider not found looked (its home folder
	// written ~): what to check, or which variable to set, when nothing is.
	LookedIn     []string `json:"looked_in,omitempty"`
	Files        int      `json:"files"`
	Lines        int64    `json:"lines"`
	SkippedLines int64    `json:"skipped_lines"`
	Oversized    int64    `json:"oversized_lines,omitempty"`
	Calls        int      `json:"calls"`
}

// Stats describe the store's cache.
type Stats struct {
	Scans           int64  `json:"scans"`
	LastScan        string `json:"last_scan,omitempty"`
	FilesCached     int    `json:"files_cached"`
	FilesParsed     int    `json:"files_parsed_last_scan"`
	BytesReadLast   int64  `json:"bytes_read_last_scan"`
	BytesReadTotal  int64  `json:"bytes_read_total"`
	CallsIndexed    int    `json:"calls_indexed"`
	Generation      uint64 `json:"generation"`
	LastScanMicros  int64  `json:"last_scan_us"`
	IncrementalLast bool   `json:"incremental_last_scan"`
	Watching        bool   `json:"watching"`
}

// Snapshot is the deduplicated calls of all providers after a refresh.
type Snapshot struct {
	// Calls are deduplicated: of the copies of one request the one with
	// the largest token total is kept.
	Calls []*Call
	// Degraded lists providers whose data is partial or missing.
	Degraded []Degraded
	// Providers says what each provider found.
	Providers []ProviderStatus
	// SkippedLines counts malformed lines over all providers.
	SkippedLines int64
	// Generation changes whenever the calls change.
	Generation uint64
	// Stats are the cache's counters at this refresh.
	Stats Stats
}

// Store keeps per-file parse state and the deduplicated index. Its methods
// are safe for concurrent use; refreshes are serialised.
type Store struct {
	providers []Provider
	env       Env
	workers   int

	mu     sync.Mutex
	files  map[string]*FileState
	nextID uint32
	refs   []ref
	// order lists the files the refs point into (ref.f indexes it).
	order   []*FileState
	calls   []*Call
	keyIdx  keyTable
	snap    *Snapshot
	stats   Stats
	indexed map[string]int // file path → calls already merged into the index
	// families maps a session with a lineage to its fork family's hash.
	families map[string]uint64
	// builtFrom is len(refs) when calls was last built from them.
	builtFrom int
	// loaded: files came from a saved index and are not in the index yet.
	loaded bool

	found        map[string]bool
	lookedIn     map[string][]string // by provider: Discovery.LookedIn
	discoverErrs []Degraded
	statErrs     map[string]Degraded
	w            *watch
}

// NewStore returns a store over providers; workers bounds parallel parsing
// (0 means GOMAXPROCS).
func NewStore(env Env, workers int, providers ...Provider) *Store {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return &Store{providers: providers, env: env, workers: workers, files: map[string]*FileState{},
		indexed: map[string]int{}, found: map[string]bool{}, lookedIn: map[string][]string{}, statErrs: map[string]Degraded{},
		w: &watch{}}
}

// Progress is told how many files of a refresh are parsed.
type Progress func(done, total int)

type job struct {
	st             *FileState
	provider       Provider
	reset          bool
	replacedBefore int
}

// ref locates one call of the index: the file's place in Store.order and
// the call's index in its Calls (8 bytes: a big log has hundreds of
// thousands).
type ref struct {
	f, i int32
}

// call is the call r locates.
func (s *Store) call(r ref) *Call { return &s.order[r.f].Calls[r.i] }

// Refresh brings the index up to date: new or rewritten files are parsed
// whole, grown appendable files from where the last parse stopped, unchanged
// files not at all. A provider that fails is reported in Degraded; the others
// are unaffected. While Watch runs and reports no change, a refresh lists
// and stats nothing; when it reports writes to known files, only those are
// looked at.
func (s *Store) Refresh(ctx context.Context, progress Progress) {
	s.mu.Lock()
	defer s.mu.Unlock()
	start := time.Now()
	var jobs []job
	rebuild := false
	if paths, ok := s.w.take(); ok && s.snap != nil {
		// Fast path: the watcher vouches that nothing else changed.
		for _, path := range paths {
			st := s.files[path]
			if st == nil {
				continue
			}
			j, err := s.plan(st.Source, st.provider)
			if err != nil {
				s.statErrs[path] = Degraded{Provider: st.provider.Name(), Reason: reason(path, err)}
				continue
			}
			if j != nil {
				jobs = append(jobs, *j)
			}
		}
	} else {
		s.discoverErrs = s.discoverErrs[:0]
		s.statErrs = map[string]Degraded{}
		seen := map[string]bool{}
		for _, p := range s.providers {
			dsc, err := safeDiscover(p, s.env)
			if err != nil {
				s.discoverErrs = append(s.discoverErrs, Degraded{Provider: p.Name(), Reason: "discover: " + reason("", err)})
			}
			for _, perr := range dsc.Problems {
				s.discoverErrs = append(s.discoverErrs, Degraded{Provider: p.Name(), Reason: "discover: " + perr.Error()})
			}
			s.found[p.Name()] = dsc.Found
			s.lookedIn[p.Name()] = homeAsTilde(dsc.LookedIn, s.env.Home())
			s.w.add(dsc.Dirs)
			rels := map[string]bool{}
			for _, src := range dsc.Sources {
				if src.Rel != "" {
					if rels[src.Rel] {
						continue // an archived copy of a log already listed
					}
					rels[src.Rel] = true
				}
				seen[src.Path] = true
				j, err := s.plan(src, p)
				if err != nil {
					s.statErrs[src.Path] = Degraded{Provider: p.Name(), Reason: reason(src.Path, err)}
					continue
				}
				if j != nil {
					jobs = append(jobs, *j)
				}
			}
		}
		for path := range s.files {
			if !seen[path] {
				delete(s.files, path)
				rebuild = true
			}
		}
	}
	var bytesRead int64
	if len(jobs) > 0 {
		var done atomic.Int64
		var progMu sync.Mutex
		pl := pool.New().WithMaxGoroutines(s.workers)
		for _, j := range jobs {
			pl.Go(func() {
				st := j.st
				var sc *scratch
				if j.reset {
					sc = scratchPool.Get().(*scratch)
					*st = FileState{Source: st.Source, ID: st.ID, Size: st.Size, ModTime: st.ModTime, provider: st.provider,
						Calls: sc.calls[:0], steps: sc.steps[:0]}
				}
				st.BytesRead = 0
				st.Err = safeParse(ctx, j.provider, st)
				if sc != nil {
					sc.keep(st)
				}
				n := done.Add(1)
				if step := max(len(jobs)/20, 1); progress != nil && (int(n)%step == 0 || int(n) == len(jobs)) {
					progMu.Lock()
					progress(int(n), len(jobs))
					progMu.Unlock()
				}
			})
		}
		pl.Wait()
		for _, j := range jobs {
			bytesRead += j.st.BytesRead
			if j.reset {
				rebuild = true
			}
		}
	}
	changed := rebuild
	for _, j := range jobs {
		if j.st.replaced != j.replacedBefore {
			changed = true
		}
	}
	if !rebuild {
		for _, j := range jobs {
			if j.st.Lineage.Parent != "" && j.st.mergedLineage != j.st.Lineage {
				rebuild = true // a fork's parent is known only after its first read
			}
		}
	}
	if s.loaded {
		rebuild, changed, s.loaded = true, true, false
	}
	if rebuild {
		s.families = s.familyRoots()
		// Size the index once: growing a map of a few hundred thousand
		// keys by doubling would hold both tables at the peak.
		total := 0
		paths := make([]string, 0, len(s.files))
		for p, st := range s.files {
			paths = append(paths, p)
			total += len(st.Calls)
		}
		s.refs = make([]ref, 0, total)
		s.order = make([]*FileState, 0, len(paths))
		s.keyIdx = newKeyTable(total)
		clear(s.indexed)
		sort.Strings(paths)
		for _, p := range paths {
			s.merge(s.files[p])
		}
	} else {
		for _, j := range jobs {
			if s.indexed[j.st.Path] < len(j.st.Calls) {
				changed = true
			}
			s.merge(j.st)
		}
	}
	if changed || s.builtFrom != len(s.refs) {
		if cap(s.calls) < len(s.refs) {
			s.calls = make([]*Call, 0, len(s.refs)+len(s.refs)/8)
		}
		s.calls = s.calls[:0]
		sidechains := false
		for _, r := range s.refs {
			c := s.call(r)
			sidechains = sidechains || c.Sidechain()
			s.calls = append(s.calls, c)
		}
		if sidechains {
			s.calls = dropSidechainReplays(s.calls)
		}
		s.builtFrom = len(s.refs)
	}
	// Per-provider status, skipped lines and unreadable files.
	degraded := append([]Degraded{}, s.discoverErrs...)
	for _, d := range s.statErrs {
		degraded = append(degraded, d)
	}
	var skipped int64
	idx := map[string]int{}
	statuses := make([]ProviderStatus, len(s.providers))
	for i, p := range s.providers {
		statuses[i] = ProviderStatus{Provider: p.Name(), Found: s.found[p.Name()]}
		if !statuses[i].Found {
			statuses[i].LookedIn = s.lookedIn[p.Name()]
		}
		idx[p.Name()] = i
	}
	for _, st := range s.files {
		ps := &statuses[idx[st.provider.Name()]]
		ps.Files++
		ps.Lines += st.Lines
		ps.SkippedLines += st.Skipped
		ps.Oversized += st.Oversized
		ps.Calls += len(st.Calls)
		skipped += st.Skipped
		if st.Err != nil {
			degraded = append(degraded, Degraded{Provider: ps.Provider, Reason: reason(st.Path, st.Err)})
		}
		if st.Oversized > 0 {
			degraded = append(degraded, Degraded{Provider: ps.Provider, Reason: fmt.Sprintf(
				"%s: %d line(s) over %d MB skipped unread; their usage is not counted",
				filepath.Base(st.Path), st.Oversized, MaxLineBytes>>20)})
		}
	}
	sort.Slice(degraded, func(i, j int) bool {
		if degraded[i].Provider != degraded[j].Provider {
			return degraded[i].Provider < degraded[j].Provider
		}
		return degraded[i].Reason < degraded[j].Reason
	})
	if changed || s.snap == nil {
		s.stats.Generation++
	}
	s.stats.Scans++
	s.stats.LastScan = time.Now().UTC().Format(time.RFC3339)
	s.stats.FilesCached = len(s.files)
	s.stats.FilesParsed = len(jobs)
	s.stats.BytesReadLast = bytesRead
	s.stats.BytesReadTotal += bytesRead
	s.stats.CallsIndexed = len(s.refs)
	s.stats.LastScanMicros = time.Since(start).Microseconds()
	s.stats.IncrementalLast = !rebuild
	s.stats.Watching = s.w.active()
	s.snap = &Snapshot{Calls: s.calls, Degraded: degraded, Providers: statuses, SkippedLines: skipped,
		Generation: s.stats.Generation, Stats: s.stats}
}

// plan stats one source and says what to parse: nil when unchanged.
func (s *Store) plan(src Source, p Provider) (*job, error) {
	size, mtime, err := stat(src)
	if err != nil {
		return nil, err
	}
	delete(s.statErrs, src.Path)
	st := s.files[src.Path]
	var j *job
	switch {
	case st == nil:
		s.nextID++
		st = &FileState{Source: src, ID: s.nextID, provider: p}
		s.files[src.Path] = st
		j = &job{st: st, provider: p, reset: true}
	case st.Size == size && st.ModTime == mtime && st.Err == nil:
	case src.Appendable && size >= st.Size && st.Err == nil:
		j = &job{st: st, provider: p, replacedBefore: st.replaced}
	default:
		j = &job{st: st, provider: p, reset: true}
	}
	st.Size, st.ModTime = size, mtime
	return j, nil
}

// merge adds the calls of st not yet in the index. Of the copies of one
// request the one with the largest token total is kept, and of equal ones
// the earliest (a replay re-stamped later is the copy).
func (s *Store) merge(st *FileState) {
	from := s.indexed[st.Path]
	family := s.families[st.Lineage.ID]
	st.mergedLineage = st.Lineage
	if int(st.slot) >= len(s.order) || s.order[st.slot] != st {
		st.slot = int32(len(s.order))
		s.order = append(s.order, st)
	}
	for i := from; i < len(st.Calls); i++ {
		c := &st.Calls[i]
		r := ref{f: st.slot, i: int32(i)}
		if c.Key == 0 {
			s.refs = append(s.refs, r)
			continue
		}
		key := c.dedupKey()
		if family != 0 {
			key = keyMix(key, family)
		}
		if j, ok := s.keyIdx.get(key); ok {
			old := s.call(s.refs[j])
			if c.Total() > old.Total() || (c.Total() == old.Total() && c.Time < old.Time) {
				s.refs[j] = r
			}
			continue
		}
		s.keyIdx.put(key, int32(len(s.refs)))
		s.refs = append(s.refs, r)
	}
	s.indexed[st.Path] = len(st.Calls)
}

// keyMix scopes a call's key to its fork family.
func keyMix(key, family uint64) uint64 {
	k := (key ^ family) * 0x9E3779B97F4A7C15
	if k == 0 {
		k = 1
	}
	return k
}

// familyRoots maps each session with a lineage to a hash of its fork
// family's root: the session it was forked from, followed to the first
// one whose parent is not forked (or not here).
func (s *Store) familyRoots() map[string]uint64 {
	parent := map[string]string{}
	for _, st := range s.files {
		if st.Lineage.ID != "" {
			if p, ok := parent[st.Lineage.ID]; !ok || p == "" {
				parent[st.Lineage.ID] = st.Lineage.Parent
			}
		}
	}
	roots := make(map[string]uint64, len(parent))
	for id := range parent {
		root := id
		for n := 0; n < len(parent); n++ { // bounded: a cycle ends the walk
			p := parent[root]
			if p == "" || p == root {
				break
			}
			root = p
		}
		roots[id] = keyOf([]byte("family"), []byte(root))
	}
	return roots
}

// dropSidechainReplays removes Claude Code sidechain copies of a response
// (isSidechain: true, the message.id of another line with a new requestId),
// as ccusage does: when a non-sidechain line has the message id, the
// sidechain copies go; when only sidechain lines have it, the one with the
// largest token total stays. Responses with their own message ids stay.
func dropSidechainReplays(calls []*Call) []*Call {
	// A Claude Code call's Key is its message id's hash (sub set).
	msg := func(c *Call) uint64 {
		if c.sub == 0 {
			return 0
		}
		return c.Key
	}
	best := map[uint64]*Call{} // message id of a sidechain call → kept copy
	for _, c := range calls {
		if m := msg(c); m != 0 && c.Sidechain() {
			if b, ok := best[m]; !ok || c.Total() > b.Total() {
				best[m] = c
			}
		}
	}
	parents := map[uint64]bool{}
	for _, c := range calls {
		if m := msg(c); m != 0 && !c.Sidechain() {
			if _, ok := best[m]; ok {
				parents[m] = true
			}
		}
	}
	out := calls[:0]
	for _, c := range calls {
		if m := msg(c); m != 0 && c.Sidechain() && (parents[m] || best[m] != c) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// Stats returns the cache's counters.
func (s *Store) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// View runs fn with the latest snapshot while no refresh can change it (a
// refresh reuses the calls slice). fn must not keep the snapshot.
func (s *Store) View(fn func(*Snapshot)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := s.snap
	if snap == nil {
		snap = &Snapshot{}
	}
	fn(snap)
}

// stat returns a source's size and modification time; a database's
// write-ahead log counts too.
func stat(src Source) (int64, int64, error) {
	fi, err := regular.Stat(src.Path)
	if err != nil {
		return 0, 0, err
	}
	size, mtime := fi.Size(), fi.ModTime().UnixNano()
	if !src.Appendable {
		if w, err := regular.Stat(src.Path + "-wal"); err == nil {
			size += w.Size()
			mtime = max(mtime, w.ModTime().UnixNano())
		}
	}
	return size, mtime, nil
}

func safeDiscover(p Provider, env Env) (dsc Discovery, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError{r}
		}
	}()
	return p.Discover(env)
}

func safeParse(ctx context.Context, p Provider, st *FileState) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError{r}
		}
	}()
	return p.Parse(ctx, st)
}

type panicError struct{ v any }

func (e panicError) Error() string { return "provider failed: internal error" }

// homeAsTilde is paths with the home folder written "~".
func homeAsTilde(paths []string, home string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if rest, ok := strings.CutPrefix(p, home); home != "" && ok && (rest == "" || rest[0] == filepath.Separator) {
			p = "~" + rest
		}
		out[i] = p
	}
	return out
}

// scratch holds a parse's growing calls and steps: a file parsed whole
// fills a worker's scratch, and only its exact-size copy is kept. Growing
// each file's own slices would leave, file after file, freed arrays of
// every size among the kept ones, which the heap cannot hand back.
type scratch struct {
	calls []Call
	steps []Step
}

// scratchKeep bounds what a scratch keeps for the next file: one huge
// file's arrays are not held for the rest of the process.
const scratchKeep = 1 << 14

var scratchPool = sync.Pool{New: func() any { return &scratch{} }}

// keep gives st exact-size copies of the calls and steps it parsed into
// the scratch, and puts the scratch back.
func (sc *scratch) keep(st *FileState) {
	calls, steps := st.Calls, st.steps
	st.Calls, st.steps = nil, nil
	if len(calls) > 0 {
		st.Calls = append(make([]Call, 0, len(calls)), calls...)
	}
	if len(steps) > 0 {
		st.steps = append(make([]Step, 0, len(steps)), steps...)
	}
	clear(calls) // no Origin stays reachable from the pool
	sc.calls, sc.steps = nil, nil
	if cap(calls) <= scratchKeep {
		sc.calls = calls[:0]
	}
	if cap(steps) <= scratchKeep {
		sc.steps = steps[:0]
	}
	scratchPool.Put(sc)
}
